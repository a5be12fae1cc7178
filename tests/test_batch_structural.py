"""Batching rules of the structural primitives, and the jnp shape functions built on them.

``vmap(f)`` is compared with a Python loop of ``f`` stacked along the output axis, eagerly and
under jit (``batch_checks.check_batch``), with the batch axis first, in the middle, last, and
absent from some operands; then vmap of vmap, and vmap of grad/jvp, whose jvp and transpose
rules emit more structural primitives to batch. Most checks go through ``check_cases``, which
batches many cases in one jitted function to compile once.
"""
import numpy as np
import pytest
from batch_checks import B, args_for, batched, check_batch, check_cases

import ember
import ember.numpy as jnp
from ember import lax


# --- one operand ------------------------------------------------------------------------------

UNARY = {  # the function of one example, and the example's shape
    "broadcast_in_dim": (lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), (3, 1)),
    "broadcast_unsorted": (lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (2, 0)), (3, 4)),
    "broadcast_scalar": (lambda x: lax.broadcast_in_dim(x, (2, 3), ()), ()),
    "reshape": (lambda x: lax.reshape(x, (6, 2)), (2, 3, 2)),
    "reshape_dimensions": (lambda x: lax.reshape(x, (4, 6), (2, 0, 1)), (2, 3, 4)),
    "squeeze": (lambda x: lax.squeeze(x, (0, 2)), (1, 3, 1)),
    "transpose": (lambda x: lax.transpose(x, (2, 0, 1)), (2, 3, 4)),
    "rev": (lambda x: lax.rev(x, (0, 2)), (2, 3, 4)),
    "slice": (lambda x: lax.slice(x, (1, 0), (3, 2)), (4, 3)),
    "slice_strided": (lambda x: lax.slice(x, (1, 0), (6, 3), (2, 2)), (7, 3)),
    "pad": (lambda x: lax.pad(x, np.float32(-1), [(1, 2, 1), (0, -1, 0)]), (3, 2)),
}


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unary(axis):
  # a rank-0 example has its batch axis at 0 whatever the axis asked
  cases = []
  for f, shape in UNARY.values():
    ax = min(axis, len(shape))
    cases.append((f, [batched(shape, ax)], (ax,)))
  check_cases(cases)


def test_unary_nested_vmap():
  # the inner batch axis in the middle (where there is one), the outer one last
  cases = []
  for f, shape in UNARY.values():
    ax = min(1, len(shape))
    cases.append((ember.vmap(f, in_axes=ax), [batched(shape[:ax] + (B,) + shape[ax:], -1)], (-1,)))
  check_cases(cases)


def test_dtypes():
  def f(x):
    y = lax.rev(lax.transpose(lax.reshape(x, (3, 2)), (1, 0)), (1,))
    return lax.concatenate([lax.slice(y, (0, 1), (2, 3)), lax.broadcast_in_dim(x[0], (2, 1), ())],
                           1)
  pad = lambda x, v: lax.pad(x, v, [(1, 0, 1)])
  g = lambda i, b, v: (f(i), f(b), pad(b, v))
  args = [batched((6,), 1, np.int32), batched((6,), 1, np.bool_), batched((), 0, np.bool_)]
  check_batch(ember.jit(g), args, (1, 1, 0), jit=False)


def test_reshape_keeps_a_last_batch_axis():
  jaxpr = ember.make_jaxpr(ember.vmap(lambda x: lax.reshape(x, (6,)), 2, 1))(batched((2, 3), 2))
  assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["reshape"]


# --- several operands: batched in different places or not at all ------------------------------

def test_concatenate():
  f = lambda x, y, z: lax.concatenate([x, y, z], 1)
  shapes = [(2, 3), (2, 1), (2, 2)]
  check_cases([(f, args_for(shapes, ax), ax)
               for ax in [(0, 0, 0), (1, -1, 0), (None, 1, None), (-1, None, 0)]])


def test_pad():
  # negative edge padding and interior padding, with a padding value per example or not
  f = lambda x, v: lax.pad(x, v, [(1, -1, 1), (-1, 2, 0)])
  check_cases([(f, args_for([(3, 2), ()], ax), ax)
               for ax in [(-1, None), (None, 0), (1, 0), (0, 0)]])


# --- vmap of vmap, of grad and of jvp ---------------------------------------------------------

def test_nested_vmap_eager():
  def f(x, y):
    z = lax.concatenate([lax.transpose(x, (1, 0)), lax.squeeze(y, (0,))], 0)
    return lax.pad(lax.rev(z, (1,)), np.float32(0), [(0, 1, 1), (1, 0, 0)])
  inner = ember.vmap(f, in_axes=(1, None))
  x = batched((2, B, 3), -1)  # batch axes: inner at 1, outer last
  check_batch(inner, [x, batched((1, 4, 2), 0)], (-1, 0))


def _loss(x, v):
  y = lax.pad(lax.transpose(x, (1, 0)), v, [(1, 0, 1), (0, 1, 0)])
  y = lax.concatenate([lax.rev(y, (0,)), lax.broadcast_in_dim(v, (1, 3), ())], 0)
  return jnp.sum(jnp.sin(lax.slice(lax.reshape(y, (3, 5)), (0, 1), (3, 5), (2, 2))))


def test_vmap_of_grad_and_jvp():
  grad = ember.grad(_loss, argnums=(0, 1))
  jvp = lambda x, t: ember.jvp(lambda x: _loss(x, np.float32(2)), (x,), (t,))
  check_cases([(grad, args_for([(2, 2), ()], ax), ax) for ax in [(1, None), (None, 0)]]
              + [(jvp, args_for([(2, 2), (2, 2)], (1, None)), (1, None))])


# --- the jnp functions built on them ----------------------------------------------------------

JNP = [
    lambda x: jnp.reshape(x, (-1, 2)), lambda x: jnp.expand_dims(x, (0, 3)),
    lambda x: jnp.squeeze(x[:1], 0), lambda x: x.T, lambda x: jnp.transpose(x, (1, 0, 2)),
    lambda x: x[1:3], lambda x: x[1:3, ::-1, ::2], lambda x: jnp.flip(x, 1),
    lambda x: jnp.pad(x, ((1, 0), (0, 0), (2, 1))),
    lambda x: jnp.concatenate([x, 2 * x], axis=-1), lambda x: jnp.stack([x, x[::-1]], axis=1),
    lambda x: jnp.broadcast_to(x[0, :1], (3, 2, 2)),
]


def test_jnp():
  check_cases([(f, [batched((3, 3, 2), k % 3, seed=k)], (k % 3,)) for k, f in enumerate(JNP)])


def test_jnp_mixed_operands():
  f = lambda x, y: jnp.stack([jnp.concatenate([x, y]), jnp.concatenate([y, x])], -1)
  g = lambda x, y: jnp.hstack([x, y])
  check_cases([(f, args_for([(2,), (2,)], (None, 0)), (None, 0)),
               (g, args_for([(2, 1), (2, 3)], (1, 0)), (1, 0))])
