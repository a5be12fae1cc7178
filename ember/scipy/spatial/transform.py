"""ember.scipy.spatial.transform: 3-D rotations, mirroring ``jax.scipy.spatial.transform``.

``Rotation`` holds unit quaternions ``(x, y, z, w)`` (scalar last) in its one field ``quat``: a
NamedTuple, hence a pytree, of one rotation (``quat`` 1-D) or of many (leading dimensions).
Conversions to and from rotation matrices, rotation vectors, modified Rodrigues parameters and
Euler angles follow SciPy's algorithms (Euler angles from quaternions by Bernardes and Viollet's
method); they broadcast over the leading dimensions and work under ``jit``, ``vmap`` and
``grad``. ``Slerp`` interpolates between rotations at increasing times with constant angular
velocity. As in JAX, ``Rotation.random`` is not implemented and ``identity`` makes one rotation.

Example:
    >>> import ember.numpy as jnp
    >>> from ember.scipy.spatial.transform import Rotation
    >>> Rotation.from_euler("z", 90, degrees=True).apply(jnp.array([1., 0., 0.])).round(4)
    Array([0., 1., 0.], dtype=float32)
"""
from __future__ import annotations

import functools
import typing

import numpy as np

from ember import dtypes, lax
from ember import numpy as jnp
from ember.numpy._util import promote_dtypes_inexact

__all__ = ["Rotation", "Slerp"]

_AXES = "xyz"


@functools.partial(jnp.vectorize, signature="(m)->(m)")
def _normalized(quat):
  return quat / jnp.sqrt(quat @ quat)  # a dot keeps a weak type, as JAX's does


def _weak_as(x, like=None):
  """``x`` weakly typed if ``like`` is (strongly typed if ``like`` is None): the weak types of
  JAX's results, which some conversions keep and others drop."""
  weak = like is not None and dtypes.is_weakly_typed(like)
  return lax._convert_element_type(x, x.dtype, weak)


def _compose(p, q):
  """The quaternion of rotation ``q`` followed by rotation ``p``."""
  pv, pw, qv, qw = p[..., :3], p[..., 3:], q[..., :3], q[..., 3:]
  vector = pw * qv + qw * pv + jnp.cross(pv, qv)
  scalar = pw * qw - jnp.sum(pv * qv, axis=-1, keepdims=True)
  return jnp.concatenate([vector, scalar], axis=-1)


def _as_matrix(quat):
  x, y, z, w = (quat[..., i] for i in range(4))
  xx, yy, zz, ww = x * x, y * y, z * z, w * w
  xy, xz, xw, yz, yw, zw = x * y, x * z, x * w, y * z, y * w, z * w
  rows = [[xx - yy - zz + ww, 2 * (xy - zw), 2 * (xz + yw)],
          [2 * (xy + zw), -xx + yy - zz + ww, 2 * (yz - xw)],
          [2 * (xz - yw), 2 * (yz + xw), -xx - yy + zz + ww]]
  return jnp.stack([jnp.stack(row, axis=-1) for row in rows], axis=-2)


def _from_matrix(matrix):
  """Shepperd's method: the largest of the diagonal and the trace chooses the formula."""
  diag = jnp.diagonal(matrix, axis1=-2, axis2=-1)
  trace = jnp.sum(diag, axis=-1)
  choice = jnp.argmax(jnp.concatenate([diag, trace[..., None]], axis=-1), axis=-1)
  m = lambda i, j: matrix[..., i, j]
  candidates = []
  for i in range(3):
    j, k = (i + 1) % 3, (i + 2) % 3
    q = [None] * 4
    q[i] = 1 - trace + 2 * m(i, i)
    q[j] = m(j, i) + m(i, j)
    q[k] = m(k, i) + m(i, k)
    q[3] = m(k, j) - m(j, k)
    candidates.append(jnp.stack(q, axis=-1))
  candidates.append(jnp.stack([m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1),
                               1 + trace], axis=-1))
  quat = jnp.select([choice[..., None] == c for c in range(4)], candidates)
  return _normalized(quat)


def _as_rotvec(quat, degrees: bool):
  quat = jnp.where(quat[..., 3:] < 0, -quat, quat)
  angle = 2 * jnp.arctan2(jnp.linalg.norm(quat[..., :3], axis=-1), quat[..., 3])
  angle2 = angle * angle
  small = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
  scale = jnp.where(angle <= 1e-3, small, angle / jnp.sin(angle / 2))
  rotvec = scale[..., None] * quat[..., :3]
  return jnp.rad2deg(rotvec) if degrees else rotvec


