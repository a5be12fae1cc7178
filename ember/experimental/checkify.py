"""``ember.experimental.checkify``: checks of values inside compiled code, returned as an error.

``check(pred, msg, *fmt_args)`` binds the ``check`` primitive. Run eagerly it raises at once
when ``pred`` is false; staged (``jit``, ``scan``...) it must be functionalized by ``checkify``,
else tracing raises JAX's ``ValueError``. ``checkify(f, errors=...)(*args)`` returns
``(error, out)``:

1. it traces ``f`` to a jaxpr (arrays become tracers; Python scalars stay as they are, as in
   JAX);
2. it walks that jaxpr and the jaxprs inside it and gives every place that can fail a slot
   (a *site*): each ``check`` (``user_checks``), and with the automatic categories each primitive
   with floating outputs (``nan_checks``: a NaN in its output), each ``div``
   (``div_checks``: a zero divisor) and each indexing primitive (``index_checks``: an index out
   of bounds; ``dynamic_slice``, ``dynamic_update_slice``, ``gather``, ``scatter*``);
3. it evaluates the jaxpr equation by equation on the current trace (so the result composes
   with an enclosing ``jit``, ``vmap`` or ``grad``), threading an error state: a flag, the code
   of the first site that failed, and each site's payload (the values its message formats).
   ``jit`` and ``checkpoint`` calls with sites inside are inlined; ``cond`` branches, ``scan``
   and ``while_loop`` bodies are rewritten to carry the state, and ``shard_map`` (``pmap``)
   bodies too, their state leaving stacked over the devices. A call that has no site inside is
   bound unchanged.

The ``Error`` is a pytree (of the state, with the sites as its static part), so it can leave a
``jit`` or ``vmap``; ``get()`` formats the first failure (per example when batched, as
``at mapped index i: ...``), ``throw()`` / ``check_error`` raise ``JaxRuntimeError``.

Differences from JAX (docs/differences.md): the equations of a checkified ``jit`` are inlined
(the printed jaxpr has no inner ``jit``); a failure inside a ``shard_map``/``pmap`` body is
reported for the first device that failed (JAX lists each, ``at mapped index i: ...``); a
``check`` inside a ``custom_jvp``/``custom_vjp`` function or a ``while_loop`` predicate is
refused with ``NotImplementedError`` (automatic checks look at a custom function's outputs
only); ``errors=`` must hold error categories (JAX ignores anything else); the error's leaves
are one flag, one code and the payloads.

Example:
    >>> import ember, ember.numpy as jnp
    >>> from ember.experimental import checkify
    >>> def f(x):
    ...   checkify.check(x > 0, "x must be positive, got {}", x)
    ...   return jnp.log(x)
    >>> err, out = ember.jit(checkify.checkify(f))(jnp.float32(-2.0))
    >>> err.get()
    'x must be positive, got -2.0 (`check` failed)'
"""
from __future__ import annotations

import contextlib
import functools
import threading
from typing import Any, Callable

import numpy as np

from ember import pytree
from ember.core import trace as core
from ember.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, literal_value, sub_jaxprs

__all__ = ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks",
           "check", "check_error", "checkify", "debug_check", "div_checks", "float_checks",
           "index_checks", "init_error", "nan_checks", "user_checks"]


class JaxException(Exception):
  """The base of the checks' error classes (an ``ErrorCategory`` is one of these classes)."""


class DivisionByZeroError(JaxException):
  """A division by zero (``div_checks``)."""


class NaNError(JaxException):
  """A NaN produced by a primitive (``nan_checks``)."""


class OOBError(JaxException):
  """An out-of-bounds index (``index_checks``)."""


class FailedCheckError(JaxException):
  """A ``check`` whose predicate was false (``user_checks``)."""


class JaxRuntimeError(ValueError):
  """What a failed check raises (``Error.throw``, ``check_error``, an eager ``check``)."""


