"""Public names JAX 0.10.2 has that ember gained late: the top-level config context managers
(enable_checks, explain_cache_misses, softmax_custom_jvp, threefry_partitionable), the host
functions (process_indices, host_*, print_environment_info, copy_to_host_async,
effects_barrier), tree_util's one-level flattening, default_registry and associative reduction,
tree.static, nn.scaled_matmul / scaled_dot_general (which JAX runs on GPUs only: on the CPU
they raise when run), the abstract-mesh API of jax.sharding (get/use_abstract_mesh, auto_axes,
explicit_axes, AbstractDevice, ManualAxisType, make_single_device_sharding), jax.core's
eval_jaxpr / eval_context / max_dim / min_dim, interpreters.partial_eval (dce_jaxpr,
trace_to_jaxpr_dynamic), interpreters.xla, extend.backend and extend.mlir."""
import collections
import contextlib
import dataclasses
import functools
import io
import operator

import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()


# --- config context managers ------------------------------------------------------------------

@program
def enable_checks_and_explain_cache_misses_set_their_options():
  seen = []
  with jax.enable_checks(True):
    seen.append(jax.config.jax_enable_checks)
    seen.append(float(jax.jit(lambda x: x * 2)(3.0)))
  seen.append(jax.config.jax_enable_checks)
  with jax.explain_cache_misses():
    seen.append(jax.config.jax_explain_cache_misses)
  seen.append(jax.config.jax_explain_cache_misses)
  with jax.enable_checks("yes"):  # any value is made a bool
    seen.append(jax.config.jax_enable_checks)
  with jax.enable_checks(None):
    seen.append(jax.config.jax_enable_checks)
  return seen


@program
def threefry_partitionable_true_keeps_the_bits():
  with jax.threefry_partitionable(True):
    inside = jax.random.uniform(jax.random.key(0), (3,))
    flag = jax.config.jax_threefry_partitionable
  return flag, inside, jax.random.uniform(jax.random.key(0), (3,))


@program
def softmax_custom_jvp_values_and_gradients():
  x = jnp.array([0.5, -1.0, 2.0])
  outs = []
  for flag in (False, True):
    with jax.softmax_custom_jvp(flag):
      outs.append((jax.nn.softmax(x), jax.grad(lambda v: jax.nn.softmax(v)[0])(x),
                   jax.jvp(lambda v: jax.nn.softmax(v, where=v > 0), (x,), (jnp.ones(3),)),
                   jax.jit(jax.grad(lambda v: jax.nn.log_softmax(v).sum() +
                                    jax.nn.softmax(v)[2]))(x)))
  return outs, jax.config.jax_softmax_custom_jvp


@program
def softmax_custom_jvp_printed_jaxprs():
  x = jnp.array([0.0, 1.0, 2.0])
  with jax.softmax_custom_jvp():
    print(jax.make_jaxpr(jax.nn.softmax)(x))
    print(jax.make_jaxpr(lambda v: jax.nn.softmax(v, where=v > 0))(x))
  print(jax.make_jaxpr(jax.nn.softmax)(x))


# --- host functions ---------------------------------------------------------------------------

@program
def process_indices_and_renamed_host_functions():
  return (jax.process_indices(), jax.process_indices("cpu"), jax.host_count(), jax.host_id(),
          jax.host_ids(), jax.host_ids("cpu"))


@program
def print_environment_info_layout():
  buf = io.StringIO()
  with contextlib.redirect_stdout(buf):
    printed = jax.print_environment_info()
  text = jax.print_environment_info(return_string=True)
  keys = [line.split(":")[0] for line in text.splitlines()[:7]]  # then JAX_*/XLA_* variables
  return (printed, buf.getvalue().rstrip("\n") == text, keys[1:],
          [line for line in text.splitlines() if line.startswith("device info")],
          text.splitlines()[1])


@program
def copy_to_host_async_returns_its_argument():
  x = jnp.arange(3.0)
  tree = {"a": x, "b": 1.0, "c": None, "d": [x]}
  out = jax.copy_to_host_async(tree)
  return (out is tree, jax.copy_to_host_async(x) is x, out,
          jax.jit(lambda v: jax.copy_to_host_async(v) * 2)(x),
          jax.grad(lambda v: jax.copy_to_host_async(v) ** 2)(3.0))


@program
def copy_to_host_async_of_a_deleted_array():
  x = jnp.arange(3.0)
  x.delete()
  return jax.copy_to_host_async([x])


@program
def effects_barrier_after_a_debug_print():
  @jax.jit
  def f(x):
    jax.debug.print("x is {}", x)
    return x + 1
  y = f(jnp.float32(2.0))
  result = jax.effects_barrier()
  print("after barrier")
  return result, y, jax.reshard is jax.sharding.reshard


