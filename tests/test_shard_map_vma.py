"""shard_map's typing of values by the mesh axes they vary over (JAX 0.10.2's ``vma``), against
JAX itself: printed bodies, values (gradients inside and outside bodies included) and errors of
the programs in tests/data/shard_map_vma_cases.py, compared with the records JAX 0.10.2 gave
(tests/data/shard_map_vma_goldens.json, written by that script under JAX; no JAX needed here).
"""
import json
import os
import re
import sys

import numpy as np
import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember.core.aval import ManualAxes, ShapedArray
from ember.sharding import PartitionSpec as P

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
sys.path.insert(0, DATA)
import shard_map_vma_cases as cases  # noqa: E402

with open(os.path.join(DATA, "shard_map_vma_goldens.json")) as _f:
  GOLDENS = json.load(_f)["cases"]

# ember's advice names the branch to change and the axes it lacks; JAX 0.10.2's names the other
# branch and an empty tuple (docs/differences.md).
BETTER_HINT = {"error_cond_branch_with_axis_index":
               "This might be fixed by applying `jax.lax.pcast(..., ('i',), to='varying')` to "
               "the output of false_fun."}


@pytest.fixture(scope="module")
def ns():
  return cases.namespace(ember, jnp, lax, P)


def _sets_sorted(msg: str) -> str:
  """Set literals of strings with their items sorted (Python prints sets in hash order)."""
  return re.sub(r"\{('[^{}]*')\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", ")))
                + "}", msg)


def _close(got, want, where="") -> None:
  if isinstance(want, dict):
    assert isinstance(got, dict) and sorted(got) == sorted(want), where
    for k in want:
      _close(got[k], want[k], f"{where}[{k!r}]")
  elif isinstance(want, list) and want and isinstance(want[0], (list, dict, str)):
    assert isinstance(got, list) and len(got) == len(want), where
    for i, (g, w) in enumerate(zip(got, want)):
      _close(g, w, f"{where}[{i}]")
  elif isinstance(want, str):
    assert got == want, where
  else:
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-5, atol=1e-6, err_msg=where)


@pytest.mark.parametrize("name", list(cases.CASES))
def test_matches_jax(ns, name):
  want, got = GOLDENS[name], cases.record(ns, name)
  assert got.keys() == want.keys(), f"{name}: ember gave {got}, JAX gave {want}"
  if "jaxpr" in want:
    assert got["jaxpr"] == want["jaxpr"]
  elif "value" in want:
    _close(got["value"], want["value"])
  else:
    (got_type, got_msg), (want_type, want_msg) = got["error"], want["error"]
    assert got_type == want_type
    if name in BETTER_HINT:
      hint = re.compile(r"This might be fixed by .*\n")
      assert BETTER_HINT[name] in got_msg
      got_msg, want_msg = hint.sub("", got_msg), hint.sub("", want_msg)
    assert _sets_sorted(got_msg) == _sets_sorted(want_msg)


def test_every_case_has_a_golden():
  assert sorted(GOLDENS) == sorted(cases.CASES)


# --- the data-parallel example, spelled out ---------------------------------------------

def test_grad_inside_body_of_a_replicated_parameter_sums_over_devices():
  """JAX 0.10.2: grad of a replicated w inside the body is the full gradient (the pvary that
  makes w vary transposes to a psum); pmean leaves it, psum multiplies it by the device count."""
  mesh = ember.make_mesh((4,), ("i",), devices=ember.devices()[:4])
  w, x = jnp.array([1.0, 2.0]), jnp.arange(8.0).reshape(4, 2)
  loss = lambda w, x: jnp.sum((x * w) ** 2)  # noqa: E731
  full = ember.grad(loss)(w, x)
  np.testing.assert_allclose(np.asarray(full), [112.0, 336.0])
  for reduce, factor in [(lambda g: g, 1), (lambda g: lax.pmean(g, "i"), 1),
                         (lambda g: lax.psum(g, "i"), 4)]:
    f = ember.shard_map(lambda w, x: reduce(ember.grad(loss)(w, x)), mesh=mesh,
                        in_specs=(P(), P("i")), out_specs=P())
    np.testing.assert_allclose(np.asarray(f(w, x)), factor * np.asarray(full))
    np.testing.assert_allclose(np.asarray(ember.jit(f)(w, x)), factor * np.asarray(full))


def test_unchecked_body_keeps_the_per_device_gradient():
  """With check_vma=False nothing is typed, so nothing is summed: the gradient is each device's
  own (JAX 0.10.2 gives the same)."""
  mesh = ember.make_mesh((4,), ("i",), devices=ember.devices()[:4])
  w, x = jnp.array([1.0, 2.0]), jnp.arange(8.0).reshape(4, 2)
  f = ember.shard_map(lambda w, x: ember.grad(lambda w: jnp.sum((x * w) ** 2))(w)[None],
                      mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"), check_vma=False)
  per_device = [2 * (np.asarray(x[k]) ** 2) * np.asarray(w) for k in range(4)]
  np.testing.assert_allclose(np.asarray(f(w, x)), per_device)


# --- types ------------------------------------------------------------------------------------

def test_aval_prints_its_varying_axes_in_mesh_order():
  a = ShapedArray((2,), np.float32, vma=ManualAxes(("x", "y")))
  assert a.str_short(short_dtypes=True) == "f32[2]{V:(x,y)}" and str(a) == "float32[2]{V:(x,y)}"
  assert repr(a) == "ShapedArray(float32[2]{V:(x,y)})"
  assert a.mat.varying == frozenset({"x", "y"}) and a.update(vma=()).vma == frozenset()
  assert a is ShapedArray((2,), np.float32, vma=frozenset({"y", "x"}))  # interned by the set
  assert ShapedArray((2,), np.float32).str_short() == "float32[2]"  # JAX's default


def test_vmap_named_axes_are_not_typed():
  """Outside shard_map nothing carries manual axes: vmap's collectives are as before."""
  f = ember.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
  np.testing.assert_allclose(np.asarray(f(jnp.array([1.0, 3.0]))), [0.25, 0.75])
  assert "psum[axes=(0,)" in str(ember.make_jaxpr(f)(jnp.ones(2)))
  assert "V:" not in str(ember.make_jaxpr(ember.grad(lambda x: f(x).sum()))(jnp.ones(2)))


def test_unchecked_pcast_is_a_no_op_and_checked_pcast_is_pvary():
  mesh = ember.make_mesh((2,), ("i",), devices=ember.devices()[:2])
  body = lambda b: lax.pcast(b, "i", to="varying")  # noqa: E731
  for check_vma, prims in [(True, ["pvary"]), (False, [])]:
    jaxpr = ember.make_jaxpr(ember.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P("i"),
                                             check_vma=check_vma))(jnp.ones(2))
    assert [e.primitive.name for e in jaxpr.eqns[0].params["jaxpr"].eqns] == prims
