"""SPMD programs over a device mesh: sharded arrays in and out, one executable for all devices.

A program over a ``Mesh`` is compiled once with XLA's SPMD partitioner (Shardy form): the module
declares ``sdy.mesh @mesh``, its parameters and results carry ``sdy.sharding`` attributes from
their ``NamedSharding``s, and ``shard_map`` bodies sit in ``sdy.manual_computation`` regions.
Partition ``k`` runs on the mesh's ``k``-th device in row-major order (the device assignment is
set from that same order; jaxlib crashes when the two disagree).

Arrays over several devices are jaxlib ``ArrayImpl``s whose sharding is ember's
``NamedSharding``; ``put_sharded`` slices a host value into them and ``host_value`` assembles
one back.

Example:
    >>> import ember, numpy as np
    >>> from ember.sharding import Mesh, NamedSharding, PartitionSpec as P
    >>> mesh = Mesh(np.array(ember.devices()[:2]), ("i",))
    >>> x = ember.device_put(np.arange(4.0), NamedSharding(mesh, P("i")))
    >>> [s.data.tolist() for s in x.addressable_shards]
    [[0.0, 1.0], [2.0, 3.0]]
"""
from __future__ import annotations

import itertools
import math
import time

import numpy as np
from jaxlib import xla_client as xc

from ember._src import compiler as _hook  # looked up at each call: libraries may wrap it
from ember.config import config
from ember.core.jaxpr import ClosedJaxpr, Jaxpr
from ember.backend import _jaxlib_compat
from ember.backend import client as backend_client
from ember.backend import lowering
from ember.backend import compilation_cache
from ember.backend import compile as compile_mod
from ember.backend.compile import Executable
from ember.core.cache import BoundedCache
from ember.backend.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = ["put_sharded", "host_value", "is_sharded", "compile_spmd", "find_mesh",
           "SpmdExecutable", "replicated", "sharding_of"]


def is_sharded(x) -> bool:
  """Whether ``x`` is an array laid out over a mesh (as opposed to one device)."""
  return isinstance(getattr(x, "_sharding", None), NamedSharding)


def replicated(mesh: Mesh) -> NamedSharding:
  return NamedSharding(mesh, PartitionSpec())


def sharding_of(x):
  """The ember sharding of a device array."""
  s = x._sharding
  if isinstance(s, NamedSharding):
    return s
  from ember.backend.sharding import SingleDeviceSharding
  return SingleDeviceSharding(s._internal_device_list[0])


# --- moving data ---------------------------------------------------------------------------

def put_sharded(value, sharding: NamedSharding, aval=None):
  """``value`` (host data or an array) laid out by ``sharding``, committed."""
  if getattr(value, "_sharding", None) is sharding:
    return value
  from ember.backend.array import abstractify, _host_value, ArrayImpl
  if aval is None:
    aval = abstractify(value)
  sharding.check_shape(aval.shape)
  if type(value) is ArrayImpl:
    if value._sharding == sharding:
      return value
    host = _host_value(value)  # (assembled from the shards of a sharded array)
  else:
    host = np.asarray(value)
  if host.dtype != aval.dtype:
    host = host.astype(aval.dtype)
  if host.shape != aval.shape:
    host = np.broadcast_to(host, aval.shape)
  index = sharding.addressable_devices_indices_map(aval.shape)  # this process's devices only
  devices = list(index)
  shards = [np.ascontiguousarray(host[index[d]]) for d in devices]
  return xc.batched_device_put(aval, sharding, shards, devices, True,
                               enable_x64=config.jax_enable_x64)


def host_value(x) -> np.ndarray:
  """The full value of a sharded array, assembled from its shards (read-only, cached); an error
  when this process's shards do not hold all of it (some live in other processes)."""
  v = x._npy_value
  if v is None:
    sharding = x._sharding
    shape = x.aval.shape
    index = sharding.addressable_devices_indices_map(shape)
    if not sharding.is_fully_addressable and \
        _keys(index.values()) != _keys(sharding.devices_indices_map(shape).values()):
      raise RuntimeError(
          "Fetching value for `jax.Array` that spans non-addressable (non process local) "
          "devices is not possible. You can use "
          "`jax.experimental.multihost_utils.process_allgather` to print the global array or "
          "use `.addressable_shards` method of jax.Array to inspect the addressable (process "
          "local) shards.")
    from ember.backend import host_reads
    blocks = host_reads.device_blocks(x)
    out, seen = np.empty(shape, x.aval.dtype), set()
    for device, idx in index.items():  # the first copy of each block, as JAX
      key = tuple((s.start, s.stop) for s in idx)
      if key not in seen:
        seen.add(key)
        out[idx] = blocks[device].reshape(sharding.shard_shape(shape))
    out.flags.writeable = False
    v = x._npy_value = out
  return v


def _keys(indices) -> set:
  """Array indices (tuples of slices) as a set of hashable (start, stop) tuples."""
  return {tuple((s.start, s.stop) for s in idx) for idx in indices}


# --- finding the mesh of a program -----------------------------------------------------------