# --- tree_util: one level, registry, associative reduction ------------------------------------

_Point = collections.namedtuple("_Point", "x y")


def _add(a, b):
  return a + b


class _Pair:
  def __init__(self, a, b):
    self.a, self.b = a, b


jax.tree_util.register_pytree_node(_Pair, lambda p: ((p.a, p.b), "pair-aux"),
                                   lambda aux, ch: _Pair(*ch))


class _Listed:
  def __init__(self, a):
    self.a = a


jax.tree_util.register_pytree_node(_Listed, lambda p: ([p.a], None), lambda aux, ch: _Listed(*ch))


class _Keyed:
  def __init__(self, a, b):
    self.a, self.b = a, b


jax.tree_util.register_pytree_with_keys(
    _Keyed, lambda k: (((jax.tree_util.GetAttrKey("a"), k.a),
                        (jax.tree_util.GetAttrKey("b"), k.b)), "keyed-aux"),
    lambda aux, ch: _Keyed(*ch))


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class _Op:
  x: float
  y: float
  name: str = jax.tree.static(default="add")


@jax.tree_util.register_static
class _Tag:
  def __hash__(self):
    return 0

  def __eq__(self, other):
    return isinstance(other, _Tag)

  def __repr__(self):
    return "_Tag()"


def _keyed(out):
  """``flatten_one_level_with_keys``'s output with each key as its repr (JAX's key classes are
  jaxlib's, ember's dataclasses: their reprs are the same)."""
  pairs, aux = out
  return type(pairs)((repr(k), v) for k, v in pairs), aux


@program
def flatten_one_level_of_builtin_containers():
  ordered = collections.OrderedDict([("b", 1), ("a", 2)])
  default = collections.defaultdict(list, {"z": 1, "a": 2})
  lst, tup = [1, [2]], (1, 2)
  fl = jax.tree_util.flatten_one_level
  return (fl({"b": 1, "a": (2, 3)}), fl(lst), fl(lst)[0] is lst, fl(tup), fl(tup)[0] is tup,
          fl(None), fl(ordered), fl(default), fl(_Point(1, 2)), fl({}), fl([]), fl(()),
          fl({"a": None}), fl((None, 1)))


@program
def flatten_one_level_of_registered_nodes():
  fl = jax.tree_util.flatten_one_level
  p = jax.tree_util.Partial(_add, 1, b=2)
  return (fl(_Pair(1, [2])), fl(_Listed(1)), fl(_Keyed(1, 2)), fl(_Op(1.0, 2.0)), fl(_Tag()),
          fl(p))


@program
def flatten_one_level_with_keys_of_nodes():
  fk = lambda t: _keyed(jax.tree_util.flatten_one_level_with_keys(t))  # noqa: E731
  return (fk({"b": 1, "a": 2}), fk([1, 2]), fk((1,)), fk(None), fk({}),
          fk(collections.OrderedDict([("b", 1), ("a", 2)])),
          fk(collections.defaultdict(list, {"z": 1, "a": 2})), fk(_Pair(1, 2)), fk(_Listed(3)),
          fk(_Keyed(1, 2)), fk(_Op(1.0, 2.0)), fk(_Tag()))


@program
def flatten_one_level_with_keys_of_a_namedtuple():
  return _keyed(jax.tree_util.flatten_one_level_with_keys(_Point(1, 2)))


@program
def flatten_one_level_of_a_leaf():
  return jax.tree_util.flatten_one_level(1)


@program
def flatten_one_level_with_keys_of_an_array():
  return jax.tree_util.flatten_one_level_with_keys(jnp.ones(2))


@program
def flatten_one_level_of_a_list_subclass():
  class MyList(list):
    pass
  return jax.tree_util.flatten_one_level(MyList([1]))


@program
def is_tree_node_of_types():
  class MyList(list):
    pass
  node = jax.tree_util.is_tree_node
  return [node(t) for t in (list, tuple, dict, type(None), int, collections.OrderedDict,
                             collections.defaultdict, _Point, jax.tree_util.Partial, _Pair,
                             _Keyed, _Op, _Tag, MyList, object, jax.Array)] + [node([1]),
                                                                                 node(3)]


@program
def default_registry_methods():
  reg = jax.tree_util.default_registry
  leaves, treedef = reg.flatten({"a": 1, "b": [2, None]})
  part, part_def = reg.flatten({"a": 1, "b": [2, None]}, lambda x: isinstance(x, list))
  paths, _ = reg.flatten_with_path({"a": 1, "b": [2, None]})
  return (leaves, treedef.num_leaves, part, part_def.num_leaves,
          [(jax.tree_util.keystr(p), v) for p, v in paths],
          reg.flatten_one_level({"b": 1, "a": 2}), reg.flatten_one_level(1),
          _keyed(reg.flatten_one_level_with_keys([5])), reg.flatten_one_level_with_keys(1.0),
          reg.is_node(list), reg.is_node(int), reg.is_node(_Pair), reg is
          jax.tree_util.default_registry)