def _from_rotvec(rotvec, degrees: bool):
  rotvec = jnp.deg2rad(rotvec) if degrees else rotvec
  angle = jnp.linalg.norm(rotvec, axis=-1, keepdims=True)
  angle2 = angle * angle
  small = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
  scale = jnp.where(angle <= 1e-3, small, jnp.sin(angle / 2) / angle)
  return jnp.concatenate([scale * rotvec, jnp.cos(angle / 2)], axis=-1)


def _as_mrp(quat):
  sign = jnp.where(quat[..., 3:] < 0, -1, 1)
  return sign * quat[..., :3] / (1 + sign * quat[..., 3:])


def _from_mrp(mrp):
  norm2_plus_1 = 1 + jnp.sum(mrp * mrp, axis=-1, keepdims=True)
  return jnp.concatenate([2 * mrp / norm2_plus_1, (2 - norm2_plus_1) / norm2_plus_1], axis=-1)


def _check_seq(seq: str, needs_three: bool):
  """``seq``'s axis indices and whether it is extrinsic (lower case), after SciPy's checks."""
  if needs_three and len(seq) != 3:
    raise ValueError(f"Expected 3 axes, got {seq}.")
  if not needs_three and not 1 <= len(seq) <= 3:
    raise ValueError("Expected axis specification to be a non-empty string of upto 3 "
                     f"characters, got {seq}")
  extrinsic = all(c in _AXES for c in seq)
  if not extrinsic and not all(c in _AXES.upper() for c in seq):
    raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], "
                     f"got {seq}")
  if any(a == b for a, b in zip(seq[:-1], seq[1:])):
    raise ValueError(f"Expected consecutive axes to be different, got {seq}")
  return [_AXES.index(c.lower()) for c in seq], extrinsic


def _elementary(axis: int, angle):
  """The quaternion of a rotation by ``angle`` (shape ``(...)``) about basis ``axis``."""
  zeros = jnp.zeros_like(angle)
  parts = [zeros, zeros, zeros, jnp.cos(angle / 2)]
  parts[axis] = jnp.sin(angle / 2)
  return jnp.stack(parts, axis=-1)


def _from_euler(axes, extrinsic: bool, angles):
  quat = _elementary(axes[0], angles[..., 0])
  for n, axis in enumerate(axes[1:], 1):
    q = _elementary(axis, angles[..., n])
    quat = _compose(q, quat) if extrinsic else _compose(quat, q)
  return quat


def _as_euler(quat, axes, extrinsic: bool):
  """Bernardes and Viollet's direct conversion (for extrinsic axes; intrinsic ones reversed)."""
  if not extrinsic:
    axes = axes[::-1]
  i, j, k = axes
  symmetric = i == k
  if symmetric:
    k = 3 - i - j
  sign = (i - j) * (j - k) * (k - i) // 2  # +1 for an even permutation, -1 for an odd one
  q = lambda n: quat[..., n]
  if symmetric:
    a, b, c, d = q(3), q(i), q(j), q(k) * sign
  else:
    a, b, c, d = q(3) - q(j), q(i) + q(k) * sign, q(j) + q(3), q(k) * sign - q(i)
  middle = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
  eps = 1e-7
  at_zero = jnp.abs(middle) <= eps
  at_pi = jnp.abs(middle - np.pi) <= eps
  half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
  degenerate = at_zero | at_pi
  # at gimbal lock the one determined angle comes first, the other is 0 (for intrinsic axes,
  # as JAX: it is placed before the reversal below, so the reversal brings it first)
  combined = jnp.where(at_zero, 2 * half_sum, 2 * half_diff * (-1 if extrinsic else 1))
  first = jnp.where(degenerate, combined if extrinsic else 0, half_sum - half_diff)
  third = jnp.where(degenerate, 0 if extrinsic else combined, half_sum + half_diff)
  if not symmetric:
    third = third * sign
    middle = middle - np.pi / 2
  if not extrinsic:
    first, third = third, first
  angles = jnp.stack([first, middle, third], axis=-1)
  return jnp.mod(angles + np.pi, 2 * np.pi) - np.pi  # into [-pi, pi)


def _canonical(quat):
  """``quat`` or ``-quat``, whichever has w > 0 (or, w being 0, its first nonzero part > 0)."""
  x, y, z, w = (quat[..., i] for i in range(4))
  flip = (w < 0) | ((w == 0) & ((x < 0) | ((x == 0) & ((y < 0) | ((y == 0) & (z < 0))))))
  return jnp.where(flip[..., None], -quat, quat)


