"""Batching rules of sort and top_k, and the jnp sorting functions built on them.

``vmap(f)`` against a stacked loop of ``f`` (``batch_checks.check_batch``): sort of several
operands batched at different axes or not at all (each example sorts its own lanes), top_k with
the batch axis on either side of the sorted axis, vmap of vmap, and vmap of grad (the jvps
gather the tangents at the sorted positions). Most checks go through ``check_cases``, which
batches many cases in one jitted function to compile once.
"""
import numpy as np
from batch_checks import B, args_for, batched, check_batch, check_cases

import ember
import ember.numpy as jnp
from ember import lax


def test_sort():
  # small integer keys: ties, broken by the next key or kept in order (the sort is stable)
  def several(num_keys):
    return lambda x, y, z: lax.sort((x, y, z), dimension=0, num_keys=num_keys)
  shapes = [(5, 2)] * 3
  cases = [(lambda x: lax.sort(x, dimension=0), [batched((3, 4), 1)], (1,)),
           (lambda x: lax.sort(x, dimension=-1), [batched((3, 4), -1)], (-1,))]
  cases += [(several(k), args_for(shapes, ax, np.int32), ax)
            for k, ax in [(2, (1, None, 0)), (1, (None, -1, None)), (3, (None, None, 1))]]
  check_cases(cases)


def test_sort_dtypes_nested_vmap():
  x = batched((4, B, 3), -1)
  x[0, 1, 2] = x[2, 0, 1] = np.nan
  x[1, 1, 0] = -0.0
  f = ember.vmap(lambda x: lax.sort_key_val(x, -x.astype(np.float32), 0), in_axes=1)
  check_cases([(f, [x], (-1,)), (f, [batched((4, B, 3), -1, np.bool_)], (-1,))])


def test_top_k():
  cases = [(lambda x, axis=axis: lax.top_k(x, 2, axis=axis), [batched((3, 4), ax)], (ax,))
           for axis, ax in [(-1, -1), (0, 1), (1, 0)]]
  check_cases(cases)


def test_top_k_nested_vmap_eager():
  f = ember.vmap(lambda x: lax.top_k(x, 3), in_axes=0)
  check_batch(f, [batched((B, 4), -1, np.int32)], -1)


def _loss(x, y):
  s, t = lax.sort((x, y), dimension=1, num_keys=1)
  v, _ = lax.top_k(x * y, 2, axis=0)
  return jnp.sum(jnp.sin(s) * t) + jnp.sum(v ** 2)


def test_vmap_of_grad():
  # distinct keys: the gradient of sort is ambiguous at ties
  in_axes = (1, None)
  x, y = args_for([(3, 4), (3, 4)], in_axes)
  x = x + np.linspace(0, 0.5, x.size, dtype=np.float32).reshape(x.shape)
  check_batch(ember.jit(ember.grad(_loss, (0, 1))), [x, y], in_axes, rtol=1e-5, atol=1e-5,
              jit=False)


def test_jnp():
  f = lambda x: (jnp.sort(x), jnp.sort(x, axis=0), jnp.argsort(x, axis=0), jnp.argsort(-x),
                 jnp.sort(x, axis=None), jnp.lexsort((x, -x)))
  check_cases([(f, [batched((3, 4), 1, np.int32)], (1,))])
