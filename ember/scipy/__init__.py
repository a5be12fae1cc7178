"""ember.scipy: SciPy's API on ember arrays, mirroring ``jax.scipy`` (special, linalg, stats,
optimize, sparse, signal, fft, integrate, ndimage, interpolate, cluster, spatial)."""
from ember.scipy import linalg, optimize, sparse, special, stats
from ember.scipy import cluster, fft, integrate, interpolate, ndimage, signal, spatial

__all__ = ["cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "optimize",
           "signal", "sparse", "spatial", "special", "stats"]