_meshes = BoundedCache(1024)


def find_mesh(closed: ClosedJaxpr) -> Mesh | None:
  """The mesh a program's equations name (a shard_map's, a sharding constraint's), if any."""
  mesh = _meshes.get(closed, False)
  if mesh is False:
    mesh = _meshes[closed] = _search(closed.jaxpr)
  return mesh


def _search(jaxpr: Jaxpr):
  for eqn in jaxpr.eqns:
    for v in eqn.params.values():
      for item in (v if isinstance(v, (tuple, list)) else (v,)):
        found = None
        if isinstance(item, Mesh):
          found = item
        elif isinstance(item, NamedSharding):
          found = item.mesh
        elif isinstance(item, ClosedJaxpr):
          found = find_mesh(item)
        elif isinstance(item, Jaxpr):
          found = _search(item)
        if found is not None:
          return found
  return None


# --- compiling ----------------------------------------------------------------------------------

class SpmdExecutable(Executable):
  """An executable over a mesh; ``in_shardings`` are its parameters' layouts (consts first).

  One run at a time: XLA's CPU runtime can deadlock in a collective's rendezvous when many
  independent runs of one program are queued at once (JAX crashes there too), so a run first
  waits for the previous one to finish.
  """
  __slots__ = ("mesh", "in_shardings", "out_shardings", "last")

  def run(self, bufs: list) -> list:
    if self.last is not None:
      self.last.block_until_ready()
    outs = Executable.run(self, bufs)
    self.last = outs[0] if outs else None
    return outs


_by_text = BoundedCache(256)


def _compile(text: str, mesh: Mesh, compiler_options: tuple = (), name: str | None = None):
  key = (text, mesh, compiler_options)
  exe = _by_text.get(key)
  if exe is None:
    opts = xc.CompileOptions()
    if compiler_options:
      opts.env_option_overrides = list(compiler_options)
    opts.num_replicas = 1
    opts.num_partitions = mesh.size
    build = opts.executable_build_options
    build.use_spmd_partitioning = True
    build.use_shardy_partitioner = True
    ids = np.array([[d.id for d in mesh._flat_devices]], np.int32)
    opts.device_assignment = xc.DeviceAssignment.create(ids)
    t0 = time.perf_counter()
    from ember import monitoring
    from ember.backend.compile import module_name
    with monitoring.timed("/jax/core/compile/backend_compile_duration",
                          fun_name=lowering.monitored_name(name or module_name(text))):
      callbacks = lowering.host_callbacks(text)
      exe = compilation_cache.compile_or_load(
          text, mesh._internal_device_list, opts,
          lambda: _hook.backend_compile_and_load(mesh._flat_devices[0].client,
                                                 lowering.parse_module(text),
                                                 mesh._internal_device_list, opts, callbacks),
          host_callbacks=bool(callbacks))
    if config.jax_log_compiles:
      compile_mod.log_compile(name or module_name(text), time.perf_counter() - t0, mesh.size)
    _by_text[key] = exe
  return exe


def _attr(sharding: NamedSharding | None, ndim: int, extra: str = "") -> str:
  parts = [extra] if extra else []
  if sharding is not None:
    parts.insert(0, f"sdy.sharding = #sdy.sharding{sharding._to_sdy_sharding(ndim)}")
  return f"{{{', '.join(parts)}}}" if parts else ""


def mesh_preamble(mesh: Mesh) -> str:
  axes = ", ".join(f'"{n}"={s}' for n, s in zip(mesh.axis_names, mesh.axis_sizes))
  return f"sdy.mesh @mesh = <[{axes}]>"


def module_text(closed: ClosedJaxpr, mesh: Mesh, in_shardings, out_shardings,
                name: str = "main", arg_attrs: list | None = None) -> str:
  """The StableHLO of ``closed`` as one program over ``mesh`` (consts first, replicated);
  ``arg_attrs`` are more attributes of the arguments (``compile.donation_attrs``')."""
  in_sh = [replicated(mesh)] * len(closed.consts) + list(in_shardings)
  avals_in = [v.aval for v in closed.jaxpr.constvars] + list(closed.in_avals)
  extra = [""] * len(closed.consts) + list(arg_attrs or [""] * len(closed.in_avals))
  return lowering.module_text(
      closed, name, arg_attrs=[_attr(s, a.ndim, e) for s, a, e in zip(in_sh, avals_in, extra)],
      result_attrs=[_attr(s, a.ndim) for s, a in zip(out_shardings, closed.out_avals)],
      num_partitions=mesh.size, preamble=mesh_preamble(mesh), module_context={"mesh": mesh},
      platform=backend_client.platform_of(mesh._flat_devices[0]))


