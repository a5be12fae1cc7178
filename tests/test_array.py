"""The NumPy face of arrays and tracers: operators, methods and conversions, against NumPy.

Result dtypes and weak types follow JAX 0.10.2 (e.g. ``jnp.arange(3) + 1.5`` is float32).
Every check runs eagerly (on ArrayImpl) and under ember.jit (on tracers).
"""
import operator

import numpy as np
import pytest

import ember
import ember.numpy as jnp

A_NP = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
F_NP = np.array([[1.5, -2.25, 3.0], [0.5, 5.0, -6.5]], np.float32)
B_NP = np.array([[2, 1, 3], [1, 2, 4]], np.int32)


def both(f, *args):
  """``f(*args)`` eagerly and under jit (the jitted outputs as a second list)."""
  return f(*args), ember.jit(f)(*args)


def check(got, want, dtype=None):
  for g in (got if isinstance(got, tuple) else (got,)):
    assert isinstance(g, ember.Array), type(g)
  got_t = got if isinstance(got, tuple) else (got,)
  want_t = want if isinstance(want, tuple) else (want,)
  for g, w in zip(got_t, want_t):
    w = np.asarray(w)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == (dtype or w.dtype), (g.dtype, dtype or w.dtype)
    np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


BINOPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
          operator.lshift, operator.rshift, operator.eq, operator.ne, operator.lt, operator.le,
          operator.gt, operator.ge, divmod]


def _np_op(op, a, b):
  if op is operator.truediv:
    return (np.asarray(a) / np.asarray(b)).astype(np.float32)
  if op is operator.pow:
    return np.power(np.asarray(a), np.abs(np.asarray(b)))
  return op(a, b)


@pytest.mark.parametrize("op", BINOPS, ids=lambda o: o.__name__)
def test_binary_operators_on_arrays_and_reflected_scalars(op):
  a, b = ember.device_put(A_NP), ember.device_put(B_NP)
  rhs = B_NP if op is not operator.pow else np.abs(B_NP)
  rb = ember.device_put(rhs)

  def f(x, y):
    return op(x, y), op(x, 2), op(7, y)

  eager, jitted = both(f, a, rb)
  for got in (eager, jitted):
    check(got[0], _np_op(op, A_NP, rhs))
    want_scalar = _np_op(op, A_NP, np.int32(2))
    check(got[1], want_scalar)
    want_r = _np_op(op, np.int32(7), rhs)
    check(got[2], want_r)


def test_float_operators_and_matmul():
  f, g = ember.device_put(F_NP), ember.device_put(np.abs(F_NP) + 1)

  def fun(x, y):
    return (x + y, x - 1.5, 2.0 / y, y ** 0.5, 3.0 ** x, x // 0.75, x % 2.0, -x, +x, abs(x),
            x @ y.T, F_NP.T @ x, divmod(x, 1.25))

  want = (F_NP + (np.abs(F_NP) + 1), F_NP - 1.5, 2.0 / (np.abs(F_NP) + 1),
          (np.abs(F_NP) + 1) ** 0.5, 3.0 ** F_NP, F_NP // 0.75, F_NP % 2.0, -F_NP, F_NP,
          np.abs(F_NP), F_NP @ (np.abs(F_NP) + 1).T, F_NP.T @ F_NP, divmod(F_NP, 1.25))
  for outs in both(fun, f, g):
    for got, w in zip(outs, want):
      if isinstance(w, tuple):
        check(got, tuple(np.asarray(v, np.float32) for v in w))
      else:
        check(got, np.asarray(w, np.float32))


def test_unary_and_bitwise_operators():
  a = ember.device_put(A_NP)
  m = ember.device_put(A_NP > 0)
  for outs in both(lambda x, b: (~x, -x, abs(x), ~b, b & (x > 2), b | True, b ^ b), a, m):
    want = (~A_NP, -A_NP, np.abs(A_NP), ~(A_NP > 0), (A_NP > 0) & (A_NP > 2),
            (A_NP > 0) | True, np.zeros_like(A_NP, bool))
    for got, w in zip(outs, want):
      check(got, w)


