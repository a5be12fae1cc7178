"""ember.experimental.checkify against JAX 0.10.2's answers (the messages below are JAX's): user
checks eagerly, staged and functionalized; the automatic categories; composition with jit, vmap,
grad and control flow; the Error value's API; and the refusals."""
import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.experimental import checkify


def _names(categories):
  return sorted(c.__name__ for c in categories)


def positive_log(x):
  checkify.check(x > 0, "x must be positive, got {}", x)
  return jnp.log(x)


def test_error_categories_are_jaxs():
  assert _names(checkify.user_checks) == ["FailedCheckError"]
  assert _names(checkify.float_checks) == ["DivisionByZeroError", "NaNError"]
  assert _names(checkify.automatic_checks) == ["DivisionByZeroError", "NaNError", "OOBError"]
  assert _names(checkify.all_checks) == ["DivisionByZeroError", "FailedCheckError", "NaNError",
                                         "OOBError"]
  assert issubclass(checkify.JaxRuntimeError, ValueError)


def test_eager_check_raises_at_once_and_debug_check_does_not():
  checkify.check(jnp.array(True), "fine")
  with pytest.raises(checkify.JaxRuntimeError, match=r"^bad 3 \(`check` failed\)$"):
    checkify.check(jnp.array(False), "bad {x}", x=jnp.int32(3))
  with pytest.raises(checkify.JaxRuntimeError, match="py bool"):
    checkify.check(False, "py bool")
  checkify.debug_check(jnp.array(False), "ignored")
  assert ember.jit(lambda x: checkify.debug_check(x > 0, "ignored") or x)(-1.0) == -1.0


def test_staged_check_must_be_functionalized():
  with pytest.raises(ValueError, match="Cannot abstractly evaluate a checkify.check which was "
                                       "not functionalized"):
    ember.jit(positive_log)(1.0)


@pytest.mark.parametrize("wrap", [
    lambda f: checkify.checkify(f),
    lambda f: ember.jit(checkify.checkify(f)),
    lambda f: checkify.checkify(ember.jit(f)),
])
def test_failed_and_passed_checks(wrap):
  err, out = wrap(positive_log)(jnp.float32(-1.0))
  assert err.get() == "x must be positive, got -1.0 (`check` failed)"
  assert str(err) == "Error(x must be positive, got -1.0 (`check` failed))"
  assert type(err.get_exception()) is checkify.FailedCheckError
  assert np.isnan(out)
  with pytest.raises(checkify.JaxRuntimeError, match="x must be positive, got -1.0"):
    err.throw()
  with pytest.raises(checkify.JaxRuntimeError, match="x must be positive, got -1.0"):
    checkify.check_error(err)
  err, out = wrap(positive_log)(jnp.float32(2.0))
  assert err.get() is None and err.get_exception() is None and str(err) == "Error(None)"
  np.testing.assert_allclose(out, np.log(2.0))
  err.throw()
  checkify.check_error(err)


def test_first_failure_wins_and_payloads_format_as_arrays():
  f = lambda x: (checkify.check(x > 0, "one"), checkify.check(x > 1, "two"))[0]
  assert checkify.checkify(f)(jnp.float32(-1.0))[0].get() == "one (`check` failed)"
  assert checkify.checkify(f)(jnp.float32(0.5))[0].get() == "two (`check` failed)"
  g = lambda x: checkify.check(False, "a={a} b={b}", a=x, b=x * 2)
  assert checkify.checkify(g)(jnp.arange(3))[0].get() == "a=[0 1 2] b=[0 2 4] (`check` failed)"
  h = lambda t: checkify.check(False, "tree {t}", t=t)
  msg = checkify.checkify(h)({"b": jnp.float32(np.nan)})[0].get()
  assert msg == "tree {'b': Array(nan, dtype=float32)} (`check` failed)"


