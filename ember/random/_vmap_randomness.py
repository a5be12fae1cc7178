"""``vmap(f, randomness=...)``: what a sampler does, under a vmap, with a key the vmap does not
batch (one closed over by ``f``, or passed to the vmap with ``in_axes=None``).

The modes are torch.func's (``torch.func.vmap``), an extension: JAX's ``vmap`` has no such
argument, and always behaves as ``"same"``.

- ``"same"``: every example draws the same numbers from the key (JAX's behaviour; also what a
  vmap without ``randomness`` does).
- ``"different"``: example ``i`` of a vmap of ``n`` examples draws from
  ``random.split(key, n)[i]`` in place of ``key``: the sampler runs on those ``n`` keys, so its
  result for each example is exactly that of the sampler called alone with that key. ``split``
  and ``bits`` count as samplers; ``fold_in`` does not draw (a key folded from an unbatched key
  is unbatched, and the sampler that draws from it gets the per-example keys).
- ``"error"``: such a draw raises ``RuntimeError`` naming the sampler.

Keys the vmap batches (``vmap(f)(random.split(key, n))``) are the examples' own in every mode.
Nested vmaps apply their modes from the outermost in: under two ``"different"`` vmaps of ``n``
and ``m`` examples, example ``(i, j)`` draws from ``split(split(key, n)[i], m)[j]``.

A key that ``f`` passes as an argument into a ``jit``, ``cond`` or ``scan`` inside the vmap is a
traced argument there, whose batching is not known while it is traced; draws from it behave as
in JAX. Per-example keys for a closed-over key drawn from inside a ``jit`` in ``f`` are not
implemented (``NotImplementedError``); inside ``cond``, ``scan`` and ``while_loop`` they are.
"""
from __future__ import annotations

import numpy as np

from ember import lax
from ember.core import trace as core
from ember.core.jaxpr import Literal
from ember.transforms.batching import BatchTrace, BatchTracer
from ember.transforms.staging import DynamicJaxprTrace

__all__ = ["per_example", "MODES"]

MODES = ("error", "different", "same")
# Staged functions that may close over a vmap's tracers: they are traced afresh when they do.
_RETRACED = ("cond", "switch", "scan", "while_loop")


def per_example(name: str, key):
  """``key`` as the sampler ``random.<name>`` should draw from it under the vmaps in effect
  (the same key, per-example keys from it, or an error)."""
  vmaps = []
  trace = core._state.trace
  while trace is not None:
    if type(trace) is BatchTrace and trace.randomness in ("error", "different"):
      vmaps.append(trace)
    trace = trace.parent
  for vmap_trace in reversed(vmaps):
    if _batched_by(key._base_array, vmap_trace):
      continue
    if vmap_trace.randomness == "error":
      raise RuntimeError(
          f"vmap(randomness='error'): random.{name} draws from a key that the vmap does not "
          "batch (one closed over, or passed with in_axes=None), so every example would draw "
          "the same numbers. Pass one key per example (vmap over random.split(key, n)), or "
          "choose randomness='different' (a key per example, split from this one) or "
          "randomness='same' (the same numbers for every example).")
    key = _split_for(name, key, vmap_trace)
  return key


def _below(trace, ancestor) -> bool:
  while trace is not None:
    if trace is ancestor:
      return True
    trace = trace.parent
  return False


def _batched_by(data, vmap_trace) -> bool:
  """Whether the vmap batches key data ``data``. Its own tracers are batched (it never wraps an
  unbatched value); values from outside it are not; an inner vmap's tracer is if its value is;
  a value staged inside it (in a cond or scan body) is if it depends on a value that is, or on
  an argument of the staged function (whose batching is not known while it is traced: left as
  it is, as in JAX)."""
  if not isinstance(data, core.Tracer):
    return False
  trace = data._trace
  if trace is vmap_trace:
    return True
  if not _below(trace, vmap_trace):
    return False
  if type(trace) is DynamicJaxprTrace:
    return _staged_batched(data, vmap_trace)
  if type(data) is BatchTracer:
    return _batched_by(data.val, vmap_trace)
  return True


def _staged_batched(tracer, vmap_trace) -> bool:
  staged = tracer._trace
  producers = {id(v): eqn for eqn in staged.eqns for v in eqn.outvars}
  consts = {id(v): c for v, c in zip(staged.constvars, staged.consts)}
  args = {id(v) for v in staged.invars}
  stack, seen = [tracer._var], set()
  while stack:
    var = stack.pop()
    if id(var) in seen or isinstance(var, Literal):
      continue
    seen.add(id(var))
    if id(var) in args or (id(var) in consts and _batched_by(consts[id(var)], vmap_trace)):
      return True
    eqn = producers.get(id(var))
    if eqn is not None:
      stack.extend(eqn.invars)
  return False


def _split_for(name: str, key, vmap_trace):
  """Example ``i``'s key: ``split(key, n)[i]``, indexed by the vmap's batched iota."""
  from ember.random._prng import _split, jitted
  _check_retraced(name, vmap_trace)
  n = vmap_trace.axis_size
  with core.set_current_trace(vmap_trace.parent):
    lanes = lax.iota(np.int32, n)
  keys = jitted(_split, shape=(n,))(key)
  return key._like(jitted(_pick)(keys, vmap_trace.wrap(lanes, 0)))


def _pick(keys, i):
  return lax.dynamic_index_in_dim(keys, i, 0, keepdims=False)


def _check_retraced(name: str, vmap_trace) -> None:
  """Between here and the vmap, only staged functions traced afresh when they close over a
  vmap's values (a jitted function's trace is cached, and would keep the example keys)."""
  trace = core._state.trace
  while trace is not vmap_trace:
    if type(trace) is DynamicJaxprTrace:
      what = trace.debug.traced_for if trace.debug is not None else "staging"
      if what not in _RETRACED:
        raise NotImplementedError(
            f"vmap(randomness='different'): random.{name} draws from a key the vmap does not "
            f"batch inside a function traced for {what} within the vmap; ember cannot give it "
            "one key per example there. Draw outside that function, or pass it per-example "
            "keys.")
    trace = trace.parent
