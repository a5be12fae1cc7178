"""Configuration objects of dot products and unary functions: ``DotAlgorithm``, ``AccuracyMode``
and ``Tolerance`` (as ``jax.lax`` defines them).

A ``DotAlgorithm`` is accepted wherever a dot's ``precision`` is (``dot_general``, ``dot``,
``ragged_dot``, jnp's matmuls) and printed in jaxprs as JAX prints it. Like JAX 0.10.2, the CPU
backend supports none: a program using one raises ``ValueError`` when compiled
(``DotAlgorithmPreset`` covers the algorithms CPUs have). ``AccuracyMode`` and ``Tolerance``
describe the accuracy a unary function may trade for speed; they are not precisions (a dot
rejects them).
"""
from __future__ import annotations

import enum
from typing import Any, NamedTuple

__all__ = ["AccuracyMode", "DotAlgorithm", "Tolerance"]


class DotAlgorithm(NamedTuple):
  """The algorithm of a dot product: the types the operands are rounded to and the
  accumulation type, with how many components and operations emulate higher precision.

  Example:
      >>> import numpy as np
      >>> alg = DotAlgorithm(np.float32, np.float32, np.float32)
      >>> alg.num_primitive_operations, alg.allow_imprecise_accumulation
      (1, False)
  """
  lhs_precision_type: Any
  rhs_precision_type: Any
  accumulation_type: Any
  lhs_component_count: int = 1
  rhs_component_count: int = 1
  num_primitive_operations: int = 1
  allow_imprecise_accumulation: bool = False


class AccuracyMode(enum.Enum):
  """How accurately a unary function (``exp``, ``tanh``...) must compute.

  Example:
      >>> list(AccuracyMode)
      [<AccuracyMode.HIGHEST: 1>, <AccuracyMode.DEFAULT: 2>]
  """
  HIGHEST = 1
  DEFAULT = 2


class Tolerance:
  """The tolerances a unary function's result may have: at most two of ``atol``, ``rtol``
  and ``ulps``, all nonnegative, at least one set.

  Example:
      >>> t = Tolerance(atol=1e-3)
      >>> t.atol, t.rtol, t.ulps
      (0.001, 0.0, 0)
  """

  def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
    given = (atol, rtol, ulps)
    if any(v < 0.0 for v in given):
      raise ValueError("Tolerances must be non-negative.")
    if not any(given):
      raise ValueError("At least one of atol, rtol, or ulps must be set.")
    self.atol, self.rtol, self.ulps = given