def test_vmap_of_checkify_reports_each_example_and_checkify_of_vmap_the_last():
  xs = jnp.array([1.0, -2.0, -3.0])
  err, _ = ember.vmap(checkify.checkify(positive_log))(xs)
  assert err.get() == ("at mapped index 1: x must be positive, got -2.0 (`check` failed)\n"
                       "at mapped index 2: x must be positive, got -3.0 (`check` failed)")
  err, _ = checkify.checkify(ember.vmap(positive_log))(xs)
  assert err.get() == "x must be positive, got -3.0 (`check` failed)"


def test_checks_inside_control_flow():
  def scanned(xs):
    return lax.scan(lambda c, x: (checkify.check(x < 3, "big {}", x), (c + x, x))[1], 0.0, xs)

  err, (total, ys) = checkify.checkify(scanned)(jnp.arange(5.0))
  assert err.get() == "big 3.0 (`check` failed)" and total == 10.0
  np.testing.assert_array_equal(ys, np.arange(5.0))
  looped = lambda x: lax.while_loop(
      lambda c: c < 10, lambda c: (checkify.check(c != 4, "four {}", c), c + 1)[1], x)
  err, out = checkify.checkify(looped)(jnp.int32(0))
  assert err.get() == "four 4 (`check` failed)" and out == 10
  branchy = lambda x: lax.cond(x > 0, lambda v: v,
                               lambda v: (checkify.check(v > -5, "deep {}", v), v)[1], x)
  assert checkify.checkify(branchy)(jnp.float32(-7.0))[0].get() == "deep -7.0 (`check` failed)"
  assert checkify.checkify(branchy)(jnp.float32(7.0))[0].get() is None


def test_checks_inside_shard_map_and_pmap_report_the_first_failing_device():
  def f(x):
    checkify.check(jnp.all(x > 0), "neg block {}", x)
    return jnp.log(x)

  x = jnp.array([1.0, 2.0, -3.0, 4.0, 5.0, -6.0, 7.0, 8.0])
  err, out = checkify.checkify(ember.pmap(f))(x.reshape(4, 2))
  assert err.get() == "neg block [-3.  4.] (`check` failed)"  # JAX: each failing device
  np.testing.assert_allclose(out[0], np.log([1.0, 2.0]))
  assert checkify.checkify(ember.pmap(f))(jnp.abs(x).reshape(4, 2))[0].get() is None
  mesh = ember.make_mesh((4,), ("i",), devices=ember.devices()[:4])
  g = ember.shard_map(f, mesh=mesh, in_specs=ember.P("i"), out_specs=ember.P("i"))
  assert ember.jit(checkify.checkify(g))(x)[0].get() == "neg block [-3.  4.] (`check` failed)"
  assert checkify.checkify(g)(jnp.abs(x))[0].get() is None


def test_grad_composes_both_ways():
  assert ember.grad(lambda x: checkify.checkify(positive_log)(x)[1])(2.0) == 0.5
  err, g = checkify.checkify(ember.grad(positive_log))(jnp.float32(-2.0))
  assert err.get() == "x must be positive, got -2.0 (`check` failed)" and g == -0.5


