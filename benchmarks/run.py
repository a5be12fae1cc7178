"""Measure ember side by side with JAX and NumPy in one run.

    python benchmarks/run.py [--jax-python PATH] [--only PATTERN] [--repeat N]
                             [--json out.json] [--sides ember,jax,numpy]

Each side (ember, jax, numpy) runs ``benchmarks/cases.py --lib NAME --serve``
in its own subprocess, all with one shared environment; the runner drives
them case by case and interleaves their timed batches round by round, then
prints a table (and optionally JSON). See benchmarks/README.md.
"""

import argparse
import datetime
import json
import os
import platform
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__

import cases as cases_mod  # noqa: E402  (no array library is imported by this)

PREFIX = cases_mod.PREFIX
CASES_PY = os.path.join(HERE, "cases.py")
SIDES = ("ember", "jax", "numpy")
JAX_VERSION = "0.10.2"
VENV_DIR = os.path.join(HERE, ".jaxvenv")


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# Interpreters and environment
# ---------------------------------------------------------------------------


def _has_jax(py):
    try:
        r = subprocess.run([py, "-c", "import importlib; m = importlib.import_module('jax'); print(m.__version__)"],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def ensure_jax_venv():
    py = os.path.join(VENV_DIR, "bin", "python")
    if os.path.exists(py) and _has_jax(py):
        return py
    log("[run] creating %s with jax==%s (one-time)" % (VENV_DIR, JAX_VERSION))
    subprocess.run([sys.executable, "-m", "venv", VENV_DIR], check=True,
                   stdout=sys.stderr)
    subprocess.run([py, "-m", "pip", "install", "--quiet",
                    "jax==%s" % JAX_VERSION, "jaxlib==%s" % JAX_VERSION],
                   check=True, stdout=sys.stderr)
    if not _has_jax(py):
        raise RuntimeError("jax still not importable in %s" % VENV_DIR)
    return py


def resolve_jax_python(arg):
    """--jax-python, then $EMBER_BENCH_JAX_PYTHON, then a venv under
    benchmarks/.jaxvenv created on demand."""
    if arg:
        return arg, "--jax-python"
    env = os.environ.get("EMBER_BENCH_JAX_PYTHON")
    if env:
        return env, "EMBER_BENCH_JAX_PYTHON"
    return ensure_jax_venv(), "benchmarks/.jaxvenv"


def base_env(args):
    """One environment for every side; only PYTHONPATH differs (ember needs
    the repo root on it, the others get none so nothing shadows them)."""
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env["XLA_FLAGS"] = args.xla_flags if args.xla_flags is not None else os.environ.get("XLA_FLAGS", "")
    if args.platform:
        env["JAX_PLATFORMS"] = args.platform
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONPATH", None)
    return env


# ---------------------------------------------------------------------------
# Running the sides
# ---------------------------------------------------------------------------


class SideError(Exception):
    """The side's subprocess died, hung, or could not start."""

    def __init__(self, why, stderr_tail="", fatal=False):
        super().__init__(why)
        self.why = why
        self.stderr_tail = stderr_tail
        self.fatal = fatal  # could not even start: don't retry for later cases


def _reader(stream, q):
    for line in stream:
        q.put(line)
    q.put(None)


def _tail(path, n=3000):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:  # faulthandler's headline beats the traceback's last frame
        if l.startswith("Fatal Python error"):
            return l
    return lines[-1] if lines else ""


class SideProc:
    """One ``cases.py --lib SIDE --serve`` subprocess, driven one command at
    a time (setup / batch / end) so that the sides can be interleaved."""

    def __init__(self, side, python, env, args):
        self.side, self.python, self.env, self.args = side, python, env, args
        self.proc = None
        self.meta = {"python": python}

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self):
        cmd = [self.python, CASES_PY, "--lib", self.side, "--serve",
               "--min-time", str(self.args.min_time)]
        self.errf = tempfile.NamedTemporaryFile(prefix="bench_%s_" % self.side,
                                                suffix=".err", delete=False)
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.errf, env=self.env, cwd=REPO,
                                         text=True, errors="replace", bufsize=1)
        except OSError as e:
            self._cleanup()
            raise SideError("cannot start %s: %s" % (self.python, e), fatal=True)
        self.q = queue.Queue()
        threading.Thread(target=_reader, args=(self.proc.stdout, self.q), daemon=True).start()
        try:
            ev = self._wait({"meta"}, None, self.args.timeout + 60, "starting")
        except SideError as e:
            e.fatal = True
            raise
        ev.pop("event", None)
        self.meta.update(ev)

    def _cleanup(self):
        tail = ""
        if getattr(self, "errf", None) is not None:
            self.errf.close()
            tail = _tail(self.errf.name)
            try:
                os.unlink(self.errf.name)
            except OSError:
                pass
            self.errf = None
        return tail

    def _die(self, why):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait()
        tail = self._cleanup()
        self.proc = None
        raise SideError(why, tail)

    def _wait(self, kinds, case, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.q.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                self._die("timed out after %gs (%s)" % (timeout, what))
            if line is None:
                rc = self.proc.wait()
                why = "crashed (exit %s)" % rc
                if rc is not None and rc < 0:
                    try:
                        why = "crashed (%s)" % signal.Signals(-rc).name
                    except ValueError:
                        pass
                tail = _tail(self.errf.name) if self.errf else ""
                last = _last_line(tail)
                if last:
                    why += ": " + last[:300]
                self._die(why)
            if not line.startswith(PREFIX):
                continue
            try:
                ev = json.loads(line[len(PREFIX):])
            except ValueError:
                continue
            if ev.get("event") in kinds and (case is None or ev.get("case") == case):
                return ev

    def call(self, op, case):
        """Send one command; returns the answering event (ready / batch /
        result). Raises SideError if the process dies or hangs."""
        if not self.alive():
            self.start()
        try:
            self.proc.stdin.write(json.dumps({"op": op, "case": case}) + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass  # it died; _wait reports how
        kinds = {"setup": {"ready", "result"}, "batch": {"batch", "result"},
                 "end": {"result"}}[op]
        return self._wait(kinds, case, self.args.timeout, op)

    def close(self):
        if self.alive():
            try:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._cleanup()


def run_interleaved(selected, procs, args):
    """For each case: set it up on every side, then time ``repeat`` rounds,
    one batch per side per round (the side order rotates each round), then
    collect each side's median. A side that fails reports its error for
    that case and is restarted for the next one; a side that cannot start
    at all reports that for every case."""
    results = {s: {} for s in procs}
    broken = {}  # side -> error for sides that cannot start
    for c in selected:
        sides = [s for s in procs if s != "numpy" or c.has_numpy]
        ready = []
        for s in sides:
            if s in broken:
                results[s][c.name] = {"error": broken[s]}
                continue
            try:
                ev = procs[s].call("setup", c.name)
            except SideError as e:
                results[s][c.name] = {"error": e.why, "stderr_tail": e.stderr_tail}
                if e.fatal:
                    broken[s] = e.why
                continue
            if ev["event"] == "result":
                ev.pop("event", None)
                results[s][c.name] = ev
            else:
                ready.append(s)
        for r in range(args.repeat):
            if not ready:
                break
            k = r % len(ready)
            for s in ready[k:] + ready[:k]:
                try:
                    ev = procs[s].call("batch", c.name)
                except SideError as e:
                    results[s][c.name] = {"error": e.why, "stderr_tail": e.stderr_tail}
                    ready.remove(s)
                    continue
                if ev["event"] == "result":
                    ev.pop("event", None)
                    results[s][c.name] = ev
                    ready.remove(s)
        for s in ready:
            try:
                ev = procs[s].call("end", c.name)
                ev.pop("event", None)
                results[s][c.name] = ev
            except SideError as e:
                results[s][c.name] = {"error": e.why, "stderr_tail": e.stderr_tail}
        for s in sides:
            _progress(s, c.name, results[s].get(c.name, {"error": "no result"}))
    return results


def _progress(side, name, rec):
    if "error" in rec:
        log("  %-6s %-26s ERROR %s" % (side, name, rec["error"][:100]))
    else:
        log("  %-6s %-26s %12.3f %s" % (side, name, rec["us"], rec.get("unit", "us")))


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def fmt_us(v):
    if v is None:
        return "-"
    if v >= 1000:
        return "%.0f" % v
    if v >= 100:
        return "%.1f" % v
    if v >= 10:
        return "%.2f" % v
    return "%.3f" % v


def build_rows(selected, side_results, sides):
    rows = []
    for c in selected:
        row = {"case": c.name, "unit": c.unit, "target": c.target,
               "target_text": c.target_text, "desc": c.desc}
        for s in SIDES:
            if s not in sides:
                row[s] = None
                continue
            if s == "numpy" and not c.has_numpy:
                row[s] = None
                continue
            row[s] = side_results.get(s, {}).get(c.name, {"error": "no result"})
        e, j = row["ember"], row["jax"]
        ratio = None
        if e and j and "us" in e and "us" in j and j["us"] > 0:
            row["ratio_of_medians"] = e["us"] / j["us"]
            # The sides ran interleaved, one batch each per round: compare
            # batches of the same round, so drifts of the machine cancel.
            eb, jb = e.get("batch_means_us") or [], j.get("batch_means_us") or []
            if eb and len(eb) == len(jb) and all(x > 0 for x in jb):
                ratio = statistics.median(a / b for a, b in zip(eb, jb))
            else:
                ratio = row["ratio_of_medians"]
        row["ratio"] = ratio
        if c.target is None:
            row["status"] = "-"
        elif ratio is None:
            row["status"] = "ERR" if (e and "error" in e) or (j and "error" in j) else "n/a"
        else:
            row["status"] = "PASS" if ratio <= c.target else "MISS"
        rows.append(row)
    return rows


def render_table(rows):
    notes = []  # unique error messages -> footnote numbers

    def cell(rec):
        if rec is None:
            return "-"
        if "error" in rec:
            msg = rec["error"]
            if msg not in notes:
                notes.append(msg)
            kind = msg.split(":", 1)[0].strip() or "error"
            if len(kind) > 24:
                kind = kind[:23] + "~"
            return "ERR[%d] %s" % (notes.index(msg) + 1, kind)
        return fmt_us(rec["us"])

    header = ["case", "ember us", "jax us", "numpy us", "ember/jax", "target", "status"]
    body = []
    for r in rows:
        name = r["case"] + (" (per eqn)" if r["unit"] == "us/eqn" else "")
        body.append([name, cell(r["ember"]), cell(r["jax"]), cell(r["numpy"]),
                     "-" if r["ratio"] is None else "%.2fx" % r["ratio"],
                     r["target_text"], r["status"]])
    widths = [max(len(str(x[i])) for x in [header] + body) for i in range(len(header))]
    right = {1, 2, 3, 4}

    def line(vals):
        return "  ".join(str(v).rjust(w) if i in right else str(v).ljust(w)
                         for i, (v, w) in enumerate(zip(vals, widths)))

    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(b) for b in body]
    for i, msg in enumerate(notes, 1):
        out.append("[%d] %s" % (i, msg))
    return "\n".join(out)


# ---------------------------------------------------------------------------


def main(argv=None):
    p = argparse.ArgumentParser(description="ember vs JAX vs NumPy benchmarks")
    p.add_argument("--jax-python", default=None,
                   help="interpreter with JAX installed (default: $EMBER_BENCH_JAX_PYTHON, "
                        "else a venv created in benchmarks/.jaxvenv)")
    p.add_argument("--only", default=None, help="regex; run cases whose name matches")
    p.add_argument("--repeat", type=int, default=15,
                   help="timed batches (rounds) per case and side (default 15)")
    p.add_argument("--min-time", type=float, default=0.05,
                   help="minimum seconds per timed batch (default 0.05)")
    p.add_argument("--sides", default=",".join(SIDES),
                   help="comma-separated subset of ember,jax,numpy")
    p.add_argument("--json", default=None, help="also write results to this JSON file")
    p.add_argument("--timeout", type=float, default=120,
                   help="seconds one case may take before its side is killed (default 120)")
    p.add_argument("--xla-flags", default=None,
                   help="XLA_FLAGS for every side (default: inherit $XLA_FLAGS or empty)")
    p.add_argument("--platform", default="cpu",
                   help="JAX_PLATFORMS for every side (default cpu; '' to leave unset)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if any targeted case is MISS or ERR")
    args = p.parse_args(argv)

    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    bad = [s for s in sides if s not in SIDES]
    if bad:
        p.error("unknown side(s): %s" % ", ".join(bad))
    selected = cases_mod.select(args.only)
    if not selected:
        p.error("no case matches --only %r" % args.only)

    env = base_env(args)
    t_start = time.perf_counter()
    procs, side_meta, side_results = {}, {}, {}
    for side in sides:
        if side == "numpy" and not any(c.has_numpy for c in selected):
            continue
        senv = dict(env)
        python, how = sys.executable, "sys.executable"
        if side == "ember":
            senv["PYTHONPATH"] = REPO
        elif side == "jax":
            try:
                python, how = resolve_jax_python(args.jax_python)
            except Exception as e:  # noqa: BLE001 - report in table
                msg = "no JAX interpreter: %s: %s" % (type(e).__name__, e)
                side_meta[side] = {"error": msg}
                side_results[side] = {c.name: {"error": msg} for c in selected}
                log("[run] jax side: " + msg)
                continue
        log("[run] %s side: %s (%s)" % (side, python, how))
        procs[side] = SideProc(side, python, senv, args)
        side_meta[side] = {"python": python, "python_source": how}
    try:
        side_results.update(run_interleaved(selected, procs, args))
    finally:
        for side, proc in procs.items():
            proc.close()
            side_meta[side].update(proc.meta)

    rows = build_rows(selected, side_results, sides)
    print()
    print("ember benchmarks  (median of %d batch means; us per call unless noted)" % args.repeat)
    for s in sides:
        m = side_meta.get(s, {})
        desc = "%s %s" % (s, m.get("version", "?"))
        if m.get("devices"):
            desc += " on %s" % m["devices"]
        if m.get("error"):
            desc += "  [%s]" % m["error"][:120]
        print("  " + desc)
    print("  XLA_FLAGS=%r  JAX_PLATFORMS=%r  cpus=%s" %
          (env["XLA_FLAGS"], env.get("JAX_PLATFORMS"), os.cpu_count()))
    print()
    print(render_table(rows))
    total = time.perf_counter() - t_start
    print("\ntotal %.1fs" % total)

    if args.json:
        doc = {
            "meta": {
                "time": datetime.datetime.now().isoformat(timespec="seconds"),
                "host": platform.node(), "platform": platform.platform(),
                "cpus": os.cpu_count(), "argv": sys.argv,
                "repeat": args.repeat, "min_time_s": args.min_time,
                "env": {k: env.get(k) for k in ("XLA_FLAGS", "JAX_PLATFORMS", "TF_CPP_MIN_LOG_LEVEL")},
                "sides": side_meta, "total_s": round(total, 2),
            },
            "cases": {r["case"]: {k: v for k, v in r.items() if k != "case"} for r in rows},
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=False)
        log("[run] wrote %s" % args.json)

    if args.strict and any(r["status"] in ("MISS", "ERR", "n/a") for r in rows if r["target"] is not None):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