ErrorCategory = type  # a subclass of JaxException, as JAX's ``type[JaxException]``

user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks


# --- sites: the places that can fail, and how each formats its message --------------------------

class _Site:
  """One place that can fail. Compared by identity: a jaxpr's check equation carries its site.

  ``kind``: "check" (a user check; ``message`` is the format string, ``fmt_tree`` the tree of
  its arguments), "nan" / "div" (``message`` is the whole text), "oob" (``shape`` the indexed
  array's; payload: index, axis, size), "reraise" (``check_error`` of an error; ``inner`` its
  sites; payload: its code and payloads).
  """
  __slots__ = ("kind", "category", "message", "fmt_tree", "debug", "shape", "inner",
               "payload_avals")

  def __init__(self, kind, category, message="", fmt_tree=None, debug=False, shape=(),
               inner=()):
    self.kind, self.category, self.message, self.fmt_tree = kind, category, message, fmt_tree
    self.debug, self.shape, self.inner = debug, shape, inner
    self.payload_avals: list = []  # set by checkify from the site's equation

  def format(self, payload: list) -> str:
    if self.kind == "check":
      args, kwargs = pytree.tree_unflatten(self.fmt_tree, payload)
      return f"{self.message.format(*args, **kwargs)} (`check` failed)"
    if self.kind == "oob":
      index, axis, size = (int(p) for p in payload)
      return (f"out-of-bounds indexing for array of shape {self.shape}: index {index} is out "
              f"of bounds for axis {axis} with size {size}. ")
    if self.kind == "reraise":
      return _message(self.inner, int(payload[0]), payload[1:])
    return self.message

  def __repr__(self):
    return f"_Site({self.kind}, {self.message!r})"


def _payload_sizes(sites) -> list[int]:
  return [_payload_count(s) for s in sites]


def _payload_count(site: _Site) -> int:
  if site.kind == "check":
    return site.fmt_tree.num_leaves
  if site.kind == "oob":
    return 3
  if site.kind == "reraise":
    return 1 + sum(_payload_sizes(site.inner))
  return 0


def _message(sites, code: int, payloads) -> str:
  start = sum(_payload_sizes(sites[:code]))
  return sites[code].format(list(payloads[start:start + _payload_count(sites[code])]))


# --- the check primitive ------------------------------------------------------------------------

_state = threading.local()


def _functionalizing() -> bool:
  return getattr(_state, "depth", 0) > 0


@contextlib.contextmanager
def _functionalize():
  _state.depth = getattr(_state, "depth", 0) + 1
  try:
    yield
  finally:
    _state.depth -= 1


