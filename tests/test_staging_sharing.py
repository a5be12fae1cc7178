"""Staging shares what equations have in common (source info, repeated constants), so a long
program keeps few objects per equation alive and tracing stays linear in its length; the
printed jaxpr is unchanged by the sharing."""
import numpy as np

import ember
import ember.numpy as jnp


def _chain(n):
  def f(x):
    for i in range(n):
      x = jnp.sin(x) if i % 3 == 0 else x + 1.0 if i % 3 == 1 else x * 2.0
    return x
  return f


def test_equations_from_one_line_share_their_source_info():
  eqns = ember.make_jaxpr(_chain(30))(jnp.ones(4, jnp.float32)).jaxpr.eqns
  infos = {id(e.source_info) for e in eqns}
  assert len(infos) == 1
  info = eqns[0].source_info
  assert info.file == __file__ and info.function == "f" and str(info.name_stack) == ""


def test_named_scopes_still_tell_equations_apart():
  def f(x):
    for name in ("a", "b", "a"):
      with ember.named_scope(name):
        x = jnp.sin(x)
    return x
  eqns = ember.make_jaxpr(f)(1.0).jaxpr.eqns
  assert [str(e.source_info.name_stack) for e in eqns] == ["a", "b", "a"]
  assert eqns[0].source_info is eqns[2].source_info


def test_a_repeated_constant_is_one_literal():
  eqns = ember.make_jaxpr(_chain(30))(jnp.ones(4, jnp.float32)).jaxpr.eqns
  adds = [e.invars[1] for e in eqns if e.primitive.name == "add"]
  muls = [e.invars[1] for e in eqns if e.primitive.name == "mul"]
  assert len({id(v) for v in adds}) == 1 and len({id(v) for v in muls}) == 1
  assert float(adds[0].val) == 1.0 and float(muls[0].val) == 2.0


def test_sharing_keeps_signed_zeros_and_types_apart():
  f = lambda x: ((x + 0.0) * -0.0 + 0.0) * -0.0
  for arg in (jnp.ones(3, jnp.float32), 1.0):
    text = str(ember.make_jaxpr(f)(arg))
    assert [line.split()[-1] for line in text.splitlines()[1:5]] == [
        "0.0:f32[]", "-0.0:f32[]", "0.0:f32[]", "-0.0:f32[]"]
  g = lambda x: x * np.float32(-0.0) + np.float32(0.0) + np.float16(0.0)
  text = str(ember.make_jaxpr(g)(jnp.ones(3, jnp.float32)))
  assert [line.split()[-1] for line in text.splitlines()[1:4]] == [
      "-0.0:f32[]", "0.0:f32[]", "0.0:f32[]"]
  text = str(ember.make_jaxpr(lambda x: x + 1 + 1.0 + True)(1))
  assert "add a 1:i32[]" in text and text.count("1.0:f32[]") == 2


def test_long_chain_prints_as_before():
  text = str(ember.make_jaxpr(_chain(6))(jnp.ones(2, jnp.float32)))
  assert text == (
      "{ lambda ; a:f32[2]. let\n"
      "    b:f32[2] = sin a\n"
      "    c:f32[2] = add b 1.0:f32[]\n"
      "    d:f32[2] = mul c 2.0:f32[]\n"
      "    e:f32[2] = sin d\n"
      "    f:f32[2] = add e 1.0:f32[]\n"
      "    g:f32[2] = mul f 2.0:f32[]\n"
      "  in (g,) }")