@program
def default_registry_register_node_makes_a_tree_node():
  class Box:
    def __init__(self, v):
      self.v = v
  jax.tree_util.default_registry.register_node(Box, lambda b: ((b.v,), None),
                                               lambda aux, ch: Box(*ch))
  out = jax.tree_util.tree_map(lambda v: v * 10, Box(jnp.float32(2.0)))
  return (jax.tree_util.tree_leaves([Box(1), Box((2, 3))]), out.v,
          jax.tree_util.is_tree_node(Box))


@program
def tree_reduce_associative_pairs_as_a_balanced_tree():
  pair = lambda a, b: (a, b)  # noqa: E731
  shapes = [jax.tree_util.tree_reduce_associative(pair, list(range(n))) for n in range(1, 9)]
  return (shapes, jax.tree.reduce_associative(operator.add, [1, (2, 3), [4, 5, 6]]),
          jax.tree.reduce_associative(operator.add, [], identity=5),
          jax.tree.reduce_associative(operator.add, [7], identity=5),
          jax.tree_util.tree_reduce_associative(
              pair, [(1, 2), [3, (4, 5)]], is_leaf=lambda x: isinstance(x, tuple)),
          jax.tree.reduce_associative(jnp.add, {"a": jnp.ones(2), "b": jnp.arange(2.0)}))


@program
def tree_reduce_associative_empty_without_identity():
  return jax.tree.reduce_associative(operator.add, [None, ()])


@program
def tree_reduce_associative_takes_identity_by_keyword_only():
  return jax.tree_util.tree_reduce_associative(operator.add, [], 3)


@program
def tree_static_marks_dataclass_fields():
  f = jax.tree.static(default=1, metadata={"doc": "d"})
  g = jax.tree.static(metadata={"static": False})
  leaves, treedef = jax.tree.flatten(_Op(1.0, 2.0, "mul"))
  back = jax.tree.unflatten(treedef, [10.0, 20.0])
  return (dict(f.metadata), f.default, dict(g.metadata), dict(jax.tree.static().metadata),
          leaves, treedef.num_leaves, back.name, back.x)


@program
def tree_static_refuses_positional_arguments():
  return jax.tree.static(1)


@program
def tree_static_refuses_unknown_keywords():
  return jax.tree.static(bogus=1)


# --- nn.scaled_matmul / scaled_dot_general ------------------------------------------------------

_A = jnp.arange(8.0).reshape(1, 2, 4)
_B = jnp.arange(12.0).reshape(1, 3, 4) / 3
_SA = jnp.array([[[1.0, 2.0], [3.0, 4.0]]])
_SB = jnp.ones((1, 3, 2)) * 0.5


@program
def scaled_matmul_runs_on_gpus_only():
  return jax.nn.scaled_matmul(_A, _B, _SA, _SB)


@program
def scaled_matmul_under_jit_runs_on_gpus_only():
  return jax.jit(jax.nn.scaled_matmul)(_A, _B, _SA, _SB)


@program
def scaled_matmul_has_no_derivative():
  return jax.grad(lambda a: jax.nn.scaled_matmul(a, _B, _SA, _SB).sum())(_A)


@program
def scaled_matmul_shapes_dtypes_and_jaxprs():
  shape = lambda *a, **k: jax.eval_shape(  # noqa: E731
      lambda *xs: jax.nn.scaled_matmul(*xs, **k), *a)
  print(jax.make_jaxpr(jax.nn.scaled_matmul)(_A, _B, _SA, _SB))
  print(jax.make_jaxpr(jax.vmap(jax.nn.scaled_matmul))(_A[None], _B[None], _SA[None], _SB[None]))
  f8 = jnp.float8_e4m3fn
  return (shape(_A, _B, _SA, _SB), shape(_A, _B, _SA, _SB, preferred_element_type=jnp.bfloat16),
          shape(_A.astype(jnp.int32), _B, _SA, _SB, preferred_element_type=jnp.int8),
          shape(_A.astype(f8), _B.astype(f8), _SA.astype(jnp.float8_e8m0fnu),
                _SB.astype(jnp.float8_e8m0fnu)),
          jax.eval_shape(jax.vmap(jax.nn.scaled_matmul), _A[None], _B[None], _SA[None],
                         _SB[None]))