def compile_spmd(closed: ClosedJaxpr, mesh: Mesh, in_shardings, out_shardings,
                 name: str = "main", arg_attrs: list | None = None,
                 compiler_options: tuple = ()) -> SpmdExecutable:
  """Compile ``closed`` over ``mesh``. ``in_shardings[i]`` lays out argument ``i`` (consts are
  replicated); an ``out_shardings`` entry of None lets XLA choose, read back afterwards.
  ``arg_attrs`` and ``compiler_options`` are as ``compile.compile_jaxpr``'s."""
  text = module_text(closed, mesh, in_shardings, out_shardings, name, arg_attrs)
  exe = _compile(text, mesh, compiler_options, name)
  outs = list(out_shardings)
  if any(s is None for s in outs):
    chosen = exe.get_output_shardings()  # None on a one-device mesh: all layouts are one
    for i, (s, a) in enumerate(zip(outs, closed.out_avals)):
      if s is None and chosen is not None:
        outs[i] = spec_from_hlo(_as_hlo(chosen[i]), mesh, a.ndim)
    if any(s is None for s in outs):  # XLA chose a layout no spec names: ask for replication
      outs = [s or replicated(mesh) for s in outs]
      return compile_spmd(closed, mesh, in_shardings, outs, name, arg_attrs, compiler_options)
  handlers = [_jaxlib_compat.result_handler(a, s, True)
              for a, s in zip(closed.out_avals, outs)]
  const_bufs = [put_sharded(c, replicated(mesh), v.aval)
                for c, v in zip(closed.consts, closed.jaxpr.constvars)]
  result = SpmdExecutable(exe, handlers, const_bufs, tuple(closed.in_avals),
                          tuple(closed.out_avals), None, text, True)
  result.mesh, result.in_shardings, result.out_shardings = mesh, tuple(in_shardings), tuple(outs)
  result.last = None
  return result


def _as_hlo(s):
  return s if isinstance(s, xc.HloSharding) else xc.HloSharding.from_proto(s)


_specs = BoundedCache(1024)


def spec_from_hlo(hlo, mesh: Mesh, ndim: int) -> NamedSharding | None:
  """The NamedSharding over ``mesh`` whose tile assignment is ``hlo`` (None if there is none):
  tries each way of giving mesh axes to dimensions, mesh order first."""
  key = (str(hlo), mesh, ndim)
  if key in _specs:
    return _specs[key]
  found = None
  if hlo.is_replicated():
    found = replicated(mesh)
  else:
    choices = itertools.product(itertools.permutations(mesh.axis_names),
                                itertools.product(range(ndim + 1), repeat=len(mesh.axis_names)))
    for order, choice in choices:
      parts = [tuple(a for a, c in zip(order, choice) if c == d) for d in range(ndim)]
      while parts and not parts[-1]:  # JAX's specs of chosen layouts end at the last split
        parts.pop()
      spec = PartitionSpec(*[None if not p else p[0] if len(p) == 1 else p for p in parts])
      candidate = NamedSharding(mesh, spec)
      if math.prod(candidate.tiles(ndim)) > 1 and candidate._to_xla_hlo_sharding(ndim) == hlo:
        found = candidate
        break
  _specs[key] = found
  return found


# --- running ------------------------------------------------------------------------------------

_executables = BoundedCache(1024)


def mesh_of_args(args, mesh: Mesh | None = None, what: str = "computation") -> Mesh | None:
  """The one mesh the sharded arrays among ``args`` (and ``mesh``, if given) live on."""
  for x in args:
    if is_sharded(x):
      m = x._sharding.mesh
      if mesh is None:
        mesh = m
      elif m != mesh and set(m._flat_devices) != set(mesh._flat_devices):
        raise ValueError(
            f"Received incompatible devices for {what}: arrays sharded over {m} and over "
            f"{mesh}. Put them on one mesh first with ember.device_put(x, NamedSharding(mesh, "
            "spec)).")
  return mesh


def arg_shardings(args, mesh: Mesh, what: str = "computation") -> list:
  """Each argument's layout for a program over ``mesh``: its own when sharded over it, else
  replicated (an array committed to one device cannot join a mesh program implicitly)."""
  from ember.backend.array import ArrayImpl
  out = []
  for i, x in enumerate(args):
    if is_sharded(x) and x._sharding.mesh == mesh:
      out.append(x._sharding)
    elif is_sharded(x):
      out.append(NamedSharding(mesh, x._sharding.spec))
    else:
      if type(x) is ArrayImpl and x._committed and mesh.size > 1:
        raise ValueError(
            f"Received incompatible devices for {what}: argument {i} is committed to "
            f"{x._sharding._internal_device_list[0]!r} while others are sharded over {mesh}. "
            "Use ember.device_put(x, NamedSharding(mesh, P())) to replicate it on the mesh.")
      out.append(replicated(mesh))
  return out


def run_spmd(closed: ClosedJaxpr, args, mesh: Mesh, in_shardings, out_shardings,
             name: str = "main") -> list:
  """Compile (cached) and run ``closed`` over ``mesh``; arguments are resharded as needed."""
  key = (closed, mesh, tuple(in_shardings), tuple(out_shardings))
  exe = _executables.get(key)
  if exe is None:
    exe = _executables[key] = compile_spmd(closed, mesh, in_shardings, out_shardings, name)
  return exe.run([put_sharded(x, s, a) for x, s, a in zip(args, in_shardings, closed.in_avals)])
