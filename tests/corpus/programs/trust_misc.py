"""Weak types through the linear-algebra primitives and their wrappers, lax.full_like's printed
jaxpr, Array.addressable_data, and arange under a transfer guard.

JAX's linalg primitives follow its standard weak-type rule: every output (pivots and
permutations included) is weakly typed exactly when every operand is, and the wrappers that
symmetrize or mask keep it (they divide by a weak 2 and select against a weak zero)."""
import numpy as np

from harness import framework, program, submodule

jax, jnp, lax = framework()
lax_linalg = submodule("lax.linalg")
sp_linalg = submodule("scipy.linalg")


_SPD = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float32)


def _weak_types(tree):
  return [(str(x.dtype), bool(x.weak_type)) for x in jax.tree.leaves(tree)]


@program
def lax_linalg_outputs_of_weak_operands_are_weak():
  a = lax.broadcast(jnp.asarray(2.0), (3, 3)) * jnp.asarray(_SPD).astype(bool)
  fns = {"cholesky": lax_linalg.cholesky, "lu": lax_linalg.lu, "qr": lax_linalg.qr,
         "eigh": lax_linalg.eigh, "svd": lax_linalg.svd, "eig": lambda x: lax_linalg.eig(x),
         "hessenberg": lax_linalg.hessenberg, "schur": lax_linalg.schur,
         "tridiagonal": lax_linalg.tridiagonal,
         "triangular_solve": lambda x: lax_linalg.triangular_solve(x, x, left_side=True)}
  return {k: _weak_types(f(a)) for k, f in fns.items()}


@program
def lax_linalg_strong_operand_gives_strong_outputs():
  a = jnp.asarray(_SPD)
  return {"cholesky": _weak_types(lax_linalg.cholesky(a)), "lu": _weak_types(lax_linalg.lu(a)),
          "mixed_solve": _weak_types(lax_linalg.triangular_solve(
              a, lax.broadcast(jnp.asarray(1.0), (3, 3)) + 0.0, left_side=True))}


@program
def weak_cholesky_values_and_jaxpr():
  a = lax.broadcast(jnp.asarray(1.0), (3, 3)) * jnp.asarray(_SPD)
  f = lambda x: lax_linalg.cholesky(x)
  return f(a), str(jax.make_jaxpr(f)(a))


@program
def numpy_linalg_weak_inputs():
  w = lax.broadcast(jnp.asarray(1.0), (3, 3)) * jnp.asarray(_SPD)
  b = lax.broadcast(jnp.asarray(1.0), (3,)) + 0.0
  return {"solve": jnp.linalg.solve(w, b), "inv": jnp.linalg.inv(w),
          "cholesky": jnp.linalg.cholesky(w), "eigh": jnp.linalg.eigh(w),
          "eigvalsh": jnp.linalg.eigvalsh(w), "svd": jnp.linalg.svd(w, compute_uv=False),
          "qr": jnp.linalg.qr(w), "det": jnp.linalg.det(w), "slogdet": jnp.linalg.slogdet(w),
          "pinv": jnp.linalg.pinv(w)}


@program
def scipy_linalg_weak_inputs_every_assume_a():
  w = lax.broadcast(jnp.asarray(1.0), (3, 3)) * jnp.asarray(_SPD)
  b = lax.broadcast(jnp.asarray(1.0), (3,)) + 0.0
  out = {k: sp_linalg.solve(w, b, assume_a=k) for k in ("gen", "sym", "her", "pos")}
  out["strong_b"] = sp_linalg.solve(w, jnp.ones(3), assume_a="pos")
  out["cho_factor"] = sp_linalg.cho_factor(w)
  out["cho_solve"] = sp_linalg.cho_solve(sp_linalg.cho_factor(w, lower=True), b)
  out["lu_factor"] = sp_linalg.lu_factor(w)
  out["cholesky_upper"] = sp_linalg.cholesky(w)
  return out


@program
def weak_linalg_under_jit_and_grad():
  w = lax.broadcast(jnp.asarray(1.0), (3, 3)) * jnp.asarray(_SPD)
  f = lambda x: jnp.sum(jnp.linalg.cholesky(x) ** 2)
  return jax.jit(f)(w), jax.grad(f)(w), jax.jit(jnp.linalg.eigh)(w)


@program
def full_like_of_weak_array_prints_a_literal():
  a = lax.broadcast(jnp.asarray(3.0), (2, 2))
  return [str(jax.make_jaxpr(lambda x: lax.full_like(x, v))(a)) for v in (0, 1.5, True)] + [
      lax.full_like(a, 2), lax.full_like(a, 2, dtype=jnp.int8),
      str(jax.make_jaxpr(lambda x: lax.full_like(x, 0, shape=(3,)))(a))]


@program
def full_like_of_weak_int_and_complex():
  i = lax.broadcast(jnp.asarray(3), (2,))
  c = lax.broadcast(jnp.asarray(1j), (2,))
  return (lax.full_like(i, 7), lax.full_like(c, 2), str(jax.make_jaxpr(
      lambda x, y: (lax.full_like(x, 1), lax.full_like(y, 1)))(i, c)))


@program
def addressable_data_of_single_device_array():
  x = jnp.arange(4.0)
  return x.addressable_data(0), len(x.addressable_shards)


@program
def arange_of_one_bound_needs_no_transfer():
  with jax.transfer_guard("disallow"):
    return jnp.arange(5), jnp.arange(4.0), jnp.arange(3, dtype=jnp.float32)


@program
def literals_of_every_scalar_kind_print_as_jax():
  cases = [(jnp.int32(2), jnp.int32), (jnp.float32(2), jnp.float32), (jnp.bfloat16(1), jnp.bfloat16),
           (jnp.float16(1.5), jnp.float16), (jnp.bool_(True), jnp.bool_),
           (jnp.complex64(1), jnp.complex64), (jnp.asarray(2), jnp.int32),
           (jnp.array(2.0), jnp.float32), (jnp.uint8(3), jnp.uint8)]
  return [str(jax.make_jaxpr(lambda x, c=c: x * c)(jnp.ones(2, dt))) for c, dt in cases]