@program
def scaled_matmul_refuses_non_3d_operands():
  return jax.nn.scaled_matmul(_A[0], _B[0], _SA[0], _SB[0])


@program
def scaled_matmul_refuses_mismatched_operands():
  return jax.nn.scaled_matmul(_A, _B.reshape(1, 4, 3), _SA, _SB)


@program
def scaled_matmul_refuses_mismatched_scales():
  return jax.nn.scaled_matmul(_A, _B, _SA[:, :, :1], _SB)


@program
def scaled_matmul_refuses_scales_of_other_rows():
  return jax.nn.scaled_matmul(_A, _B, _SA[:, :1], _SB)


@program
def scaled_matmul_needs_a_dtype():
  return jax.eval_shape(lambda *a: jax.nn.scaled_matmul(*a, preferred_element_type=None),
                        _A, _B, _SA, _SB)


@program
def get_scaled_dot_general_config_modes():
  mx = jax.nn.get_scaled_dot_general_config("mxfp8")
  nv = jax.nn.get_scaled_dot_general_config("nvfp4")
  nv2 = jax.nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], jnp.float32))
  return (mx, nv, nv2.global_scale, type(mx).__name__, mx == jax.nn.get_scaled_dot_general_config(
      "mxfp8"), jax.tree_util.tree_leaves(nv))


@program
def get_scaled_dot_general_config_of_another_mode():
  return jax.nn.get_scaled_dot_general_config("fp8")


@program
def scaled_dot_general_without_configs_is_dot_general():
  x, y = jnp.arange(6.0).reshape(2, 3), jnp.arange(12.0).reshape(3, 4)
  dn = (((1,), (0,)), ((), ()))
  sdg = jax.nn.scaled_dot_general
  return (sdg(x, y, dn), sdg(x.astype(jnp.int32), y.astype(jnp.int32), dn),
          sdg(x, y, dn, preferred_element_type=jnp.bfloat16),
          sdg(x.astype(jnp.int32), y.astype(jnp.int32), dn, preferred_element_type=None),
          sdg(x, y, dn, implementation="cudnn"))


def _mx():
  return [jax.nn.get_scaled_dot_general_config("mxfp8")] * 3


@program
def scaled_dot_general_quantized_runs_on_gpus_only():
  lhs, rhs = jnp.ones((64, 3)), jnp.ones((5, 64))
  return jax.nn.scaled_dot_general(lhs, rhs, (((0,), (1,)), ((), ())), configs=_mx())


@program
def scaled_dot_general_quantized_shapes():
  dn = (((0,), (1,)), ((), ()))
  nv = [jax.nn.get_scaled_dot_general_config("nvfp4")] * 3

  def shape(lhs, rhs, dims=dn, configs=None, **kw):
    return jax.eval_shape(lambda a, b: jax.nn.scaled_dot_general(
        a, b, dims, configs=configs or _mx(), **kw), lhs, rhs)
  batched = (((1,), (2,)), ((0,), (0,)))
  grad = jax.eval_shape(jax.grad(lambda a, b: jax.nn.scaled_dot_general(
      a, b, batched, configs=_mx()).sum(), argnums=(0, 1)), jnp.ones((2, 64, 32, 32)),
      jnp.ones((2, 32, 64)))
  grad_nv = jax.eval_shape(jax.grad(lambda a, b: jax.nn.scaled_dot_general(
      a, b, batched, configs=nv).sum(), argnums=(0, 1)), jnp.ones((2, 64, 32, 32)),
      jnp.ones((2, 32, 64)))
  return (shape(jnp.ones((64, 3)), jnp.ones((5, 64))),
          shape(jnp.ones((64, 3)), jnp.ones((5, 64)), preferred_element_type=jnp.bfloat16),
          shape(jnp.ones((64, 3)), jnp.ones((5, 64)), configs=nv,
                preferred_element_type=jnp.float16),
          shape(jnp.ones((2, 64, 3, 7)), jnp.ones((2, 5, 64)), batched),
          shape(jnp.ones((64, 3), jnp.int32), jnp.ones((5, 64), jnp.int32)),
          jax.eval_shape(jax.vmap(lambda a, b: jax.nn.scaled_dot_general(
              a, b, dn, configs=_mx())), jnp.ones((4, 64, 3)), jnp.ones((4, 5, 64))),
          grad, grad_nv)


@program
def scaled_dot_general_quantized_jaxpr():
  print(jax.make_jaxpr(lambda a, b: jax.nn.scaled_dot_general(
      a, b, (((2,), (2,)), ((0,), (0,))), configs=_mx()))(jnp.ones((1, 2, 32)),
                                                          jnp.ones((1, 3, 32))))


