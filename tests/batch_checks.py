"""Shared checks of the batching rule tests: ``vmap(f)`` against stacking ``f`` over the batch.

``check_batch(f, args, in_axes, out_axes)`` slices every mapped argument along its axis, runs
``f`` on each example, stacks the results along ``out_axes``, and compares with ``vmap(f)`` both
eagerly and under jit (values, shapes and dtypes).
"""
import numpy as np

import ember
import ember.numpy as jnp
from ember import pytree

B = 3  # the batch size of the rule tests


def _take(x, axis, i):
  return x if axis is None else np.take(np.asarray(x), i, axis=axis)


def stacked_loop(f, args, in_axes=0, out_axes=0):
  """What vmap(f) must compute, by a Python loop over the examples."""
  axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
  size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
  outs = [f(*[_take(a, ax, i) for a, ax in zip(args, axes)]) for i in range(size)]
  leaves = [pytree.flatten(o)[0] for o in outs]
  tree = pytree.flatten(outs[0])[1]
  o_axes = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * len(leaves[0])
  stacked = [np.stack([np.asarray(lv[k]) for lv in leaves], axis=o_axes[k])
             for k in range(len(leaves[0]))]
  return pytree.unflatten(tree, stacked)


def check_batch(f, args, in_axes=0, out_axes=0, rtol=1e-6, atol=1e-6, jit=True):
  """vmap(f)(*args) equals the stacked loop, eagerly and (by default) under jit."""
  expected = stacked_loop(f, args, in_axes, out_axes)
  runs = [ember.vmap(f, in_axes, out_axes)]
  if jit:
    runs.append(ember.jit(ember.vmap(f, in_axes, out_axes)))
  for g in runs:
    got = g(*args)
    g_leaves, g_tree = pytree.flatten(got)
    e_leaves, e_tree = pytree.flatten(expected)
    assert g_tree == e_tree, (g_tree, e_tree)
    for a, b in zip(g_leaves, e_leaves):
      assert a.shape == b.shape, (a.shape, b.shape)
      assert np.asarray(a).dtype == b.dtype, (np.asarray(a).dtype, b.dtype)
      np.testing.assert_allclose(np.asarray(a), b, rtol=rtol, atol=atol)


def batched(shape, axis, dtype=np.float32, lo=-4, hi=5, seed=0):
  """A random value of one example's ``shape`` with a batch axis of ``B`` inserted at ``axis``
  (none for ``axis=None``): integers in [lo, hi), exact in every dtype."""
  rng = np.random.RandomState(seed)
  full = tuple(shape) if axis is None else (B,) + tuple(shape)
  x = rng.randint(lo, hi, full)
  x = x > 0 if np.dtype(dtype) == np.bool_ else x.astype(dtype)
  return x if axis is None else np.moveaxis(x, 0, axis)


def args_for(shapes, in_axes, dtype=np.float32):
  """One argument per example shape, batched at its entry of ``in_axes``, each its own draw."""
  return [batched(s, ax, dtype, seed=i) for i, (s, ax) in enumerate(zip(shapes, in_axes))]


def check_cases(cases):
  """``check_batch`` of many cases ``(f, args, in_axes)`` at once, to compile once: one jitted
  function of all their arguments returns all their results raveled into one vector (eager
  vmap would compile each primitive, and each output's batch axis move, on its own; vmap
  batches the jitted jaxpr with the same rules). On a mismatch each case is checked alone, to
  name the one that fails."""
  fs, args, axes, ends = [], [], [], [0]
  for f, a, ax in cases:
    fs.append(f)
    args += list(a)
    axes += list(ax)
    ends.append(len(args))

  def all_cases(*xs):
    outs = ember.tree_util.tree_leaves([f(*xs[lo:hi]) for f, lo, hi in zip(fs, ends, ends[1:])])
    return jnp.concatenate([jnp.ravel(r).astype(np.float32) for r in outs])
  try:
    check_batch(ember.jit(all_cases), args, tuple(axes), jit=False)
  except AssertionError:
    for f, a, ax in cases:
      check_batch(ember.jit(f), a, ax, jit=False)
    raise