_NOT_FUNCTIONALIZED = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`.")

check_p = core.Primitive("check", multiple_results=True)


def _check_abstract_eval(pred, *fmt, site):
  if not site.debug and not _functionalizing():
    raise ValueError(_NOT_FUNCTIONALIZED)
  return []


def _check_impl(pred, *fmt, site):
  if site.debug:  # a debug_check outside checkify does nothing, as in JAX
    return []
  failed = ~np.asarray(pred)
  if failed.any():
    payload = [np.asarray(x) for x in fmt]
    if failed.ndim:  # batched eagerly: the last failing example, as checkify reports it
      index = np.flatnonzero(failed.ravel())[-1]
      payload = [x.reshape((-1,) + x.shape[failed.ndim:])[index]
                 if x.shape[:failed.ndim] == failed.shape else x for x in payload]
    raise JaxRuntimeError(site.format(payload))
  return []


def _check_lower(ctx, pred, *fmt, site):
  if site.debug:
    return []
  raise ValueError(_NOT_FUNCTIONALIZED)


def _check_jvp(primals, tangents, *, site):
  return check_p.bind(*primals, site=site), []


def _check_batch(axis, vals, dims, *, site):
  from ember.transforms.batching import moveaxis
  size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not None)
  pred, fmt = vals[0], vals[1:]
  if dims[0] is None:
    from ember import lax
    pred = lax.broadcast(pred, (size,))
  else:
    pred = moveaxis(pred, dims[0], 0)
  fmt = [x if d is None else moveaxis(x, d, 0) for x, d in zip(fmt, dims[1:])]
  return check_p.bind(pred, *fmt, site=site), []


check_p.def_rules(abstract_eval=_check_abstract_eval, impl=_check_impl, lower=_check_lower,
                  jvp=_check_jvp, batch=_check_batch)
check_p.def_unsupported("transpose", "a check is not linear in its operands")


def _is_array_value(x) -> bool:
  from ember.backend.array import Array
  return isinstance(x, (Array, np.ndarray, np.generic))


def _check(pred, msg, fmt_args, fmt_kwargs, debug: bool) -> None:
  if not isinstance(msg, str):
    raise TypeError(f"checkify.check's msg must be a string, got {msg!r} of type "
                    f"{type(msg).__name__}.")
  if not isinstance(pred, (bool, np.bool_)):
    if not _is_array_value(pred) or np.shape(pred) != () or \
        np.dtype(core.get_aval(pred).dtype) != np.bool_:
      raise TypeError(f"check takes a scalar pred as argument, got {pred}")
  fmt_leaves, fmt_tree = pytree.tree_flatten((fmt_args, fmt_kwargs))
  for x in fmt_leaves:
    if not _is_array_value(x):
      raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, "
                      f"but got {x!r} of type {type(x)}.")
  site = _Site("check", FailedCheckError, msg, fmt_tree, debug)
  check_p.bind(np.bool_(pred) if isinstance(pred, bool) else pred, *fmt_leaves, site=site)


def check(pred, msg: str, *fmt_args, debug: bool = False, **fmt_kwargs) -> None:
  """Check that the boolean scalar ``pred`` is true; ``msg`` is formatted with the arguments
  (``str.format``) in the error.

  Eagerly a false ``pred`` raises ``JaxRuntimeError`` at once; inside ``jit`` and the other
  staging transforms the check must be functionalized with ``checkify``. With ``debug=True``
  it is ``debug_check``: only ``checkify`` looks at it.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import checkify
      >>> checkify.check(jnp.array(1.0) < 0, "got {}", jnp.array(1.0))
      Traceback (most recent call last):
      ...
      ember.experimental.checkify.JaxRuntimeError: got 1.0 (`check` failed)
  """
  _check(pred, msg, fmt_args, fmt_kwargs, debug=debug)


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """A ``check`` that only ``checkify`` looks at: elsewhere (eagerly, under ``jit``) it does
  nothing.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import checkify
      >>> checkify.debug_check(jnp.array(False), "ignored outside checkify")
      >>> checkify.checkify(lambda x: checkify.debug_check(x > 0, "dbg"))(jnp.array(-1.0))[0].get()
      'dbg (`check` failed)'
  """
  _check(pred, msg, fmt_args, fmt_kwargs, debug=True)


# --- the error value ----------------------------------------------------------------------------

class Error:
  """What ``checkify`` returns beside ``f``'s output: whether and where a check failed.

  Example:
      >>> from ember.experimental import checkify
      >>> print(checkify.init_error.get())
      None
  """

  def __init__(self, state: list, sites: tuple):
    self._state, self._sites = list(state), tuple(sites)

  def _failures(self) -> list[tuple[Any, str]]:
    if not self._sites:
      return []
    flags, codes = np.asarray(self._state[0]), np.asarray(self._state[1])
    payloads = self._state[2:]  # formatted as arrays, as JAX's messages show them
    out = []
    for index in np.ndindex(flags.shape):
      if flags[index]:
        msg = _message(self._sites, int(codes[index]),
                       [p[index] if np.shape(p)[:flags.ndim] == flags.shape else p
                        for p in payloads])
        out.append((index, msg))
    return out

  def get(self) -> str | None:
    """The failure's message (one line per failing example when batched), or None."""
    failures = self._failures()
    if not failures:
      return None
    if np.ndim(self._state[0]) == 0:
      return failures[0][1]
    return "\n".join(f"at mapped index {i[0] if len(i) == 1 else i}: {m}" for i, m in failures)

  def get_exception(self) -> JaxException | None:
    """The failure as an exception of its category, or None."""
    msg = self.get()
    if msg is None:
      return None
    code = int(np.asarray(self._state[1]).ravel()[0]) if np.ndim(self._state[0]) == 0 else \
        int(np.asarray(self._state[1])[np.nonzero(np.asarray(self._state[0]))][0])
    return self._sites[code].category(msg)

  def throw(self) -> None:
    """Raise ``JaxRuntimeError`` if a check failed."""
    msg = self.get()
    if msg is not None:
      raise JaxRuntimeError(msg)

  def __str__(self):
    return f"Error({self.get()})"

  __repr__ = __str__


pytree.register_pytree_node(Error, lambda e: (e._state, e._sites),
                            lambda sites, state: Error(list(state), sites))

init_error = Error([], ())


def check_error(error: Error) -> None:
  """Raise ``error`` if it holds a failure: at once when it is concrete, or, inside a function
  being checkified, as a failure of that function's error.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import checkify
      >>> err, _ = checkify.checkify(lambda x: checkify.check(x > 0, "neg"))(jnp.array(-1.0))
      >>> checkify.check_error(err)
      Traceback (most recent call last):
      ...
      ember.experimental.checkify.JaxRuntimeError: neg (`check` failed)
  """
  if not isinstance(error, Error):
    raise TypeError(f"check_error takes a checkify.Error, got {error!r}.")
  if not error._sites:
    return
  if not any(isinstance(x, core.Tracer) for x in error._state):
    error.throw()
    return
  if np.ndim(error._state[0]):
    raise NotImplementedError("check_error of a batched (vmapped) error inside a traced "
                              "function is not supported; return the error instead.")
  from ember import lax
  site = _Site("reraise", FailedCheckError, inner=error._sites)
  check_p.bind(lax.bitwise_not(error._state[0]), *error._state[1:], site=site)


# --- checkify: find the sites, then evaluate with an error state --------------------------------

_INDEXING = ("dynamic_slice", "dynamic_update_slice", "gather")
_INLINED = ("jit", "remat2", "checkpoint", "remat")
_OPAQUE = ("custom_jvp_call", "custom_vjp_call")  # checked at their outputs only


def _is_float(aval) -> bool:
  return np.issubdtype(aval.dtype, np.inexact)


class _Context:
  """The sites of one checkify call: each equation's own site, and which calls hold sites."""

  def __init__(self, errors: frozenset):
    self.errors = errors
    self.sites: list[_Site] = []
    self.offsets: list[int] = []
    self.site_of: dict[int, int] = {}  # id(eqn) -> site code
    self.holds: set[int] = set()  # id(eqn) of calls with sites inside
    self.seen: dict[int, bool] = {}  # id(jaxpr) -> whether it holds sites

  def add(self, eqn, site: _Site) -> None:
    self.site_of[id(eqn)] = len(self.sites)
    self.offsets.append(sum(_payload_sizes(self.sites)))
    self.sites.append(site)

  def collect(self, jaxpr: Jaxpr) -> bool:
    if id(jaxpr) in self.seen:
      return self.seen[id(jaxpr)]
    found = False
    for eqn in jaxpr.eqns:
      name = eqn.primitive.name
      if eqn.primitive is check_p:
        site = eqn.params["site"]
        if site.category in self.errors:
          self.add(eqn, site)
          found = True
        continue
      subs = list(sub_jaxprs(eqn.params))
      if subs and name not in _OPAQUE:
        inner = [self.collect(s) for s in subs]
        if any(inner):
          if name == "while" and self.collect(eqn.params["cond_jaxpr"].jaxpr):
            raise NotImplementedError("checkify of a check (or an automatic check) inside a "
                                      "while_loop's cond_fun is not supported; check in the "
                                      "body instead.")
          self.holds.add(id(eqn))
          found = True
        continue
      if subs and _has_check(subs):
        raise NotImplementedError(
            f"checkify of a check inside a {name} (a custom_jvp/custom_vjp function) is not "
            "supported: check its inputs or outputs outside it.")
      site = self._automatic_site(eqn)
      if site is not None:
        self.add(eqn, site)
        found = True
    self.seen[id(jaxpr)] = found
    return found

  def _automatic_site(self, eqn) -> _Site | None:
    name = eqn.primitive.name
    if OOBError in self.errors and (name in _INDEXING or name.startswith("scatter")):
      return _Site("oob", OOBError, shape=tuple(eqn.invars[0].aval.shape))
    if DivisionByZeroError in self.errors and name == "div":
      return _Site("div", DivisionByZeroError, "division by zero")
    if NaNError in self.errors and any(_is_float(v.aval) for v in eqn.outvars):
      return _Site("nan", NaNError, f"nan generated by primitive: {name}.")
    return None

  def initial_state(self) -> list:
    state = [np.bool_(False), np.int32(-1)]
    for site in self.sites:
      state += [np.zeros(a.shape, a.dtype) for a in site.payload_avals]
    return state


def _has_check(jaxprs) -> bool:
  return any(e.primitive is check_p or _has_check(list(sub_jaxprs(e.params)))
             for j in jaxprs for e in j.eqns)


def _aval(x):
  return core.get_aval(x)


def _update(state: list, ctx: _Context, code: int, failed, payload: list) -> list:
  """The state after site ``code`` checked: ``failed`` (a bool scalar) sets it if nothing failed
  before, recording the site's payload."""
  from ember import lax
  err, which = state[0], state[1]
  first = lax.bitwise_and(failed, lax.bitwise_not(err))
  out = [lax.bitwise_or(err, failed), lax.select(first, np.int32(code), which)]
  start = 2 + ctx.offsets[code]
  out += state[2:start]
  for old, new in zip(state[start:start + len(payload)], payload):
    out.append(lax.select(first, lax._convert_element_type(new, np.asarray(old).dtype
                                                          if not isinstance(old, core.Tracer)
                                                          else old.aval.dtype), old))
  out += state[start + len(payload):]
  return out


def _last_failing(failed_elems, values: list) -> list:
  """Each value at the last failing element of a batched predicate (values of its leading
  shape), as JAX's checkify reports a vmapped check; other values whole."""
  import ember.numpy as jnp
  shape = tuple(failed_elems.shape)
  flat = jnp.ravel(failed_elems)
  n = flat.shape[0]
  index = n - 1 - jnp.argmax(flat[::-1])
  return [jnp.reshape(v, (n,) + tuple(v.shape[len(shape):]))[index]
          if tuple(v.shape[:len(shape)]) == shape else v for v in values]


def _oob_payload(eqn, invals):
  """(failed, [index, axis, size]) of an indexing equation: the first index out of bounds."""
  import ember.numpy as jnp
  name, params = eqn.primitive.name, eqn.params
  operand_shape = tuple(eqn.invars[0].aval.shape)
  checks = []  # (indices array, operand axis, largest valid start)
  if name == "dynamic_slice":
    for axis, (start, size) in enumerate(zip(invals[1:], params["slice_sizes"])):
      checks.append((jnp.asarray(start), axis, operand_shape[axis] - size))
  elif name == "dynamic_update_slice":
    update_shape = tuple(eqn.invars[1].aval.shape)
    for axis, start in enumerate(invals[2:]):
      checks.append((jnp.asarray(start), axis, operand_shape[axis] - update_shape[axis]))
  elif name == "gather":
    dn, sizes = params["dimension_numbers"], params["slice_sizes"]
    for k, axis in enumerate(dn.start_index_map):
      checks.append((invals[1][..., k], axis, operand_shape[axis] - sizes[axis]))
  else:  # scatter*
    dn = params["dimension_numbers"]
    update_shape = tuple(eqn.invars[2].aval.shape)
    skipped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_axes = [a for a in range(len(operand_shape)) if a not in skipped]
    for k, axis in enumerate(dn.scatter_dims_to_operand_dims):
      size = 1 if axis in skipped else \
          update_shape[dn.update_window_dims[window_axes.index(axis)]]
      checks.append((invals[1][..., k], axis, operand_shape[axis] - size))
  failed, payload = np.bool_(False), [np.int32(0)] * 3
  for idx, axis, limit in reversed(checks):  # the first axis that fails wins
    bad = jnp.logical_or(idx < 0, idx > limit)
    any_bad = jnp.any(bad)
    first_bad = jnp.ravel(idx)[jnp.argmax(jnp.ravel(bad))].astype(np.int32)
    entry = [first_bad, np.int32(axis), np.int32(operand_shape[axis])]
    payload = [jnp.where(any_bad, e, p) for e, p in zip(entry, payload)]
    failed = jnp.logical_or(failed, any_bad)
  return failed, payload


def _automatic(site: _Site, eqn, invals, outs):
  import ember.numpy as jnp
  if site.kind == "nan":
    flags = [jnp.any(jnp.isnan(o)) for o, v in zip(outs, eqn.outvars) if _is_float(v.aval)]
    return functools.reduce(jnp.logical_or, flags), []
  if site.kind == "div":
    return jnp.any(jnp.asarray(invals[1]) == 0), []
  return _oob_payload(eqn, invals)


def _trace(fun: Callable, avals: list) -> tuple[ClosedJaxpr, list]:
  """``fun`` traced at ``avals``, its consts hoisted to leading arguments."""
  from ember.core.jaxpr import hoist_consts
  from ember.transforms.staging import trace_to_jaxpr
  closed = trace_to_jaxpr(fun, avals)
  return hoist_consts(closed)


def _eval(jaxpr: Jaxpr, consts, args, state: list, ctx: _Context) -> tuple[list, list]:
  """Evaluate ``jaxpr`` on the current trace, threading the error state; (outputs, state)."""
  env: dict = {}

  def read(x):
    return literal_value(x) if isinstance(x, Literal) else env[x]

  env.update(zip(jaxpr.constvars, consts))
  env.update(zip(jaxpr.invars, args))
  for eqn in jaxpr.eqns:
    invals = [read(x) for x in eqn.invars]
    code = ctx.site_of.get(id(eqn))
    if eqn.primitive is check_p:
      outs = []
      if code is not None:
        pred, fmt = invals[0], invals[1:]
        import ember.numpy as jnp
        failed_elems = jnp.logical_not(pred)
        if np.ndim(pred):
          fmt = _last_failing(failed_elems, fmt)
        state = _update(state, ctx, code, jnp.any(failed_elems), fmt)
    elif id(eqn) in ctx.holds:
      outs, state = _call_rule(eqn, invals, state, ctx)
    else:
      outs = eqn.primitive.bind(*invals, **eqn.params)
      if not eqn.primitive.multiple_results:
        outs = [outs]
      if code is not None:
        failed, payload = _automatic(ctx.sites[code], eqn, invals, outs)
        state = _update(state, ctx, code, failed, payload)
    env.update(zip(eqn.outvars, outs))
  return [read(x) for x in jaxpr.outvars], state


def _call_rule(eqn, invals, state, ctx) -> tuple[list, list]:
  """A call, cond or loop with sites inside: its jaxprs rewritten to thread the state."""
  name, params = eqn.primitive.name, eqn.params
  n = len(state)
  state_avals = [_aval(s) for s in state]

  def threaded(closed: ClosedJaxpr, n_before: int):
    """(args[:n_before], state, rest) -> (state, outs) over ``closed``."""
    def fun(*xs):
      before, st, rest = xs[:n_before], list(xs[n_before:n_before + n]), xs[n_before + n:]
      outs, st = _eval(closed.jaxpr, closed.consts, [*before, *rest], st, ctx)
      return [*st, *outs]
    return fun

  if name in _INLINED:
    sub = params["jaxpr"]
    return _eval(sub.jaxpr, sub.consts, invals, state, ctx)
  if name == "cond":
    from ember.primitives.control_flow.cond import _joined, cond_p
    index, ops = invals[0], invals[1:]
    pairs = [_trace(threaded(b, 0), state_avals + [v.aval for v in b.jaxpr.invars])
             for b in params["branches"]]
    branches, consts = _joined(pairs)
    outs = cond_p.bind(index, *consts, *state, *ops, branches=branches)
    return outs[n:], outs[:n]
  if name == "while":
    from ember.core.eval import eval_jaxpr
    from ember.primitives.control_flow.while_loop import while_p
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    cc, bc, init = invals[:cn], invals[cn:cn + bn], invals[cn + bn:]
    cond_j, body_j = params["cond_jaxpr"], params["body_jaxpr"]
    carry_avals = [v.aval for v in body_j.jaxpr.invars[bn:]]

    def cond_fun(*xs):
      return eval_jaxpr(cond_j.jaxpr, cond_j.consts, *xs[:cn], *xs[cn + n:])

    body, body_consts = _trace(threaded(body_j, bn),
                               [v.aval for v in body_j.jaxpr.invars[:bn]] + state_avals +
                               carry_avals)
    cond, cond_consts = _trace(cond_fun, [v.aval for v in cond_j.jaxpr.invars[:cn]] +
                               state_avals + carry_avals)
    outs = while_p.bind(*cond_consts, *cc, *body_consts, *bc, *state, *init, cond_jaxpr=cond,
                        body_jaxpr=body, cond_nconsts=len(cond_consts) + cn,
                        body_nconsts=len(body_consts) + bn)
    return outs[n:], outs[:n]
  if name == "scan":
    from ember.primitives.control_flow.scan import scan_p
    nc = params["num_consts"]
    sub = params["jaxpr"]
    body, consts = _trace(threaded(sub, nc), [v.aval for v in sub.jaxpr.invars[:nc]] +
                          state_avals + [v.aval for v in sub.jaxpr.invars[nc:]])
    outs = scan_p.bind(*consts, *invals[:nc], *state, *invals[nc:],
                       **dict(params, jaxpr=body, num_consts=len(consts) + nc,
                              num_carry=params["num_carry"] + n))
    return outs[n:], outs[:n]
  if name == "shard_map":
    return _shard_map_rule(params, invals, state, ctx)
  raise NotImplementedError(f"checkify of a check inside a {name} is not supported.")


def _shard_map_rule(params, invals, state, ctx) -> tuple[list, list]:
  """The body threads the state, which enters replicated and leaves stacked over the devices
  (one row per device, as a leading dimension split over every mesh axis); the first device
  that failed gives the error."""
  import ember.numpy as jnp
  from ember.backend.sharding import PartitionSpec as P
  from ember.transforms import shard_map as sm
  mesh, body, check_vma = params["mesh"], params["jaxpr"], params["check_vma"]
  n = len(state)
  every_axis = P(tuple(mesh.axis_names))

  def fun(*xs):
    st, blocks = list(xs[:n]), xs[n:]
    outs, st = _eval(body.jaxpr, body.consts, blocks, st, ctx)
    rows = [jnp.expand_dims(s, 0) for s in st]
    if check_vma:
      rows = sm._vary_as_specs(rows, [every_axis] * n)
    return [*rows, *outs]

  state_avals = [_aval(s) for s in state]
  with sm._mesh_env(mesh, check_vma):
    new, consts = _trace(fun, state_avals + [v.aval for v in body.jaxpr.invars])
  out = sm._bind(consts, [*state, *invals], new, (P(),) * n + tuple(params["in_specs"]),
                 dict(params, out_specs=(every_axis,) * n + tuple(params["out_specs"])))
  rows, outs = out[:n], out[n:]
  first = jnp.argmax(rows[0])  # the first device whose flag is set (device 0 if none is)
  return outs, [r[first] for r in rows]


def _site_payload_avals(ctx: _Context, jaxpr: Jaxpr) -> None:
  """Give every site the avals of its payload (read off its equation)."""
  for eqn in jaxpr.eqns:
    code = ctx.site_of.get(id(eqn))
    if code is not None:
      site = ctx.sites[code]
      if site.kind == "check":
        pred = eqn.invars[0].aval
        site_avals = []
        for v in eqn.invars[1:]:
          a = v.aval
          if pred.shape and tuple(a.shape[:len(pred.shape)]) == tuple(pred.shape):
            a = a.update(shape=a.shape[len(pred.shape):])
          site_avals.append(a)
        site.payload_avals = site_avals
      elif site.kind == "oob":
        site.payload_avals = [_INT32_SCALAR] * 3
      elif site.kind == "reraise":
        site.payload_avals = [v.aval for v in eqn.invars[1:]]
      else:
        site.payload_avals = []
    for sub in sub_jaxprs(eqn.params):
      _site_payload_avals(ctx, sub)


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable:
  """``f`` made to return ``(error, out)``: its checks (and the automatic ones in ``errors``)
  functionalized into an ``Error`` value instead of raising.

  Args:
    f: the function to check; its array arguments are traced.
    errors: the categories to check: ``user_checks`` (the default), ``nan_checks``,
      ``div_checks``, ``index_checks``, ``float_checks``, ``automatic_checks``, ``all_checks``,
      or a union of them.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.experimental import checkify
      >>> err, y = checkify.checkify(jnp.log, errors=checkify.nan_checks)(jnp.array(-1.0))
      >>> err.get()
      'nan generated by primitive: log.'
  """
  if not callable(f):
    raise TypeError(f"checkify takes a callable, got {f!r}.")
  errors = frozenset(errors)
  for e in errors:
    if e not in all_checks:
      raise TypeError(f"checkify's errors must be error categories from "
                      f"ember.experimental.checkify (user_checks, nan_checks, div_checks, "
                      f"index_checks or unions of them), got {e!r}.")

  @functools.wraps(f)
  def checked(*args, **kwargs):
    from ember.transforms.staging import abstract_leaf, trace_to_jaxpr
    leaves, in_tree = pytree.tree_flatten((args, kwargs))
    traced = [i for i, x in enumerate(leaves) if _is_array_value(x) or
              isinstance(x, core.Tracer)]
    out_tree_box = []

    def flat_fun(*arrays):
      full = list(leaves)
      for i, a in zip(traced, arrays):
        full[i] = a
      a, k = pytree.tree_unflatten(in_tree, full)
      out_leaves, out_tree = pytree.tree_flatten(f(*a, **k))
      out_tree_box.append(out_tree)
      return out_leaves

    with _functionalize():
      closed = trace_to_jaxpr(flat_fun, [abstract_leaf(leaves[i]) for i in traced])
    ctx = _Context(errors)
    ctx.collect(closed.jaxpr)
    _site_payload_avals(ctx, closed.jaxpr)
    outs, state = _eval(closed.jaxpr, closed.consts, [leaves[i] for i in traced],
                        ctx.initial_state(), ctx)
    error = Error(state, tuple(ctx.sites)) if ctx.sites else init_error
    return error, pytree.tree_unflatten(out_tree_box[0], outs)

  return checked


def _int32_scalar():
  from ember.core.aval import ShapedArray
  return ShapedArray((), np.dtype(np.int32))


_INT32_SCALAR = _int32_scalar()
