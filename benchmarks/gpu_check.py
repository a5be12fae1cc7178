"""ember against JAX on one GPU: the same programs, their values and their times, in one table.

    python benchmarks/gpu_check.py                  # on a machine with an NVIDIA GPU
    python benchmarks/gpu_check.py --cpu            # a smoke test on the CPU (small sizes)
    python benchmarks/gpu_check.py --jax-python /path/to/python   # JAX from another venv

Each library runs in its own subprocess (ember's never imports jax; JAX's runs only where
``import jax`` works in the interpreter given). Every row is one program: its value (a few
numbers; "agree" compares them within the row's tolerance) and its time per call after a warm-up
call (median of a few runs; ratios are ember/JAX, below 1.0 meaning ember is faster). A row that
fails prints its error and the others go on. The whole run takes a few minutes on a GPU.

Rows: the seed pages' programs, an MLP training step (784-4096-4096-4096-10, batch 2048),
per-example gradients (vmap of grad), a 1000-step scan RNN, a bf16 matmul 8192^3 (TFLOP/s),
jnp.linalg.solve/cholesky/svd/eigh, random samplers, a debug.print callback inside jit, cached
dispatch and an eager add; then whether ember's process imported jax (it must not).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import statistics
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIX = "@@GPUCHECK@@ "
ROWS: list = []  # (name, fn(L, size) -> (value, seconds or None, unit), rtol, atol)


def row(name: str, rtol: float = 1e-4, atol: float = 1e-5):
  def register(fn):
    ROWS.append((name, fn, rtol, atol))
    return fn
  return register


class Lib:
  """The library under test: ``jax``, ``jnp``, ``lax``, ``random`` of ember or JAX."""

  def __init__(self, name: str):
    self.name = name
    self.jax = importlib.import_module(name)
    self.jnp = importlib.import_module(f"{name}.numpy")
    self.lax = importlib.import_module(f"{name}.lax")
    self.random = importlib.import_module(f"{name}.random")

  def ready(self, tree):
    for leaf in self.jax.tree.leaves(tree):
      leaf.block_until_ready()
    return tree


def timed(L, fn, *args, repeat: int = 5, number: int = 1) -> float:
  """Seconds per call of ``fn(*args)`` (after one warm-up call): median of ``repeat`` runs."""
  L.ready(fn(*args))
  times = []
  for _ in range(repeat):
    t0 = time.perf_counter()
    for _ in range(number):
      out = fn(*args)
    L.ready(out)
    times.append((time.perf_counter() - t0) / number)
  return statistics.median(times)


def summary(x) -> list:
  """A few numbers that stand for an array: its sum, absolute sum and first elements."""
  a = np.asarray(x, dtype=np.float64).ravel()
  return [float(a.sum()), float(np.abs(a).sum())] + [float(v) for v in a[:3]]


# --- the rows -----------------------------------------------------------------------------------

@row("backend (default, devices)", rtol=0)
def _backend(L, small):
  return [L.jax.default_backend(), len(L.jax.devices())], None, ""


@row("seed: jit sin(cos(x))*tanh(x) 1000x1000")
def _seed_jit(L, small):
  jnp = L.jnp
  f = L.jax.jit(lambda x: jnp.sin(jnp.cos(x)) * jnp.tanh(x))
  x = jnp.ones((1000, 1000))
  return summary(f(x)), timed(L, f, x), "s"


@row("seed: jit norm of 10000x10", rtol=1e-3, atol=1e-4)
def _seed_norm(L, small):
  def norm(X):
    X = X - X.mean(0)
    return X / X.std(0)
  X = L.jnp.array(np.random.RandomState(1701).rand(10000, 10).astype(np.float32))
  f = L.jax.jit(norm)
  return summary(f(X)), timed(L, f, X), "s"


@row("seed: .at[].set, vmap, pytree map", rtol=0)
def _seed_misc(L, small):
  jnp = L.jnp
  y = jnp.array([1, 2, 3]).at[0].set(10)
  v = L.jax.vmap(lambda a, b: jnp.dot(a, b))(jnp.ones((4, 3)), jnp.arange(12.0).reshape(4, 3))
  t = L.jax.tree.map(lambda x: x * 2, {"w": jnp.array([1, 1]), "b": 2})
  return [int(v_) for v_ in y.tolist()] + [float(v_) for v_ in v.tolist()] + [
      int(t["b"])], None, ""


def _mlp(L, small):
  jnp, jax = L.jnp, L.jax
  sizes = (784, 256, 256, 10) if small else (784, 4096, 4096, 4096, 10)
  batch = 128 if small else 2048
  rng = np.random.RandomState(0)
  params = [(jnp.asarray(rng.randn(m, n).astype(np.float32) / np.sqrt(m)),
             jnp.zeros((n,), jnp.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
  x = jnp.asarray(rng.randn(batch, sizes[0]).astype(np.float32))
  y = jnp.asarray(rng.randint(0, sizes[-1], size=batch).astype(np.int32))

  def loss(params, x, y):
    h = x
    for i, (w, b) in enumerate(params):
      h = jnp.dot(h, w) + b
      if i < len(params) - 1:
        h = jnp.tanh(h)
    logp = jax.nn.log_softmax(h)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))
  return loss, params, x, y


@row("MLP SGD step (784-4096x3-10, batch 2048)", rtol=1e-3, atol=1e-4)
def _mlp_step(L, small):
  jax = L.jax
  loss, params, x, y = _mlp(L, small)

  @jax.jit
  def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return value, jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
  losses, p = [], params
  for _ in range(3):
    value, p = step(p, x, y)
    losses.append(float(value))
  return losses, timed(L, step, params, x, y, repeat=7, number=5), "s"


@row("per-example gradients (vmap of grad)", rtol=1e-3, atol=1e-4)
def _per_example(L, small):
  jax, jnp = L.jax, L.jnp
  loss, params, x, y = _mlp(L, True)  # the small MLP: one gradient per example
  f = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
  xb, yb = x[:, None], y[:, None]
  grads = f(params, xb, yb)
  norms = [float(jnp.sum(g * g)) for g in jax.tree.leaves(grads)[:2]]
  return norms, timed(L, f, params, xb, yb), "s"


@row("scan RNN (1000 steps, hidden 256)", rtol=1e-3, atol=1e-4)
def _scan_rnn(L, small):
  jax, jnp, lax = L.jax, L.jnp, L.lax
  steps, hidden = (200, 64) if small else (1000, 256)
  rng = np.random.RandomState(1)
  w = jnp.asarray(rng.randn(hidden, hidden).astype(np.float32) / np.sqrt(hidden))
  u = jnp.asarray(rng.randn(hidden, hidden).astype(np.float32) / np.sqrt(hidden))
  xs = jnp.asarray(rng.randn(steps, hidden).astype(np.float32))

  @jax.jit
  def run(w, u, xs):
    def cell(h, x):
      h = jnp.tanh(h @ w + x @ u)
      return h, h.sum()
    return lax.scan(cell, jnp.zeros(hidden), xs)
  h, sums = run(w, u, xs)
  return summary(h) + [float(sums[-1])], timed(L, run, w, u, xs), "s"


@row("bf16 matmul 8192^3 (TFLOP/s)", rtol=2e-2, atol=1.0)
def _matmul(L, small):
  jax, jnp = L.jax, L.jnp
  n = 1024 if small else 8192
  a = jax.random.normal(jax.random.PRNGKey(0), (n, n), jnp.bfloat16)
  b = jax.random.normal(jax.random.PRNGKey(1), (n, n), jnp.bfloat16)
  f = jax.jit(lambda a, b: a @ b)
  out = f(a, b)
  seconds = timed(L, f, a, b, repeat=7, number=10)
  return [float(out[:4, :4].astype(jnp.float32).sum())], 2 * n ** 3 / seconds / 1e12, "TFLOP/s"


def _spd(L, n):
  rng = np.random.RandomState(2)
  a = rng.randn(n, n).astype(np.float32)
  return L.jnp.asarray(a @ a.T / n + np.eye(n, dtype=np.float32))


@row("jnp.linalg.solve", rtol=1e-3, atol=1e-3)
def _solve(L, small):
  n = 128 if small else 1024
  a = _spd(L, n)
  b = L.jnp.ones((n,))
  f = L.jax.jit(L.jnp.linalg.solve)
  x = f(a, b)
  return [float(L.jnp.linalg.norm(a @ x - b))] + summary(x)[:2], timed(L, f, a, b), "s"


@row("jnp.linalg.cholesky", rtol=1e-3, atol=1e-3)
def _cholesky(L, small):
  n = 128 if small else 1024
  a = _spd(L, n)
  f = L.jax.jit(L.jnp.linalg.cholesky)
  c = f(a)
  return summary(c)[:2], timed(L, f, a), "s"


@row("jnp.linalg.svd (singular values)", rtol=1e-3, atol=1e-3)
def _svd(L, small):
  n = 64 if small else 512
  a = L.jnp.asarray(np.random.RandomState(3).randn(n, n).astype(np.float32))
  f = L.jax.jit(L.jnp.linalg.svd)
  u, s, vt = f(a)
  recon = float(L.jnp.linalg.norm((u * s) @ vt - a))
  return [float(v) for v in s[:4]] + [recon < 1e-2 * n], timed(L, f, a), "s"


@row("jnp.linalg.eigh (eigenvalues)", rtol=1e-3, atol=1e-3)
def _eigh(L, small):
  n = 64 if small else 512
  a = _spd(L, n)
  f = L.jax.jit(L.jnp.linalg.eigh)
  w, v = f(a)
  return [float(x) for x in w[-4:]], timed(L, f, a), "s"


@row("random samplers (bits identical)", rtol=1e-6, atol=1e-6)
def _random(L, small):
  r, jnp = L.random, L.jnp
  k = r.PRNGKey(42)
  k1, k2, k3, k4 = r.split(k, 4)
  out = [r.normal(k1, (3,)), r.uniform(k2, (3,)), r.gamma(k3, 2.0, (3,)),
         r.categorical(k4, jnp.log(jnp.array([0.2, 0.3, 0.5])), shape=(3,)).astype(jnp.float32),
         r.bernoulli(k1, 0.3, (3,)).astype(jnp.float32)]
  f = L.jax.jit(lambda k: r.normal(k, (1 << 20,)))
  return [float(v) for a in out for v in a.tolist()], timed(L, f, k), "s"


@row("debug.print callback in jit", rtol=0)
def _debug_print(L, small):
  jax = L.jax
  f = jax.jit(lambda x: (jax.debug.print("x={x} sum={s}", x=x, s=x.sum()), x * 2)[1])
  buf = io.StringIO()
  with contextlib.redirect_stdout(buf):
    f(L.jnp.arange(3.0)).block_until_ready()
    jax.effects_barrier()
  seconds = timed(L, lambda x: f(x), L.jnp.arange(3.0)) if not small else None
  return [buf.getvalue().strip()], seconds, "s"


@row("cached jit dispatch (x + x, scalar)")
def _dispatch(L, small):
  f = L.jax.jit(lambda x: x + x)
  s = L.jnp.float32(1.0)
  x = f(s)
  return [float(x)], timed(L, f, x, repeat=5, number=2000), "s"


@row("eager add (1000 elements)")
def _eager(L, small):
  x = L.jnp.ones(1000)
  return summary(x + x)[:1], timed(L, lambda a: a + a, x, repeat=5, number=1000), "s"


# --- one library's run (a subprocess) ---------------------------------------------------------

def worker(lib: str, small: bool) -> None:
  L = Lib(lib)
  for name, fn, _, _ in ROWS:
    try:
      value, seconds, unit = fn(L, small)
      record = {"row": name, "value": value, "time": seconds, "unit": unit}
    except Exception as e:  # noqa: BLE001 - one row's failure must not stop the others
      record = {"row": name, "error": f"{type(e).__name__}: {e}".splitlines()[0][:300],
                "trace": traceback.format_exc()[-2000:]}
    print(PREFIX + json.dumps(record), flush=True)
  if lib != "jax":
    print(PREFIX + json.dumps({"row": "ember process imported jax", "value": [
        "jax" in sys.modules], "time": None, "unit": ""}), flush=True)


def run_side(python: str, lib: str, small: bool, env_extra: dict, timeout: int) -> dict:
  env = dict(os.environ, **env_extra)
  if lib == "ember":
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
  cmd = [python, os.path.abspath(__file__), "--worker", lib] + (["--cpu"] if small else [])
  try:
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                         cwd="/" if lib == "jax" else ROOT)
  except subprocess.TimeoutExpired as e:
    return {"__error__": f"{lib} timed out after {timeout} s", "__stdout__": e.stdout or ""}
  results = {}
  for line in out.stdout.splitlines():
    if line.startswith(PREFIX):
      rec = json.loads(line[len(PREFIX):])
      results[rec["row"]] = rec
  if out.returncode != 0 and not results:
    results["__error__"] = f"{lib} exited {out.returncode}: {out.stderr[-1500:]}"
  return results


def jax_available(python: str) -> bool:
  try:
    return subprocess.run([python, "-c", "import jax"], capture_output=True, timeout=120,
                          cwd="/").returncode == 0
  except (OSError, subprocess.TimeoutExpired):
    return False


def agree(a, b, rtol, atol) -> str:
  if a is None or b is None:
    return "-"
  try:
    if rtol == 0:
      return "yes" if a == b else "NO"
    return "yes" if np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=rtol,
                                atol=atol) else "NO"
  except (TypeError, ValueError):
    return "yes" if a == b else "NO"


def fmt_time(rec) -> str:
  t = rec.get("time") if rec else None
  if t is None:
    return "-"
  if rec.get("unit") == "TFLOP/s":
    return f"{t:.3g} TF/s"
  return f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} us"


def ratio(e, j) -> str:
  if not e or not j or e.get("time") is None or j.get("time") is None:
    return "-"
  if e.get("unit") == "TFLOP/s":  # a rate: ember's time over JAX's is JAX's rate over ember's
    return f"{j['time'] / e['time']:.2f}x"
  return f"{e['time'] / j['time']:.2f}x"


def short(value) -> str:
  text = json.dumps(value)
  return text if len(text) <= 44 else text[:41] + "..."


def main() -> int:
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--cpu", action="store_true", help="smoke test on the CPU (small sizes)")
  p.add_argument("--jax-python", default=sys.executable,
                 help="interpreter that imports jax (default: this one)")
  p.add_argument("--timeout", type=int, default=900, help="seconds per library")
  p.add_argument("--worker", choices=["ember", "jax"], help=argparse.SUPPRESS)
  args = p.parse_args()
  if args.worker:
    worker(args.worker, args.cpu)
    return 0
  env = {"JAX_PLATFORMS": "cpu"} if args.cpu else {}
  env["EMBER_CACHE"] = os.environ.get("EMBER_CACHE", "0")
  t0 = time.perf_counter()
  ember = run_side(sys.executable, "ember", args.cpu, env, args.timeout)
  have_jax = jax_available(args.jax_python)
  jax = run_side(args.jax_python, "jax", args.cpu, env, args.timeout) if have_jax else {}
  names = [name for name, *_ in ROWS] + ["ember process imported jax"]
  tol = {name: (rtol, atol) for name, _, rtol, atol in ROWS}
  print(f"ember vs {'JAX' if have_jax else 'no JAX (not importable by ' + args.jax_python + ')'}"
        f" on {'CPU (smoke test)' if args.cpu else 'GPU'}; ratio = ember/JAX time")
  header = f"{'row':44} {'agree':5} {'ember value':44} {'ember':>12} {'JAX':>12} {'ratio':>7}"
  print(header)
  print("-" * len(header))
  for side, results in (("ember", ember), ("JAX", jax)):
    if "__error__" in results:
      print(f"{side}: {results['__error__']}")
  for name in names:
    e, j = ember.get(name), jax.get(name)
    if e and "error" in e:
      print(f"{name:44} {'ERR':5} {e['error'][:44]:44}")
      continue
    rtol, atol = tol.get(name, (0, 0))
    ok = agree(e and e.get("value"), j and j.get("value"), rtol, atol)
    if j and "error" in j:
      ok = "JAXERR"
    print(f"{name:44} {ok:5} {short(e.get('value')) if e else '-':44} {fmt_time(e):>12} "
          f"{fmt_time(j):>12} {ratio(e, j):>7}")
  for side, results in (("ember", ember), ("JAX", jax)):
    for name, rec in results.items():
      if isinstance(rec, dict) and "error" in rec:
        print(f"\n[{side}] {name}: {rec['error']}\n{rec.get('trace', '')}")
  print(f"\n({time.perf_counter() - t0:.0f} s in all)")
  return 0


if __name__ == "__main__":
  sys.exit(main())