def test_result_dtypes_and_weak_types():
  x = jnp.arange(3)
  assert (x + 1.5).dtype == np.float32 and (x + 1.5).weak_type  # as in JAX
  assert (x + 1).dtype == np.int32 and not (x + 1).weak_type
  assert (x / 2).dtype == np.float32
  s = jnp.asarray(2.0)  # weakly typed from a Python float
  assert (s * 2).weak_type and (s * 2).dtype == np.float32
  h = ember.device_put(np.ones(3, np.float16))
  assert (h * 2.5).dtype == np.float16
  assert (ember.device_put(np.ones(3, np.int8)) + 3).dtype == np.int8
  outs = ember.jit(lambda v: (v + 1.5, v * True, v > 1))(x)
  assert [o.dtype for o in outs] == [np.float32, np.int32, np.bool_]


def test_numpy_operands_defer_to_ember():
  x = jnp.arange(3)
  for out in (np.float32(1) + x, x + np.float32(1), np.ones(3) + x, np.int32(2) * x,
              np.arange(3) < x):
    assert type(out).__name__ == "ArrayImpl"
  assert (np.ones(3) + x).dtype == np.float32  # float64 NumPy array, x64 off
  assert (np.float32(1) + x).dtype == np.float32
  y = ember.jit(lambda v: np.float32(1) + v)(x)
  assert y.tolist() == [1., 2., 3.]


def test_non_array_operands():
  x = jnp.arange(3)
  assert (x == None) is False and (x != None) is True  # noqa: E711
  with pytest.raises(TypeError, match="unsupported operand type"):
    x + None
  with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for ==: 'ArrayImpl' and "
                     "'list'"):
    x == [1]
  with pytest.raises(TypeError, match="not supported between instances"):
    x < "a"
  with pytest.raises(TypeError, match="unsupported operand"):
    x + [1]
  # `in` on a list of arrays checks identity first, as in JAX
  y = jnp.arange(3)
  assert x in [x, y]
  assert jnp.asarray(1) in [jnp.asarray(1)]
  with pytest.raises(ValueError, match="truth value of an array with more than one element"):
    x in [y]  # noqa: B015


def test_contains():
  x = jnp.arange(3)
  assert 1 in x and 5 not in x
  with pytest.raises(TypeError, match="Array.__contains__: unsupported operand type"):
    None in x  # noqa: B015
  with pytest.raises(ValueError, match="search array must be one-dimensional"):
    1 in jnp.ones((2, 2))  # noqa: B015


