"""pytest plugin of the ecosystem tier (tools/ecosystem.py), loaded with ``-p ecosystem_plugin``.

Environment variables, all set by tools/ecosystem.py:
  ECOSYSTEM_ALIAS=1        install tools/jax_alias.py's import hook before any test module imports
                           jax, so ``jax``/``jax.X`` resolve to ``ember``/``ember.X``.
  ECOSYSTEM_SELECT=path    a JSON list of node ids: only those tests are run.
  ECOSYSTEM_RESULTS=path   where to write ``{node id: [outcome, first line of the error]}``; a test
                           counts as failed if any of its phases or subtests failed.
  ECOSYSTEM_TEST_TIMEOUT=s seconds one test may run before it is interrupted (SIGALRM; default 300).
"""
from __future__ import annotations

import json
import os
import signal

import pytest

if os.environ.get("ECOSYSTEM_ALIAS") == "1":
  import jax_alias
  jax_alias.install()

_results: dict[str, list[str]] = {}


class TestTimeout(Exception):
  """A test ran past ECOSYSTEM_TEST_TIMEOUT seconds."""


def pytest_collection_modifyitems(config, items):
  path = os.environ.get("ECOSYSTEM_SELECT")
  if not path:
    return
  with open(path) as f:
    wanted = set(json.load(f))
  kept = [item for item in items if item.nodeid in wanted]
  dropped = [item for item in items if item.nodeid not in wanted]
  if dropped:
    config.hook.pytest_deselected(items=dropped)
  items[:] = kept


def _on_alarm(signum, frame):
  raise TestTimeout(f"test ran past {os.environ.get('ECOSYSTEM_TEST_TIMEOUT', '300')} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
  seconds = int(os.environ.get("ECOSYSTEM_TEST_TIMEOUT", "300"))
  previous = signal.signal(signal.SIGALRM, _on_alarm)
  signal.alarm(seconds)
  try:
    yield
  finally:
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _first_error_line(report) -> str:
  crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
  message = getattr(crash, "message", None)
  if message is None:
    text = getattr(report, "longreprtext", "") or ""
    lines = [l[2:] for l in text.splitlines() if l.startswith("E ")]
    message = lines[0] if lines else (text.strip().splitlines() or [""])[-1]
  return message.strip().splitlines()[0] if message.strip() else ""


def pytest_runtest_logreport(report):
  outcome, error = _results.get(report.nodeid, ["passed", ""])
  if report.failed:
    if outcome != "failed":
      where = "" if report.when == "call" else f"[{report.when}] "
      _results[report.nodeid] = ["failed", where + _first_error_line(report)]
  elif report.skipped and outcome != "failed" and not hasattr(report, "context"):  # not a subtest
    _results[report.nodeid] = ["skipped", ""]
  elif report.nodeid not in _results:
    _results[report.nodeid] = ["passed", ""]


def pytest_collectreport(report):
  if report.failed:  # a test module that does not import: its tests never run
    _results[report.nodeid or "<collection>"] = ["error", _first_error_line(report)]


def pytest_sessionfinish(session):
  path = os.environ.get("ECOSYSTEM_RESULTS")
  if path and not hasattr(session.config, "workerinput"):  # the xdist controller (or a plain run)
    with open(path, "w") as f:
      json.dump(_results, f, indent=0, sort_keys=True)