@program
def scaled_dot_general_quantized_needs_a_float_result():
  return jax.nn.scaled_dot_general(jnp.ones((64, 3)), jnp.ones((5, 64)),
                                   (((0,), (1,)), ((), ())), configs=_mx(),
                                   preferred_element_type=jnp.int32)


# --- sharding: abstract meshes, auto_axes, explicit_axes --------------------------------------

def _meshes():
  explicit = jax.make_mesh((2, 4), ("x", "y"))
  auto = jax.make_mesh((2, 4), ("x", "y"),
                       axis_types=(jax.sharding.AxisType.Auto,) * 2)
  return explicit, auto


def _in_mesh(f):
  def run(a):
    print("inside:", jax.sharding.get_abstract_mesh())
    return f(a)
  return run


@program
def get_and_use_abstract_mesh():
  s = jax.sharding
  explicit, _ = _meshes()
  seen = [str(s.get_abstract_mesh()), s.get_abstract_mesh().empty]
  with jax.set_mesh(explicit):
    seen.append(str(s.get_abstract_mesh()))
    with s.use_abstract_mesh(s.AbstractMesh((8,), ("z",))) as entered:
      seen += [str(s.get_abstract_mesh()), entered, str(s.get_mesh())]
    jax.jit(lambda v: seen.append(str(s.get_abstract_mesh())) or v)(1.0)
  with s.use_abstract_mesh(s.AbstractMesh((2, 4), ("a", "b"))):
    seen.append(str(s.get_abstract_mesh()))
  ctx = s.use_abstract_mesh(s.AbstractMesh((3,), ("c",)))
  seen.append(str(s.get_abstract_mesh()))
  with ctx:
    seen.append(str(s.get_abstract_mesh()))
  return seen


@program
def use_abstract_mesh_refuses_a_concrete_mesh():
  return jax.sharding.use_abstract_mesh(_meshes()[0])


@program
def use_abstract_mesh_refuses_another_size():
  with jax.set_mesh(_meshes()[0]):
    with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((4,), ("z",))):
      return 1


@program
def abstract_device_fields_and_equality():
  ad = jax.sharding.AbstractDevice
  a = ad(device_kind="cpu", num_cores=None, platform="cpu")
  return (repr(a), str(ad("TPU v5", 2, "tpu")), a == ad("cpu", None, "cpu"),
          hash(a) == hash(ad("cpu", None, "cpu")), a.device_kind, a.num_cores, a.platform)


@program
def abstract_device_is_frozen():
  a = jax.sharding.AbstractDevice("cpu", None, "cpu")
  a.platform = "tpu"


@program
def abstract_device_needs_every_field():
  return jax.sharding.AbstractDevice("cpu")


@program
def auto_axes_lays_out_its_outputs():
  s, P, NS = jax.sharding, jax.sharding.PartitionSpec, jax.sharding.NamedSharding
  explicit, auto = _meshes()
  x = jnp.arange(16.0).reshape(8, 2)
  out = [s.auto_axes(_in_mesh(lambda a: a * 2), out_sharding=NS(explicit, P("x")))(x).sharding,
         s.auto_axes(lambda a, b: (a, b), out_sharding=(P("x"), P()))(x, 1.0),
         s.auto_axes(_in_mesh(lambda a: a + 1), out_sharding=NS(auto, P("x")))(x).sharding
         .device_set == {jax.devices()[0]}]
  with jax.set_mesh(explicit):
    xs = jax.device_put(x, P("x", None))
    out.append(s.auto_axes(_in_mesh(lambda a: a * 2), out_sharding=P("y"))(xs).sharding)
    out.append([r.sharding.spec for r in s.auto_axes(
        lambda a: (a, a + 1), out_sharding=(P("x"), P("y")))(xs)])
    out.append(s.auto_axes(lambda: 1.0, out_sharding=P())())
    out.append(s.auto_axes(lambda a: a, out_sharding=P())([1.0, 2.0]))
    out.append(s.auto_axes(lambda a: (a.sum(), None), out_sharding=P())(xs))
    out.append(s.auto_axes(out_sharding=P("y"))(lambda a: a * 3)(x).sharding.spec)
    out.append(jax.grad(lambda a: s.auto_axes(lambda b: b * 2, out_sharding=P("y"))(a).sum())(
        xs))
  with jax.set_mesh(auto):
    moved = jax.device_put(x, P("y"))
    out.append(s.auto_axes(lambda a: a * 2, out_sharding=P("x"))(moved).sharding)
  return out


@program
def auto_axes_needs_out_sharding():
  return jax.sharding.auto_axes(lambda a: a)(jnp.ones(2))


@program
def auto_axes_refuses_a_non_sharding():
  with jax.set_mesh(_meshes()[0]):
    return jax.sharding.auto_axes(lambda a: a, out_sharding=3)(jnp.ones(8))


