"""ember: composable transformations of NumPy programs (grad, vmap, jit...) on XLA.

``import ember as jax`` and ``import ember.numpy as jnp`` run JAX programs.
"""
import os as _os

_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # before jaxlib loads: no C++ log noise

from ember.version import __version__, __version_info__  # noqa: E402

from ember.config import (  # noqa: E402
    config, enable_x64, debug_nans, debug_infs, numpy_rank_promotion, numpy_dtype_promotion,
    default_matmul_precision, log_compiles, disable_jit, checking_leaks, default_device,
    transfer_guard, transfer_guard_host_to_device, transfer_guard_device_to_device,
    transfer_guard_device_to_host, make_user_context, debug_key_reuse, enable_checks,
    explain_cache_misses, softmax_custom_jvp, threefry_partitionable)
from ember.config import (  # noqa: E402
    check_tracer_leaks, default_prng_impl, enable_custom_prng, legacy_prng_key, no_execution,
    no_tracing, thread_guard)
from ember.core.aval import ShapeDtypeStruct  # noqa: E402
from ember.backend.array import Array  # noqa: E402
from ember.backend import array_methods as _array_methods  # noqa: E402,F401
from ember.backend import dispatch as _dispatch  # noqa: E402,F401
from ember.backend.client import (  # noqa: E402
    Device, devices, local_devices, device_count, local_device_count, default_backend,
    process_index, process_count)
from ember.transforms.jit import jit  # noqa: E402
from ember.transforms.staging import make_jaxpr  # noqa: E402
from ember.transforms.jvp import jvp  # noqa: E402
from ember.transforms.linearize import (  # noqa: E402
    grad, value_and_grad, vjp, linearize, linear_transpose)
from ember.transforms.custom import (  # noqa: E402
    custom_jvp, custom_vjp, custom_gradient, closure_convert)
from ember.transforms.checkpoint import checkpoint, remat  # noqa: E402
from ember.transforms.remat_policies import checkpoint_policies  # noqa: E402
from ember.transforms.jacobians import jacfwd, jacrev, jacobian, hessian  # noqa: E402
from ember.transforms.batching import vmap  # noqa: E402
from ember import dtypes, errors, lax, numpy, tree, tree_util  # noqa: E402,F401
from ember import typing, flatten_util, ops, test_util, version  # noqa: E402,F401
from ember import random  # noqa: E402,F401
from ember import nn, scipy  # noqa: E402,F401
from ember import image  # noqa: E402,F401
from ember import dlpack  # noqa: E402,F401
from ember.core.aval import ShapedArray as _ShapedArray  # noqa: E402,F401
from ember.api import device_put, device_get, block_until_ready, eval_shape, typeof  # noqa: E402
from ember.api import named_call, named_scope  # noqa: E402
from ember.api import ensure_compile_time_eval, clear_caches, live_arrays  # noqa: E402
from ember.api import fwd_and_bwd  # noqa: E402
from ember.dtypes import float0  # noqa: E402
from ember import custom_derivatives, custom_batching, stages  # noqa: E402,F401
from ember import ad_checkpoint, monitoring, profiler  # noqa: E402,F401
from ember import sharding, debug  # noqa: E402,F401
from ember import distributed  # noqa: E402,F401
from ember import api_util  # noqa: E402,F401
from ember import interpreters  # noqa: E402,F401
from ember.backend.assemble import (  # noqa: E402
    make_array_from_callback, make_array_from_single_device_arrays,
    make_array_from_process_local_data)
from ember.sharding import make_mesh, set_mesh, reshard, NamedSharding, PartitionSpec as P  # noqa: E402
from ember.transforms.shard_map import shard_map  # noqa: E402
from ember.transforms.pmap import pmap  # noqa: E402
from ember.callback import pure_callback  # noqa: E402
from ember import export  # noqa: E402,F401
from ember.host import (  # noqa: E402
    copy_to_host_async, effects_barrier, host_count, host_id, host_ids, print_environment_info,
    process_indices)
from ember import ffi  # noqa: E402,F401
from ember import _unsupported  # noqa: E402
_unsupported.install_module_finder()  # jax.experimental.pallas & co.: import errors saying why

__all__ = [
    "config", "enable_x64", "debug_nans", "debug_infs", "numpy_rank_promotion",
    "numpy_dtype_promotion", "default_matmul_precision", "log_compiles", "disable_jit", "checking_leaks", "debug_key_reuse", "Array", "ShapeDtypeStruct", "Device", "devices", "local_devices",
    "device_count", "local_device_count", "default_backend", "process_index", "process_count",
    "vmap", "jacfwd", "jacrev", "jacobian", "hessian", "custom_jvp", "custom_vjp", "custom_gradient", "closure_convert",
    "checkpoint", "checkpoint_policies", "remat", "jit", "make_jaxpr", "jvp", "grad", "value_and_grad", "vjp", "linearize", "linear_transpose", "device_put", "device_get", "block_until_ready", "eval_shape", "typeof", "named_call", "named_scope", "dtypes",
    "errors", "lax", "numpy", "random", "tree", "tree_util",
    "sharding", "make_mesh", "set_mesh", "NamedSharding", "P", "shard_map", "pmap", "pure_callback",
    "make_array_from_callback", "make_array_from_single_device_arrays",
    "make_array_from_process_local_data",
    "default_device", "transfer_guard", "transfer_guard_host_to_device",
    "transfer_guard_device_to_device", "transfer_guard_device_to_host", "make_user_context",
    "ensure_compile_time_eval", "clear_caches", "live_arrays", "custom_derivatives",
    "custom_batching", "stages", "ad_checkpoint", "monitoring", "profiler",
    "enable_checks", "explain_cache_misses", "softmax_custom_jvp", "threefry_partitionable",
    "copy_to_host_async", "effects_barrier", "host_count", "host_id", "host_ids",
    "print_environment_info", "process_indices", "reshard",
]
__all__ += ["check_tracer_leaks", "default_prng_impl", "enable_custom_prng", "legacy_prng_key",
            "no_execution", "no_tracing", "thread_guard"]
from ember import ref  # noqa: E402
from ember.ref import Ref, empty_ref, free_ref, freeze, new_ref  # noqa: E402
__all__ += ["fwd_and_bwd", "float0"]
__all__ += ["ref", "Ref", "empty_ref", "free_ref", "freeze", "new_ref"]
