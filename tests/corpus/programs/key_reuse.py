"""The key reuse checker with jax_debug_key_reuse on (jax.debug_key_reuse(True)): which
operations consume a typed key (samplers, split, bits) and which do not (fold_in, key_data,
clone, wrap_key_data, raw keys), the error (a TypeError) and its first line eagerly and in jitted
code, vmap over keys, cond branches, loop bodies that consume a key from outside, and indexing
key arrays (ints and slices consume the keys they take)."""
from harness import framework, program

jax, jnp, lax = framework()
rnd = jax.random


def _on():
  return jax.debug_key_reuse(True)


def _first_line(e):
  return type(e).__name__, isinstance(e, TypeError), str(e).splitlines()[0]


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def sampler_twice_eagerly():
  with _on():
    k = rnd.key(0)
    rnd.normal(k)
    return rnd.uniform(k)


@program(phrases=["Previously-consumed key passed to random_split at index 0"])
def split_after_a_sampler():
  with _on():
    k = rnd.key(0)
    rnd.normal(k)
    return rnd.split(k)


@program(phrases=["Previously-consumed key passed to random_bits at index 0"])
def bits_twice():
  with _on():
    k = rnd.key(1)
    rnd.bits(k)
    return rnd.bits(k)


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def sampler_after_split():
  with _on():
    k = rnd.key(2)
    rnd.split(k)
    return rnd.normal(k)


@program(phrases=["Previously-consumed key passed to random_split at index 0"])
def multinomial_splits_first():
  with _on():
    k = rnd.key(3)
    rnd.normal(k)
    return rnd.multinomial(k, 3.0, jnp.ones(3) / 3)


@program
def the_error_is_a_type_error():
  with _on():
    k = rnd.key(4)
    rnd.normal(k)
    try:
      rnd.gamma(k, 1.0)
    except Exception as e:  # noqa: BLE001 (the error is what the program shows)
      return _first_line(e)


@program
def operations_that_do_not_consume():
  with _on():
    k = rnd.key(5)
    a = rnd.normal(k)
    folded = (rnd.key_data(rnd.fold_in(k, 1)), rnd.key_data(rnd.fold_in(k, 1)))
    return (a, folded, rnd.key_data(k), str(rnd.key_impl(k)), bool(k == k),
            rnd.normal(rnd.clone(k)), rnd.normal(rnd.wrap_key_data(rnd.key_data(k))),
            rnd.normal(rnd.fold_in(k, 2)))


@program
def clone_is_fresh_both_ways():
  with _on():
    k = rnd.key(6)
    c = rnd.clone(k)
    return rnd.normal(c), rnd.normal(k)


@program
def raw_keys_are_not_tracked():
  with _on():
    k = rnd.PRNGKey(7)
    return rnd.normal(k), rnd.normal(k), rnd.split(k), rnd.split(k)


@program
def splitting_patterns():
  with _on():
    key = rnd.key(8)
    out = []
    for _ in range(3):
      key, sub = rnd.split(key)
      out.append(rnd.normal(sub))
    k1, k2, k3 = rnd.split(key, 3)
    out += [rnd.uniform(k1), rnd.uniform(k2), rnd.key_data(k3)]
    out.append(jax.vmap(rnd.normal)(rnd.split(rnd.fold_in(key, 1), 2)))
    return out


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def vmap_over_keys_twice():
  with _on():
    keys = rnd.split(rnd.key(9), 3)
    jax.vmap(rnd.normal)(keys)
    return jax.vmap(rnd.uniform)(keys)


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def vmap_closing_over_a_key_consumes_it():
  with _on():
    k = rnd.key(10)
    jax.vmap(lambda x: x + rnd.normal(k))(jnp.ones(2))
    return rnd.normal(k)


@program(phrases=["In jit, argument 0 is already consumed."])
def reuse_inside_jit():
  with _on():
    return jax.jit(lambda k: rnd.normal(k) + rnd.uniform(k))(rnd.key(11))


@program(phrases=["In random_split, argument 0 is already consumed."])
def split_twice_inside_jit():
  with _on():
    return jax.jit(lambda k: (rnd.split(k), rnd.split(k)))(rnd.key(12))


@program(phrases=["In random_bits, argument 0 is already consumed."])
def bits_twice_inside_jit():
  with _on():
    return jax.jit(lambda k: (rnd.bits(k), rnd.bits(k)))(rnd.key(13))


