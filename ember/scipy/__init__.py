"""ember.scipy: SciPy's API on ember arrays, mirroring ``jax.scipy`` (special, linalg, stats)."""
from ember.scipy import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
