"""Traceback filtering (ember/_src/traceback_util.py): an exception leaving a transformation
keeps the user's frames and the one ember function the user's code called, as JAX's do."""
import os
import traceback

import pytest

import ember
import ember.numpy as jnp
from ember import lax
from ember._src import traceback_util

HERE = os.path.basename(__file__)


def bad_dot(x):
  return jnp.dot(x, jnp.ones((4, 2)))


def scan_body(c, x):
  return c + bad_dot(x).sum(), None


def frames(thunk, mode="auto"):
  with ember.config._option("jax_traceback_filtering", mode):
    with pytest.raises(Exception) as info:
      thunk()
  tb = traceback.extract_tb(info.value.__traceback__)
  return info.value, [(os.path.basename(f.filename), f.name) for f in tb]


USER_DOT = [(HERE, "<lambda>"), (HERE, "bad_dot"), ("linear.py", "dot")]


@pytest.mark.parametrize("name,thunk,expected", [
    ("jit", lambda: ember.jit(bad_dot)(jnp.ones((3, 3))), [(HERE, "bad_dot"), ("linear.py", "dot")]),
    ("grad", lambda: ember.grad(lambda x: bad_dot(x).sum())(jnp.ones((3, 3))), USER_DOT),
    ("vmap(jit(grad))", lambda: ember.vmap(ember.jit(ember.grad(lambda x: bad_dot(x).sum())))(
        jnp.ones((2, 3, 3))), USER_DOT),
    ("scan", lambda: lax.scan(scan_body, 0.0, jnp.ones((2, 3, 3))),
     [(HERE, "scan_body"), (HERE, "bad_dot"), ("linear.py", "dot")]),
    ("jacrev", lambda: ember.jacrev(bad_dot)(jnp.ones((3, 3))), [(HERE, "bad_dot"),
                                                                  ("linear.py", "dot")]),
    ("make_jaxpr", lambda: ember.make_jaxpr(bad_dot)(jnp.ones((3, 3))),
     [(HERE, "bad_dot"), ("linear.py", "dot")]),
    ("user's own error", lambda: ember.jit(lambda x: 1 / 0)(1.0), [(HERE, "<lambda>")]),
    ("no user frame", lambda: ember.jit(jnp.dot)(jnp.ones(3), jnp.ones(4)),
     [("linalg.py", "_dot_shape")]),
])
def test_filtered_frames(name, thunk, expected):
  error, got = frames(thunk)
  assert got[0] == (HERE, "frames")
  assert got[1] == (HERE, "<lambda>")  # the thunk
  assert got[2:] == expected
  assert error.__notes__ == [traceback_util.NOTE]


def test_off_keeps_every_frame():
  error, got = frames(lambda: ember.grad(lambda x: bad_dot(x).sum())(jnp.ones((3, 3))), "off")
  assert len(got) > 10 and sum(f == HERE for f, _ in got) == 4
  assert not hasattr(error, "__notes__")


def test_remove_frames_chains_the_unfiltered_traceback():
  error, got = frames(lambda: ember.jit(bad_dot)(jnp.ones((3, 3))), "remove_frames")
  assert got[2:] == [(HERE, "bad_dot"), ("linear.py", "dot")]
  cause = error.__cause__
  assert isinstance(cause, traceback_util.UnfilteredStackTrace)
  assert len(traceback.extract_tb(cause.__traceback__)) > len(got)
  assert not hasattr(error, "__notes__")


def test_message_and_type_unchanged():
  error, _ = frames(lambda: ember.jit(bad_dot)(jnp.ones((3, 3))))
  assert type(error) is TypeError
  assert str(error) == ("dot_general requires contracting dimensions to have the same shape, "
                        "got (3,) and (4,).")


def test_register_exclusion_hides_a_library_file():
  # frames of a registered library path are treated as ember's own
  traceback_util.register_exclusion(__file__)
  try:
    error, got = frames(lambda: ember.jit(bad_dot)(jnp.ones((3, 3))))
  finally:
    traceback_util._exclusions.remove(__file__)
  # inside the boundary no frame is the user's now: only the raising one is kept
  assert got[2:] == [("linalg.py", "_dot_shape")]