@program
def auto_axes_refuses_an_unknown_axis():
  with jax.set_mesh(_meshes()[0]):
    return jax.sharding.auto_axes(lambda a: a, axes="z", out_sharding=jax.P("x"))(jnp.ones(8))


@program
def auto_axes_refuses_another_mesh():
  s, P = jax.sharding, jax.sharding.PartitionSpec
  with jax.set_mesh(_meshes()[0]):
    other = s.NamedSharding(jax.make_mesh((8,), ("z",)), P("z"))
    return s.auto_axes(lambda a: a, out_sharding=other)(jnp.ones(8))


@program
def explicit_axes_lays_out_its_arguments():
  s, P = jax.sharding, jax.sharding.PartitionSpec
  _, auto = _meshes()
  x = jnp.arange(16.0).reshape(8, 2)
  with jax.set_mesh(auto):
    out = [s.explicit_axes(_in_mesh(lambda a: a * 2), in_sharding=P("x"))(x).sharding,
           s.explicit_axes(lambda a, b: a + b, in_sharding=(P("x"), P()))(x, 1.0).sharding,
           s.explicit_axes(lambda a: a, in_sharding=P())(1.0),
           s.explicit_axes(_in_mesh(lambda a: a), axes="x", in_sharding=P("x"))(x).sharding,
           jax.jit(s.explicit_axes(lambda a: a * 2, in_sharding=P("x")))(x).sharding,
           s.explicit_axes(lambda a: -a)(x, in_sharding=P("x")).sharding]
  return out


@program
def explicit_axes_needs_a_mesh():
  return jax.sharding.explicit_axes(lambda a: a, in_sharding=jax.P("x"))(jnp.ones(8))


@program
def explicit_axes_needs_in_sharding():
  with jax.set_mesh(_meshes()[1]):
    return jax.sharding.explicit_axes(lambda a: a)(jnp.ones(8))


@program
def explicit_axes_checks_the_arguments_tuple():
  with jax.set_mesh(_meshes()[1]):
    return jax.sharding.explicit_axes(lambda a, b: a, in_sharding=(jax.P("x"),))(
        jnp.ones(8), jnp.ones(8))


@program
def explicit_axes_refuses_a_non_sharding():
  with jax.set_mesh(_meshes()[1]):
    return jax.sharding.explicit_axes(lambda a: a, in_sharding=3)(jnp.ones(8))


@program
def reshard_specs_name_every_dimension_over_explicit_meshes():
  s, P, NS = jax.sharding, jax.sharding.PartitionSpec, jax.sharding.NamedSharding
  explicit, auto = _meshes()
  x = jnp.ones((8, 2, 2))
  out = [s.reshard(x, NS(explicit, P("x"))).sharding, s.reshard(x, NS(auto, P())).sharding,
         s.reshard(x, NS(explicit, P())).sharding]
  with jax.set_mesh(explicit):
    out.append(s.reshard(x, P("x")).sharding.spec)
    out.append(s.reshard([1.0, x], P()))
  mixed = jax.make_mesh((2, 4), ("x", "y"), axis_types=(s.AxisType.Explicit, s.AxisType.Auto))
  with jax.set_mesh(mixed):
    out.append(s.reshard(x, P("x")).sharding.spec)
  return out


@program
def reshard_refuses_an_auto_axis():
  s, P = jax.sharding, jax.sharding.PartitionSpec
  return s.reshard(jnp.ones((8, 2)), s.NamedSharding(_meshes()[1], P("x")))


@program
def reshard_of_a_spec_needs_a_mesh():
  return jax.sharding.reshard(jnp.ones((8, 2)), jax.P("x"))


@program
def make_single_device_sharding_and_manual_axis_type():
  s = jax.sharding
  m = s.ManualAxisType
  return (s.make_single_device_sharding(jax.devices()[1]),
          s.make_single_device_sharding(jax.devices()[1], memory_kind="pinned_host"),
          repr(m()), repr(m(varying={"x"})), repr(m(unreduced=frozenset({"x"}),
                                                    reduced=frozenset({"x"}))),
          m(varying={"x"}) == m(varying=frozenset({"x"})),
          hash(m(varying={"x"})) == hash(m(varying=frozenset({"x"}))),
          repr(jax.typeof(jnp.ones(2)).mat), jax.typeof(jnp.ones(2)).mat == m())


@program
def manual_axis_type_refuses_varying_and_reduced():
  return jax.sharding.ManualAxisType(varying={"x"}, reduced={"x"})


@program
def manual_axis_type_refuses_varying_and_unreduced():
  return jax.sharding.ManualAxisType(varying={"x"}, unreduced={"x"})


