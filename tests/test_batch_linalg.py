"""Batching rule of dot_general, and the jnp products built on it.

``vmap(f)`` is compared with a Python loop of ``f`` stacked along the output axis
(``batch_checks.check_batch``) with the batch axis on the lhs only, the rhs only (a free
dimension of that operand) or both (a dot_general batch dimension), first, in the middle and
last, over dimension numbers with and without contracting and batch dimensions; then vmap of
vmap, per-example gradients (vmap of grad against a loop of grads, whose transposes contract
cotangents with dot_general again) and vmap of jvp. Most checks batch ``jit(f)``: the rule runs
the same when vmap batches the jitted jaxpr, and one compilation replaces one per primitive.
"""
import numpy as np
import pytest
from batch_checks import B, batched, check_batch, stacked_loop

import ember
import ember.numpy as jnp
from ember import lax

def check_jitted(f, args, in_axes):
  check_batch(ember.jit(f), args, in_axes, jit=False)


DOT = {  # dimension numbers, one example's lhs and rhs shapes
    "matmul": ((((1,), (0,)), ((), ())), (3, 4), (4, 5)),
    "batch_dims": ((((2,), (1,)), ((0,), (0,))), (2, 3, 4), (2, 4, 5)),
    "outer": ((((), ()), ((), ())), (3,), (2, 2)),
    "two_contracting": ((((0, 2), (2, 0)), ((1,), (1,))), (4, 2, 3), (3, 2, 4)),
    "lhs_transposed": ((((0,), (1,)), ((), ())), (4, 3), (5, 4)),
}
# lhs only (first, middle, last), rhs only (first, last), both (aligned, not aligned)
DOT_AXES = [(0, None), (1, None), (-1, None), (None, 0), (None, -1), (0, 0), (-1, 1)]


@pytest.mark.parametrize("name", sorted(DOT))
def test_dot_general(name):
  dn, l_shape, r_shape = DOT[name]
  f = lambda a, b: lax.dot_general(a, b, dn)
  def all_axes(*args):  # every in_axes at once: one compilation
    return [ember.vmap(f, ax)(*args[2 * k:2 * k + 2]) for k, ax in enumerate(DOT_AXES)]
  args = [a for k, ax in enumerate(DOT_AXES)
          for a in (batched(l_shape, ax[0], seed=k), batched(r_shape, ax[1], seed=k + 9))]
  for k, (got, ax) in enumerate(zip(ember.jit(all_axes)(*args), DOT_AXES)):
    np.testing.assert_array_equal(np.asarray(got), stacked_loop(f, args[2 * k:2 * k + 2], ax),
                                  err_msg=f"in_axes={ax}")


def test_dot_general_eager():
  dn = DOT["batch_dims"][0]
  args = [batched((2, 3, 4), 1), batched((2, 4, 5), -1, seed=1)]
  check_batch(lambda a, b: lax.dot_general(a, b, dn), args, (1, -1))


@pytest.mark.parametrize("dtypes", [(np.int32, np.int32), (np.int32, np.float32),
                                    (np.bool_, np.bool_)], ids=["int", "mixed", "bool"])
def test_dot_general_dtypes(dtypes):
  dn = DOT["matmul"][0]
  args = [batched((3, 4), 1, dtypes[0]), batched((4, 5), None, dtypes[1], seed=1)]
  check_jitted(lambda a, b: lax.dot_general(a, b, dn), args, (1, None))


def test_params_are_kept():
  """precision and preferred_element_type pass through the rule unchanged."""
  dn = DOT["matmul"][0]
  f = lambda a, b: lax.dot_general(a, b, dn, precision=lax.Precision.HIGHEST,
                                   preferred_element_type=np.float32)
  a, b = batched((3, 4), 0, np.int32), batched((4, 5), 2, np.int32, seed=1)
  for axes in [(0, None), (None, 2), (0, 2)]:
    jaxpr = str(ember.make_jaxpr(ember.vmap(f, axes))(a if axes[0] is not None else a[0],
                                                      b if axes[1] is not None else b[..., 0]))
    assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in jaxpr
    assert "preferred_element_type=float32" in jaxpr
  check_jitted(f, [a, b], (0, 2))


