"""ember.lax: the primitive operations, strict about types, mirroring ``jax.lax``."""
from ember.lax.elementwise import *  # noqa: F401,F403
from ember.lax.elementwise import _convert_element_type  # noqa: F401
from ember.lax.structural import *  # noqa: F401,F403
from ember.lax.reductions import *  # noqa: F401,F403
from ember.lax.parallel import *  # noqa: F401,F403
from ember.transforms.custom import stop_gradient  # noqa: F401,E402
from ember.lax.convolution import *  # noqa: F401,F403,E402
from ember.lax import linalg  # noqa: F401,E402
from ember.lax.fourier import *  # noqa: F401,F403,E402
from ember.lax.windowed import *  # noqa: F401,F403,E402
from ember.lax.control_flow import *  # noqa: F401,F403,E402
from ember.lax.special import *  # noqa: F401,F403,E402
from ember.lax.incomplete_gamma import *  # noqa: F401,F403,E402
from ember.primitives.rng import RandomAlgorithm, rng_bit_generator  # noqa: F401,E402
# JAX 0.10.2's newer names: stacking and array makers, compiler-facing ops, ragged and scaled
# dots, patches and local convolutions, accelerator collectives, and the primitive objects.
from ember.lax._shapes import *  # noqa: F401,F403,E402
from ember.lax._compiler import *  # noqa: F401,F403,E402
from ember.lax._dots import *  # noqa: F401,F403,E402
from ember.lax._patches import *  # noqa: F401,F403,E402
from ember.lax._collectives import *  # noqa: F401,F403,E402
from ember.lax._primitive_names import *  # noqa: F401,F403,E402


def __getattr__(name):
  if name == "pvary":  # removed from JAX in 0.10.0: the same AttributeError, with its advice
    raise AttributeError("jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX v0.10.0; "
                         "use `jax.lax.pcast(..., to='varying')")
  raise AttributeError(f"module 'ember.lax' has no attribute '{name}'")
from ember.lax.solves import *  # noqa: F401,F403,E402

# The array operations the transforms build themselves (ember/transforms/ops.py).
from ember.primitives.collectives import pvary as _pvary  # noqa: E402
from ember.transforms.ops import install as _install_ops  # noqa: E402
_install_ops(convert=_convert_element_type, broadcast=broadcast,  # noqa: F405
             broadcast_in_dim=lambda x, shape, dims: broadcast_in_dim_p.bind(  # noqa: F405
                 x, shape=shape, broadcast_dimensions=dims, sharding=None),
             transpose=transpose, expand_dims=expand_dims, squeeze=squeeze,  # noqa: F405
             real=real, div=div, pvary=_pvary,  # noqa: F405
             psum=lambda x, axes: psum_p.bind(x, axes=axes, axis_index_groups=None))  # noqa: F405