@pytest.mark.parametrize("errors, f, args, msg", [
    (checkify.float_checks, jnp.log, (jnp.float32(-1.0),), "nan generated by primitive: log."),
    (checkify.nan_checks, lambda x: jnp.sin(x) * 0 + jnp.sqrt(x), (jnp.float32(-1.0),),
     "nan generated by primitive: sqrt."),
    (checkify.nan_checks, lambda x: x + 1, (jnp.float32(np.nan),),
     "nan generated by primitive: add."),
    (checkify.div_checks, lambda x, y: x // y, (jnp.int32(3), jnp.int32(0)), "division by zero"),
    (checkify.div_checks, lambda x, y: x / y, (jnp.float32(3), jnp.float32(0)),
     "division by zero"),
    (checkify.div_checks, lambda x, y: x % y, (jnp.int32(3), jnp.int32(0)), None),
    (checkify.index_checks, lambda x, i: lax.dynamic_slice(x, (i,), (2,)), (jnp.ones(3), 5),
     "out-of-bounds indexing for array of shape (3,): index 5 is out of bounds for axis 0 with "
     "size 3. "),
    (checkify.index_checks, lambda x, i: x[i], (jnp.ones(3), -5),
     "out-of-bounds indexing for array of shape (3,): index -2 is out of bounds for axis 0 with "
     "size 3. "),
    (checkify.index_checks, lambda x, i: x[1, i], (jnp.ones((2, 3)), 7),
     "out-of-bounds indexing for array of shape (2, 3): index 7 is out of bounds for axis 1 "
     "with size 3. "),
    (checkify.index_checks, lambda x, i: x.at[i].set(1.0), (jnp.ones(3), 7),
     "out-of-bounds indexing for array of shape (3,): index 7 is out of bounds for axis 0 with "
     "size 3. "),
    (checkify.index_checks, lambda x, i: x[i], (jnp.ones(3), jnp.array([0, 4])),
     "out-of-bounds indexing for array of shape (3,): index 4 is out of bounds for axis 0 with "
     "size 3. "),
    (checkify.index_checks, lambda x, i: x[i], (jnp.ones(3), 2), None),
    (checkify.nan_checks, positive_log, (jnp.float32(-1.0),), "nan generated by primitive: log."),
])
def test_automatic_checks(errors, f, args, msg):
  assert checkify.checkify(f, errors=errors)(*args)[0].get() == msg


def test_error_is_a_pytree_that_leaves_jit_and_can_be_rechecked():
  inner = checkify.checkify(lambda y: checkify.check(y > 0, "inner {}", y))
  err = ember.jit(lambda x: inner(x)[0])(jnp.float32(-1.0))
  assert err.get() == "inner -1.0 (`check` failed)"
  assert len(ember.tree_util.tree_leaves(err)) == 3
  outer = checkify.checkify(lambda x: checkify.check_error(inner(x)[0]))
  assert outer(jnp.float32(-1.0))[0].get() == "inner -1.0 (`check` failed)"
  assert outer(jnp.float32(1.0))[0].get() is None
  assert checkify.init_error.get() is None


def _checked_custom_jvp():
  f = ember.custom_jvp(lambda x: (checkify.check(x > 0, "m"), x)[1])
  f.defjvp(lambda p, t: (f(*p), t[0]))
  return f


@pytest.mark.parametrize("call, exc, phrase", [
    (lambda: checkify.check(jnp.ones(3) > 0, "m"), TypeError, "check takes a scalar pred"),
    (lambda: checkify.check(jnp.array(1), "m"), TypeError, "check takes a scalar pred"),
    (lambda: checkify.check(True, "m {}", 3), TypeError,
     "Formatting arguments to checkify.check need to be PyTrees of arrays, but got 3"),
    (lambda: checkify.check(True, 3), TypeError, "msg must be a string"),
    (lambda: checkify.checkify(abs, errors={3}), TypeError, "must be error categories"),
    (lambda: checkify.checkify(3), TypeError, "checkify takes a callable"),
    (lambda: checkify.check_error(None), TypeError, "check_error takes a checkify.Error"),
    (lambda: checkify.checkify(_checked_custom_jvp())(jnp.float32(1.0)), NotImplementedError,
     "custom_jvp"),
])
def test_bad_input_is_refused_by_name(call, exc, phrase):
  with pytest.raises(exc, match=phrase.replace("(", r"\(").replace(")", r"\)")):
    call()


def test_check_debug_is_a_debug_check():
  checkify.check(jnp.array(False), "ignored", debug=True)  # eagerly: nothing, as JAX
  ember.jit(lambda x: checkify.check(x > 0, "ignored", debug=True))(1.0)
  err, _ = checkify.checkify(lambda x: checkify.check(x > 0, "dbg {}", x, debug=True))(
      jnp.array(-1.0))
  assert err.get() == "dbg -1.0 (`check` failed)"