def _apply(matrix, vector, inverse: bool):
  if inverse:
    matrix = jnp.swapaxes(matrix, -1, -2)
  return matrix @ vector


class Rotation(typing.NamedTuple):
  """One rotation or many in 3 dimensions, as unit quaternions ``(x, y, z, w)``.

  Make one with the ``from_*`` constructors (``Rotation(quat)`` itself does not normalize);
  compose with ``*`` (``(p * q).apply(v) == p.apply(q.apply(v))``), index and ``len()`` a
  rotation of many.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.spatial.transform import Rotation
      >>> r = Rotation.from_rotvec(jnp.array([0., 0., jnp.pi / 2]))
      >>> r.as_matrix().round(4)
      Array([[ 0., -1.,  0.],
             [ 1.,  0.,  0.],
             [ 0.,  0.,  1.]], dtype=float32)
  """
  quat: typing.Any

  @classmethod
  def concatenate(cls, rotations: typing.Sequence):
    """The rotations of ``rotations`` joined into one (their quaternions concatenated, so
    single rotations join flat, as in JAX).

    Example:
        >>> from ember.scipy.spatial.transform import Rotation
        >>> import ember.numpy as jnp
        >>> len(Rotation.concatenate([Rotation.from_quat(jnp.ones((2, 4))),
        ...                           Rotation.from_quat(jnp.ones((1, 4)))]))
        3
    """
    return cls(jnp.concatenate([r.quat for r in rotations]))

  @classmethod
  def from_euler(cls, seq: str, angles, degrees: bool = False):
    """The rotations by Euler ``angles`` about the axes ``seq``: up to 3 of "xyz"
    (extrinsic, fixed axes) or of "XYZ" (intrinsic, rotating axes).

    Raises:
        ValueError: for a bad ``seq``, or angles of another length than ``seq``.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_euler("xz", jnp.array([90., 90.]), degrees=True).as_quat().round(4)
        Array([0.5, 0.5, 0.5, 0.5], dtype=float32)
    """
    axes, extrinsic = _check_seq(seq, needs_three=False)
    angles, = promote_dtypes_inexact(jnp.asarray(angles))
    angles = jnp.deg2rad(angles) if degrees else angles
    if angles.ndim == 0:
      angles = angles[None]
    # the placeholder of len(seq) checks angles' length as JAX does, naming dimension 'm'
    compute = jnp.vectorize(lambda a, _: _from_euler(axes, extrinsic, a), signature="(m),(m)->(n)")
    return cls(_weak_as(compute(angles, np.zeros(len(axes), np.int32))))

  @classmethod
  def from_matrix(cls, matrix):
    """The rotations of the 3x3 rotation matrices ``matrix``.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_matrix(jnp.diag(jnp.array([1., -1., -1.]))).as_quat()
        Array([1., 0., 0., 0.], dtype=float32)
    """
    matrix, = promote_dtypes_inexact(jnp.asarray(matrix))
    return cls(_from_matrix(matrix))

  @classmethod
  def from_mrp(cls, mrp):
    """The rotations of the modified Rodrigues parameters ``mrp`` (``axis * tan(angle / 4)``).

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_mrp(jnp.array([0., 0., 1.])).as_quat()
        Array([0., 0., 1., 0.], dtype=float32)
    """
    mrp, = promote_dtypes_inexact(jnp.asarray(mrp))
    return cls(_weak_as(_from_mrp(mrp), mrp))

  @classmethod
  def from_quat(cls, quat):
    """The rotations of the quaternions ``quat`` ``(x, y, z, w)``, normalized.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_quat(jnp.array([0., 0., 0., 2.])).quat
        Array([0., 0., 0., 1.], dtype=float32)
    """
    quat, = promote_dtypes_inexact(jnp.asarray(quat))
    return cls(_normalized(quat))

  @classmethod
  def from_rotvec(cls, rotvec, degrees: bool = False):
    """The rotations of the rotation vectors ``rotvec`` (``axis * angle``).

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_rotvec(jnp.array([180., 0., 0.]), degrees=True).as_quat().round(4)
        Array([ 1.,  0.,  0., -0.], dtype=float32)
    """
    rotvec, = promote_dtypes_inexact(jnp.asarray(rotvec))
    return cls(_from_rotvec(rotvec, degrees))

  @classmethod
  def identity(cls, num: int | None = None, dtype=float):
    """The identity rotation (one only: ``num`` must be None, as in JAX).

    Example:
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.identity().quat
        Array([0., 0., 0., 1.], dtype=float32)
    """
    if num is not None:
      raise AssertionError(f"Rotation.identity(num={num!r}): only num=None is supported")
    return cls(jnp.array([0., 0., 0., 1.], dtype=dtype))

  @classmethod
  def random(cls, random_key, num: int | None = None):
    """Not implemented, as in JAX.

    Raises:
        NotImplementedError: always.

    Example:
        >>> import ember
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.random(ember.random.key(0))
        Traceback (most recent call last):
        NotImplementedError
    """
    raise NotImplementedError()

  def __getitem__(self, indexer):
    if self.single:
      raise TypeError("Single rotation is not subscriptable.")
    return Rotation(self.quat[indexer])

  def __len__(self):
    if self.single:
      raise TypeError("Single rotation has no len().")
    return self.quat.shape[0]

  def __mul__(self, other) -> Rotation:
    return Rotation(_compose(self.quat, other.quat))

  def apply(self, vectors, inverse: bool = False):
    """``vectors`` (``(..., 3)``) rotated (by the inverse rotation with ``inverse``),
    broadcasting rotations against vectors.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> r = Rotation.from_rotvec(jnp.array([0., 0., jnp.pi / 2]))
        >>> r.apply(jnp.array([1., 0., 0.]), inverse=True).round(4)
        Array([ 0., -1.,  0.], dtype=float32)
    """
    apply = jnp.vectorize(functools.partial(_apply, inverse=inverse), signature="(m,m),(m)->(m)")
    return _weak_as(apply(self.as_matrix(), jnp.asarray(vectors)))

  def as_euler(self, seq: str, degrees: bool = False):
    """The Euler angles about the 3 axes ``seq`` ("xyz"-like extrinsic, "XYZ"-like
    intrinsic); at gimbal lock the third angle is 0.

    Raises:
        ValueError: for a bad ``seq``.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_euler("zyx", jnp.array([10., 20., 30.]), degrees=True).as_euler(
        ...     "zyx", degrees=True).round(2)
        Array([10., 20., 30.], dtype=float32)
    """
    axes, extrinsic = _check_seq(seq, needs_three=True)
    angles = _weak_as(_as_euler(self.quat, axes, extrinsic))
    return jnp.rad2deg(angles) if degrees else angles

  def as_matrix(self):
    """The 3x3 rotation matrices.

    Example:
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.identity().as_matrix()
        Array([[1., 0., 0.],
               [0., 1., 0.],
               [0., 0., 1.]], dtype=float32)
    """
    return _weak_as(_as_matrix(self.quat))

  def as_mrp(self):
    """The modified Rodrigues parameters (of the rotations by at most pi).

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_quat(jnp.array([0., 0., 1., 0.])).as_mrp()
        Array([0., 0., 1.], dtype=float32)
    """
    return _as_mrp(self.quat)

  def as_quat(self, canonical: bool = False, scalar_first: bool = False):
    """The quaternions, ``(x, y, z, w)`` (``(w, x, y, z)`` with ``scalar_first``); with
    ``canonical``, the sign with w >= 0.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_quat(jnp.array([0., 0., 0., -1.])).as_quat(canonical=True)
        Array([-0., -0., -0.,  1.], dtype=float32)
    """
    quat = _canonical(self.quat) if canonical else self.quat
    return jnp.roll(quat, 1, axis=-1) if scalar_first else quat

  def as_rotvec(self, degrees: bool = False):
    """The rotation vectors (``axis * angle``, angle in ``[0, pi]``).

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_quat(jnp.array([0., 0., 1., 1.])).as_rotvec(degrees=True)
        Array([ 0.,  0., 90.], dtype=float32)
    """
    return _weak_as(_as_rotvec(self.quat, degrees), self.quat)

  def inv(self):
    """The inverse rotations.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_quat(jnp.array([0., 0., 1., 1.])).inv().as_quat()
        Array([-0.        , -0.        , -0.70710677,  0.70710677], dtype=float32)
    """
    return Rotation(self.quat * jnp.array([-1, -1, -1, 1], self.quat.dtype))

  def magnitude(self):
    """The rotations' angles, in ``[0, pi]``.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> Rotation.from_rotvec(jnp.array([0., 0.5, 0.])).magnitude()
        Array(0.5, dtype=float32)
    """
    norm = jnp.linalg.norm(self.quat[..., :3], axis=-1)
    return _weak_as(2 * jnp.arctan2(norm, jnp.abs(self.quat[..., 3])), self.quat)

  def mean(self, weights=None):
    """The (weighted) mean rotation: the eigenvector of the largest eigenvalue of
    ``sum_i w_i q_i q_i^T`` (Markley et al.).

    Raises:
        TypeError: for a single rotation.
        ValueError: for weights of another number than the rotations.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation
        >>> r = Rotation.from_rotvec(jnp.array([[0., 0., 0.2], [0., 0., 0.4]]))
        >>> jnp.abs(r.mean().as_rotvec()).round(3)
        Array([0. , 0. , 0.3], dtype=float32)
    """
    if weights is None:
      weights = jnp.ones(len(self), self.quat.dtype)
    else:
      weights = jnp.asarray(weights)
      if weights.ndim != 1 or weights.shape[0] != len(self):
        raise ValueError("Expected `weights` to have number of values equal to number of "
                         f"rotations, got {weights.shape[0]} values and {len(self)} rotations.")
    k = (weights[:, None] * self.quat).T @ self.quat
    return Rotation(jnp.linalg.eigh(k)[1][:, -1])

  @property
  def single(self) -> bool:
    """Whether this is one rotation (its ``quat`` 1-D)."""
    return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
  """Spherical linear interpolation of rotations: between consecutive ``times`` the rotation
  turns at a constant angular velocity. Before the first time the first segment is
  extrapolated; after the last, as in JAX, the last segment's start rotation is advanced by the
  time past the last time (the segment index is clamped).

  Make one with ``Slerp.init(times, rotations)``; call it with times.

  Example:
      >>> import ember.numpy as jnp
      >>> from ember.scipy.spatial.transform import Rotation, Slerp
      >>> rotations = Rotation.from_rotvec(jnp.array([[0., 0., 0.], [0., 0., 1.]]))
      >>> Slerp.init(jnp.array([0., 2.]), rotations)(0.5).as_rotvec().round(3)
      Array([0.  , 0.  , 0.25], dtype=float32)
  """
  times: typing.Any
  timedelta: typing.Any
  rotations: Rotation
  rotvecs: typing.Any

  @classmethod
  def init(cls, times, rotations: Rotation):
    """The interpolator through ``rotations`` (at least 2) at ``times`` (1-D, one each).

    Raises:
        TypeError: for ``rotations`` that are not a Rotation.
        ValueError: for fewer than 2 rotations, or times not 1-D or not one per rotation.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation, Slerp
        >>> rotations = Rotation.from_rotvec(jnp.array([[0., 0., 0.], [0., 0., 1.]]))
        >>> Slerp.init(jnp.array([0., 1.]), rotations).rotvecs.round(3)
        Array([[0., 0., 1.]], dtype=float32)
    """
    if not isinstance(rotations, Rotation):
      raise TypeError("`rotations` must be a `Rotation` instance.")
    if rotations.single or len(rotations) == 1:
      raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
    times = jnp.asarray(times)
    if times.ndim != 1:
      raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                       f"{times.ndim} dimensions.")
    if times.shape[0] != len(rotations):
      raise ValueError("Expected number of rotations to be equal to number of timestamps "
                       f"given, got {len(rotations)} rotations and {times.shape[0]} "
                       "timestamps.")
    quat = rotations.as_quat()
    starts = Rotation(quat[:-1])
    rotvecs = (starts.inv() * Rotation(quat[1:])).as_rotvec()
    return cls(times, jnp.diff(times), starts, rotvecs)

  def __call__(self, times):
    """The interpolated rotations at ``times`` (a scalar gives a single rotation).

    Raises:
        ValueError: for times of more than 1 dimension.

    Example:
        >>> import ember.numpy as jnp
        >>> from ember.scipy.spatial.transform import Rotation, Slerp
        >>> rotations = Rotation.from_rotvec(jnp.array([[0., 0., 0.], [0., 0., 1.]]))
        >>> Slerp.init(jnp.array([0., 1.]), rotations)(jnp.array([0.5, -1.])).as_rotvec().round(3)
        Array([[ 0. ,  0. ,  0.5],
               [ 0. ,  0. , -1. ]], dtype=float32)
    """
    times = jnp.asarray(times)
    if times.ndim > 1:
      raise ValueError("`times` must be at most 1-dimensional.")
    single = times.ndim == 0
    times = jnp.atleast_1d(times)
    index = jnp.maximum(jnp.searchsorted(self.times, times) - 1, 0)
    alpha = (times - self.times[index]) / self.timedelta[index]
    result = self.rotations[index] * Rotation.from_rotvec(self.rotvecs[index] * alpha[:, None])
    return result[0] if single else result
