"""ember.scipy: SciPy's API on ember arrays, mirroring ``jax.scipy`` (special, linalg, stats,
optimize, sparse)."""
from ember.scipy import linalg, optimize, sparse, special, stats

__all__ = ["linalg", "optimize", "sparse", "special", "stats"]