METHOD_CASES = [
    ("sum", (), {}), ("sum", (0,), {}), ("sum", (), {"axis": 1, "keepdims": True}),
    ("mean", (), {"axis": 0}), ("std", (), {}), ("var", (), {"axis": 1, "ddof": 1}),
    ("prod", (), {"axis": 1}), ("max", (), {"axis": 0}), ("min", (), {}),
    ("argmax", (), {"axis": 1}), ("argmin", (), {}), ("all", (), {"axis": 0}), ("any", (), {}),
    ("cumsum", (), {"axis": 1}), ("cumprod", (), {}), ("ptp", (), {"axis": 1}),
    ("clip", (-1, 2), {}), ("round", (), {}), ("conj", (), {}), ("conjugate", (), {}),
    ("sort", (), {}), ("argsort", (), {"axis": 0}), ("take", (np.array([0, 5]),), {}),
    ("repeat", (2,), {"axis": 0}), ("diagonal", (), {}), ("trace", (), {}),
    ("ravel", (), {}), ("flatten", (), {}), ("swapaxes", (0, 1), {}), ("copy", (), {}),
    ("transpose", (), {}), ("transpose", (1, 0), {}), ("transpose", ((1, 0),), {}),
    ("reshape", (3, 2), {}), ("reshape", ((3, 2),), {}), ("reshape", ([-1],), {}),
    ("reshape", (2, 3), {"order": "F"}), ("astype", (np.float32,), {}),
    ("dot", (B_NP.T,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", METHOD_CASES,
                         ids=[f"{n}{a}{k}" for n, a, k in METHOD_CASES])
def test_methods_match_numpy(name, args, kwargs):
  a = ember.device_put(A_NP)
  if name in ("ptp", "sort"):  # NumPy 2 has no ndarray.ptp; ndarray.sort sorts in place
    want = getattr(np, name)(A_NP, *args, **kwargs)
  else:
    want = getattr(A_NP, name)(*args, **kwargs)
  if name in ("sum", "prod", "cumsum", "cumprod", "trace"):
    want = np.asarray(want, np.int32)  # x64 off: integer accumulations stay int32
  if name in ("mean", "std", "var"):
    want = np.asarray(want, np.float32)
  if name in ("argmax", "argmin", "argsort"):
    want = np.asarray(want, np.int32)
  if name == "take":
    want = A_NP.ravel()[[0, 5]]
  for got in both(lambda x: getattr(x, name)(*args, **kwargs), a):
    check(got, want)


def test_properties_and_small_methods():
  f = ember.device_put(F_NP)
  c = ember.device_put(np.array([1 + 2j, -3j], np.complex64))
  for outs in both(lambda x, z: (x.T, x.mT, z.real, z.imag, z.conj(), x[None].squeeze(0)),
                   f, c):
    check(outs[0], F_NP.T)
    check(outs[1], F_NP.T)
    check(outs[2], np.array([1., 0.], np.float32))
    check(outs[3], np.array([2., -3.], np.float32))
    check(outs[4], np.array([1 - 2j, 3j], np.complex64))
    check(outs[5], F_NP)
  s = jnp.arange(5)
  check(s.searchsorted(2.5), np.int32(3))
  check(s.nonzero()[0], np.arange(1, 5, dtype=np.int32))
  assert f.itemsize == 4 and f.nbytes == 24 and f.ndim == 2 and f.size == 6
  sizes = []
  ember.jit(lambda x: sizes.append((x.itemsize, x.nbytes, x.ndim)) or x)(f)
  assert sizes == [(4, 24, 2)]
  with pytest.raises(NotImplementedError, match="arr.flat"):
    f.flat
  assert f.__array_namespace__() is jnp
  v = ember.device_put(np.array([1.0, -2.0], np.float32)).view(np.int32)
  np.testing.assert_array_equal(np.asarray(v), np.array([1.0, -2.0], np.float32).view(np.int32))
  with pytest.raises(TypeError, match="cannot reshape array of shape"):
    f.reshape(5)


def test_python_protocols():
  x = jnp.arange(6).reshape(2, 3)
  assert len(x) == 2
  rows = list(x)
  assert len(rows) == 2 and rows[1].tolist() == [3, 4, 5]
  assert [r.tolist() for r in reversed(x)] == [[3, 4, 5], [0, 1, 2]]
  assert [int(v) for v in jnp.arange(3)] == [0, 1, 2]
  with pytest.raises(TypeError, match="iteration over a 0-d array"):
    iter(jnp.asarray(1))
  with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
    len(jnp.asarray(1))
  with pytest.raises(ValueError, match="truth value of an array with more than one element is "
                     "ambiguous"):
    bool(x)
  assert bool(jnp.asarray([1])) and not bool(jnp.asarray(0))
  r = round(jnp.float32(2.5))
  assert r.dtype == np.int32 and int(r) == 2
  r1 = round(jnp.float32(2.56), 1)
  assert r1.dtype == np.float32 and abs(float(r1) - 2.6) < 1e-6
  np.testing.assert_array_equal(np.asarray(x), np.arange(6).reshape(2, 3))
  assert np.asarray(x).dtype == np.int32
  assert np.asarray(x, dtype=np.float64).dtype == np.float64

  def traced(v):
    assert len(v) == 2
    rows = list(v)
    back = list(reversed(v))
    return rows[0] + back[0], v.at[0].add(1), v[None].shape[0]

  a, b, n = ember.jit(traced)(x)
  assert a.tolist() == [3, 5, 7] and b.tolist() == [[1, 2, 3], [3, 4, 5]] and int(n) == 1


def test_tracer_conversions_raise():
  x = jnp.arange(3)
  with pytest.raises(ember.errors.ConcretizationTypeError):
    ember.jit(lambda v: v.sum().item())(x)
  with pytest.raises(ember.errors.TracerBoolConversionError):
    ember.jit(lambda v: 1 if v[0] else 0)(x)
  with pytest.raises(ember.errors.TracerArrayConversionError):
    ember.jit(lambda v: np.asarray(v))(x)
