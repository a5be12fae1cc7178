"""ember.numpy: NumPy's API on ember arrays, with JAX's dtype rules (mirrors ``jax.numpy``)."""
from ember.numpy.scalar_types import *  # noqa: F401,F403
from ember.numpy.creation import *  # noqa: F401,F403
from ember.numpy.ufuncs import *  # noqa: F401,F403
from ember.numpy.ufuncs_logic import *  # noqa: F401,F403
from ember.numpy.ufuncs_float import *  # noqa: F401,F403
from ember.numpy.ufuncs_math import *  # noqa: F401,F403
from ember.numpy.reductions import *  # noqa: F401,F403
from ember.numpy.shape_ops import *  # noqa: F401,F403
from ember.numpy.taking import *  # noqa: F401,F403
from ember.numpy.joining import *  # noqa: F401,F403
from ember.numpy.padding import *  # noqa: F401,F403
from ember.numpy.linear import *  # noqa: F401,F403
from ember.numpy.sorting import *  # noqa: F401,F403
from ember.numpy.searching import *  # noqa: F401,F403
from ember.numpy.misc import *  # noqa: F401,F403
from ember.numpy.counting import *  # noqa: F401,F403
from ember.numpy.indexing import *  # noqa: F401,F403
from ember.numpy import array_methods as _array_methods  # noqa: F401  (installs x.sum(), x + y...)
from ember.numpy import fft  # noqa: F401,E402
from ember.numpy import linalg  # noqa: F401,E402