@program
def fold_in_and_clone_inside_jit():
  with _on():
    def f(k):
      return (rnd.normal(rnd.fold_in(k, 1)) + rnd.normal(rnd.fold_in(k, 2))
              + rnd.normal(rnd.clone(k)) + rnd.normal(k))
    return jax.jit(f)(rnd.key(14))


@program
def cond_branches_may_both_consume():
  with _on():
    f = jax.jit(lambda k, p: lax.cond(p, lambda: rnd.normal(k), lambda: rnd.uniform(k)))
    return f(rnd.key(15), True), f(rnd.key(15), False)


@program(phrases=["In jit, argument 0 is already consumed."])
def reuse_after_cond():
  with _on():
    def f(k, p):
      return lax.cond(p, lambda: rnd.normal(k), lambda: 0.0) + rnd.normal(k)
    return jax.jit(f)(rnd.key(16), True)


@program(phrases=["scan body function leads to key reuse when repeatedly executed, because key "
                  "constants are repeatedly consumed"])
def scan_body_consumes_an_outside_key():
  with _on():
    k = rnd.key(17)
    return lax.scan(lambda c, _: (c + rnd.normal(k), None), 0.0, None, length=2)


@program(phrases=["scan body function leads to key reuse when repeatedly executed"])
def fori_loop_body_consumes_an_outside_key():
  with _on():
    k = rnd.key(18)
    return lax.fori_loop(0, 3, lambda i, c: c + rnd.normal(k), 0.0)


@program(phrases=["while_loop body function leads to key reuse when repeatedly executed"])
def while_body_consumes_an_outside_key():
  with _on():
    k = rnd.key(19)
    return lax.while_loop(lambda c: c < 3.0, lambda c: c + rnd.normal(k), 0.0)


@program
def scan_that_splits_its_carry():
  with _on():
    def body(k, _):
      k, sub = rnd.split(k)
      return k, rnd.normal(sub)
    key, xs = lax.scan(body, rnd.key(20), None, length=3)
    return rnd.key_data(key), xs


@program
def scan_over_split_keys():
  with _on():
    keys = rnd.split(rnd.key(21), 3)
    return lax.scan(lambda c, k: (c + rnd.normal(k), rnd.key_data(k)), 0.0, keys)


@program(phrases=["In jit, argument 0 is already consumed."])
def scan_body_reusing_its_key():
  with _on():
    keys = rnd.split(rnd.key(27), 3)
    return lax.scan(lambda c, k: (c + rnd.normal(k), rnd.uniform(k)), 0.0, keys)


@program(phrases=["Previously-consumed key passed to slice at index 0"])
def indexing_twice_consumes():
  with _on():
    keys = rnd.split(rnd.key(22), 4)
    rnd.normal(keys[0])
    return rnd.normal(keys[0])


@program
def indexing_different_keys():
  with _on():
    keys = rnd.split(rnd.key(23), 4)
    return rnd.normal(keys[0]), rnd.normal(keys[1]), rnd.key_data(keys[2:])


@program(phrases=["Previously-consumed key passed to slice at index 0"])
def overlapping_slices():
  with _on():
    keys = rnd.split(rnd.key(24), 4)
    keys[::2]
    return keys[2]


@program(phrases=["In slice, argument 0 is already consumed."])
def indexing_twice_inside_jit():
  with _on():
    return jax.jit(lambda ks: (rnd.normal(ks[0]), rnd.normal(ks[0])))(rnd.split(rnd.key(25), 2))


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def vmap_after_drawing_from_one_key():
  with _on():
    keys = rnd.split(rnd.key(26), 3)
    rnd.normal(keys[1])
    return jax.vmap(rnd.normal)(keys)


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def jitted_function_called_twice_with_one_key():
  with _on():
    draw = jax.jit(lambda k: rnd.normal(k))
    k = rnd.key(4)
    draw(k)
    return draw(k)


@program
def jitted_function_passing_a_key_through():
  with _on():
    through = jax.jit(lambda k, x: (k, x + 1))
    k = rnd.key(5)
    through(k, 1.0)
    k2, y = through(k, 2.0)
    return y, rnd.key_data(k2)


@program(phrases=["Previously-consumed key passed to jit-compiled function at index 0"])
def sampler_after_a_jitted_draw():
  with _on():
    k = rnd.key(6)
    jax.jit(lambda k: rnd.uniform(k))(k)
    return rnd.normal(k)