@program
def manual_axis_type_is_keyword_only():
  return jax.sharding.ManualAxisType(frozenset({"x"}))


# --- jax.core -----------------------------------------------------------------------------------

@program
def core_eval_jaxpr_runs_and_traces():
  core = submodule("core")
  closed = jax.make_jaxpr(lambda x, y: (x * 2.0 + y, jnp.sin(x)))(1.0, 2.0)
  with_const = jax.make_jaxpr(lambda x: x + jnp.arange(3.0))(1.0)
  print(jax.make_jaxpr(lambda a: core.eval_jaxpr(closed.jaxpr, closed.consts, a, a))(1.0))
  return (core.eval_jaxpr(closed.jaxpr, closed.consts, 3.0, 4.0),
          core.eval_jaxpr(closed, closed.consts, 3.0, 4.0),
          core.eval_jaxpr(with_const.jaxpr, with_const.consts, 1.0),
          core.eval_jaxpr(closed.jaxpr, closed.consts, 3.0, 4.0, propagate_source_info=False),
          jax.jit(lambda a: core.eval_jaxpr(closed.jaxpr, closed.consts, a, a))(1.0),
          jax.grad(lambda a: core.eval_jaxpr(closed.jaxpr, closed.consts, a, a)[1])(1.0),
          jax.vmap(lambda a: core.eval_jaxpr(closed.jaxpr, closed.consts, a, 1.0)[0])(
              jnp.arange(3.0)))


@program
def core_eval_jaxpr_with_too_few_arguments():
  core = submodule("core")
  closed = jax.make_jaxpr(lambda x, y: x + y)(1.0, 2.0)
  return core.eval_jaxpr(closed.jaxpr, closed.consts, 3.0)


@program
def core_eval_jaxpr_with_too_many_constants():
  core = submodule("core")
  closed = jax.make_jaxpr(lambda x, y: x + y)(1.0, 2.0)
  return core.eval_jaxpr(closed.jaxpr, [1.0], 3.0, 4.0)


@program
def core_max_dim_and_min_dim():
  core = submodule("core")
  (a,) = jax.export.symbolic_shape("a")
  return (core.max_dim(3, 4), core.min_dim(3, 4), core.max_dim(3, jnp.int32(5)),
          core.max_dim(np.int64(3), 4), core.min_dim(True, 4), str(core.max_dim(a, 4)),
          str(core.min_dim(4, a)), str(core.max_dim(a, a)))


@program
def core_max_dim_of_a_float():
  return submodule("core").max_dim(3.5, 4)


@program
def core_min_dim_of_a_float_against_a_constant():
  return submodule("core").min_dim(4, 2.5)


@program
def core_eval_context_computes_while_tracing():
  core = submodule("core")

  def f(x):
    with core.eval_context():
      y = jnp.sin(2.0)
      print(type(y).__name__)
    return x + y
  print(jax.make_jaxpr(f)(1.0))
  with core.eval_context():
    z = jnp.cos(0.0)
  return z


@program
def core_eval_context_refuses_traced_values():
  core = submodule("core")

  def g(x):
    with core.eval_context():
      return x + 1
  return jax.make_jaxpr(g)(1.0)


@program
def core_abstract_value_and_aliases():
  core = submodule("core")
  return (isinstance(jax.typeof(jnp.ones(2)), core.AbstractValue),
          isinstance(core.ShapedArray((2,), jnp.float32), core.AbstractValue),
          isinstance(jnp.ones(2), core.AbstractValue), str(core.ParamDict), str(core.Value),
          core.ensure_compile_time_eval is jax.ensure_compile_time_eval)


# --- interpreters.partial_eval and xla ------------------------------------------------------------

def _dce_program(x, y):
  lax.dce_sink(y)
  a = jnp.sin(x)
  _ = jnp.cos(y)
  return a, a * 2 + 1


@program
def partial_eval_dce_jaxpr():
  pe = submodule("interpreters.partial_eval")
  jaxpr = jax.make_jaxpr(_dce_program)(1.0, 2.0).jaxpr
  for used, inst in (([False, True], False), ([False, False], False), ([False, False], True),
                     (False, [True, False]), (True, False)):
    new, used_inputs = pe.dce_jaxpr(jaxpr, used, instantiate=inst)
    print(new)
    print(used_inputs)
  plain = jax.make_jaxpr(lambda x, y: (jnp.sin(x), jnp.cos(y)))(1.0, 2.0).jaxpr
  new, used_inputs = pe.dce_jaxpr(plain, [True, False])
  print(new)
  return used_inputs