def test_one_sided_batch_is_a_free_dimension():
  """A batch axis on one operand stays where it is (no transpose before the product): it is
  one more free dimension, and the output's batch axis is its place among them."""
  dn = DOT["matmul"][0]
  f = lambda a, b: lax.dot_general(a, b, dn)
  a, b = batched((3, 4), 2), batched((4, 5), None, seed=1)
  jaxpr = ember.make_jaxpr(ember.vmap(f, (2, None), out_axes=1))(a, b)
  assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["dot_general"]


# --- jnp products -----------------------------------------------------------------------------

PRODUCTS = {  # f, one example's shapes, in_axes
    "dot": (jnp.dot, [(4, 5), (5, 2)], (0, 0)),
    "dot matvec": (jnp.dot, [(4, 5), (5,)], (1, 0)),
    "dot shared lhs": (jnp.dot, [(4, 5), (5,)], (None, 0)),
    "matmul": (jnp.matmul, [(4, 5), (5, 2)], (0, None)),
    "matmul stacked": (jnp.matmul, [(2, 4, 5), (5, 3)], (2, 1)),
    "einsum": (lambda a, b: jnp.einsum("ij,jk->ki", a, b), [(4, 5), (5, 2)], (0, 0)),
    "einsum three": (lambda a, b, c: jnp.einsum("ij,jk,k->i", a, b, c),
                     [(4, 5), (5, 2), (2,)], (0, None, 0)),
    "tensordot": (lambda a, b: jnp.tensordot(a, b, axes=([1], [0])), [(4, 5), (5, 2, 3)],
                  (1, -1)),
    "inner": (jnp.inner, [(4, 5), (5,)], (0, None)),
    "outer": (jnp.outer, [(5,), (4,)], (None, 0)),
    "vdot": (jnp.vdot, [(5,), (5,)], (0, -1)),
}


def products_case(name, seed=0):
  f, shapes, axes = PRODUCTS[name]
  return f, [batched(s, ax, seed=seed + k) for k, (s, ax) in enumerate(zip(shapes, axes))], axes


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_jnp_products(name):
  f, args, axes = products_case(name)
  check_jitted(f, args, axes)


def test_nested():
  f = ember.vmap(ember.vmap(jnp.dot, in_axes=(1, None)), in_axes=(0, None))
  check_jitted(f, [batched((4, 5, 2), 0), batched((5, 3), None, seed=1)], (0, None))
  g = ember.vmap(ember.vmap(jnp.dot, in_axes=(1, 0)), in_axes=(0, 1))
  check_jitted(g, [batched((4, 5, 2), 0), batched((2, 4, 5), 0, seed=1)], (0, 0))


# --- per-example gradients and jvp ------------------------------------------------------------

def per_example_grad(f, args, in_axes, argnums):
  """vmap(grad(f)) against a loop of grad(f) (both jitted)."""
  g = ember.grad(f, argnums)
  got = ember.jit(ember.vmap(g, in_axes))(*args)
  one = ember.jit(g)
  loop = [one(*[a if ax is None else np.take(a, k, ax) for a, ax in zip(args, in_axes)])
          for k in range(B)]
  for n, leaf in enumerate(got):
    np.testing.assert_allclose(np.asarray(leaf), np.stack([np.asarray(v[n]) for v in loop]),
                               rtol=1e-5, atol=1e-5)


GRADS = {  # f, one example's shapes, in_axes
    "matmul both": (lambda a, b: jnp.sum(jnp.tanh(a @ b)), [(4, 5), (5, 2)], (0, 1)),
    "linear layer": (lambda w, x: jnp.sum((x @ w) ** 2), [(5, 2), (3, 5)], (None, 0)),
    "einsum": (lambda a, b: jnp.sum(jnp.sin(jnp.einsum("bij,bjk->bik", a, b))),
               [(2, 4, 5), (2, 5, 3)], (1, None)),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_per_example_grad(name):
  f, shapes, axes = GRADS[name]
  args = [batched(s, ax, seed=k) / 3 for k, (s, ax) in enumerate(zip(shapes, axes))]
  per_example_grad(f, args, axes, (0, 1))


def test_vmap_of_jvp():
  f = lambda a, b, ta: ember.jvp(lambda x: jnp.dot(x, b), (a,), (ta,))
  args = [batched((4, 5), 0), batched((5, 2), None, seed=1), batched((4, 5), 1, seed=2)]
  check_jitted(f, args, (0, None, 1))