@program
def partial_eval_dce_jaxpr_consts():
  pe = submodule("interpreters.partial_eval")
  jaxpr = jax.make_jaxpr(lambda x: (x + jnp.arange(3.0), jnp.sin(x)))(1.0).jaxpr
  outs = []
  for used in ([False, True], [True, False]):
    new, used_consts, used_inputs = pe.dce_jaxpr_consts(jaxpr, used)
    print(new)
    outs.append((used_consts, used_inputs))
  return outs


@program
def partial_eval_dce_jaxpr_with_wrong_lengths():
  pe = submodule("interpreters.partial_eval")
  return pe.dce_jaxpr(jax.make_jaxpr(_dce_program)(1.0, 2.0).jaxpr, [True])


@program
def partial_eval_trace_to_jaxpr_dynamic():
  pe = submodule("interpreters.partial_eval")
  lu = submodule("extend.linear_util")
  api_util = submodule("api_util")
  core = submodule("core")
  f32 = core.ShapedArray((), jnp.float32)
  g = lambda x, y: [x * y, jnp.sin(x)]  # noqa: E731
  jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(
      lu.wrap_init(g, debug_info=api_util.debug_info("test", g, (1.0, 2.0), {})), [f32, f32])
  print(jaxpr)
  h = lambda x: [jnp.sin(x)]  # noqa: E731
  kept, _, _ = pe.trace_to_jaxpr_dynamic(
      lu.wrap_init(h, debug_info=api_util.debug_info("test", h, (1.0,), {})), [f32, f32],
      keep_inputs=[False, True])
  print(kept)
  h2 = lambda x: (jnp.cos(x), [jnp.sin(x)])[1]  # noqa: E731
  dced, _, _ = pe.trace_to_jaxpr_dynamic(
      lu.wrap_init(h2, debug_info=api_util.debug_info("test", h2, (1.0,), {})), [f32],
      auto_dce=True)
  print(dced)
  return [str(a) for a in out_avals], consts


@program
def partial_eval_dynamic_jaxpr_tracer_is_the_staging_tracer():
  pe = submodule("interpreters.partial_eval")
  seen = []
  jax.make_jaxpr(lambda x: seen.append(isinstance(x, pe.DynamicJaxprTracer)) or x)(1.0)
  jax.jit(lambda x: seen.append(isinstance(x, pe.DynamicJaxprTracer)) or x)(1.0)
  return seen, isinstance(jnp.ones(1), pe.DynamicJaxprTracer)


@program
def xla_apply_primitive_and_backend():
  xla = submodule("interpreters.xla")
  return (xla.apply_primitive(lax.sin_p, 1.0, accuracy=None),
          xla.apply_primitive(lax.add_p, np.float32(1.0), jnp.ones(2)),
          xla.Backend.__name__, isinstance(submodule("extend.backend").get_backend(),
                                           xla.Backend))


# --- extend.backend and extend.mlir ----------------------------------------------------------

@program
def extend_backend_queries():
  b = submodule("extend.backend")
  options = b.get_compile_options(1, 2, [[0, 1]], env_options_overrides={
      "optimization_level": 1, "xla_cpu_foo": "x"})
  single = b.get_compile_options(1, 1, jax.devices()[:1])
  return (list(b.backends()), b.get_backend().platform, b.get_backend("cpu").platform,
          b.get_backend(b.get_backend()) is b.get_backend(), b.backend_xla_version(),
          b.backend_xla_version("cpu"), b.get_default_device(), options.num_replicas,
          options.num_partitions, str(options.device_assignment), options.env_option_overrides,
          str(single.device_assignment), type(options).__name__,
          sorted(n for n in dir(b.ifrt_proxy) if not n.startswith("_")))


@program
def extend_backend_of_a_gpu():
  return submodule("extend.backend").get_backend("gpu")


@program
def extend_backend_of_an_unknown_platform():
  return submodule("extend.backend").get_backend("foo")


@program
def extend_backend_compile_options_check_the_assignment():
  return submodule("extend.backend").get_compile_options(2, 1, [0])


@program
def extend_backend_registered_caches_clear_with_clear_caches():
  b = submodule("extend.backend")

  @functools.lru_cache
  def square(n):
    return n * n
  b.register_backend_cache(square, "squares for the corpus")
  square(3)
  before = square.cache_info().currsize
  jax.clear_caches()
  return before, square.cache_info().currsize


@program
def extend_mlir_portable_artifacts():
  m = submodule("extend.mlir")
  text = jax.jit(lambda x: x + 1).lower(1.0).as_text()
  blob = m.serialize_portable_artifact(text, "1.0.0")
  return type(blob).__name__, len(blob) > 0, callable(m.hlo_to_stablehlo), callable(
      m.refine_polymorphic_shapes), callable(m.deserialize_portable_artifact)
