"""Run code written for JAX on ember: ``import jax`` and ``import jax.X`` resolve to ``ember`` and
``ember.X``.

Used by the differential corpus (tests/corpus) and the ecosystem tier (tools/ecosystem.py), never by
ember itself. ``install()`` puts a finder at the front of ``sys.meta_path``; from then on, in this
process, ``jax.numpy is ember.numpy``. It refuses to install where the real ``jax`` package is
already imported, since the two would then be mixed in one process.

Example:
    >>> import sys, jax_alias                             # doctest: +SKIP
    >>> jax_alias.install()                               # doctest: +SKIP
    >>> import jax.numpy as jnp                           # doctest: +SKIP
    >>> jnp is sys.modules["ember.numpy"]                 # doctest: +SKIP
    True
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

_PREFIX = "jax"
_TARGET = "ember"


def _target_name(fullname: str) -> str | None:
  if fullname == _PREFIX:
    return _TARGET
  if fullname.startswith(_PREFIX + "."):
    return _TARGET + fullname[len(_PREFIX):]
  return None


class _AliasLoader(importlib.abc.Loader):
  def __init__(self, target: str):
    self.target = target

  def create_module(self, spec):
    module = importlib.import_module(self.target)  # the alias is the very same module object
    self._own = (module.__spec__, getattr(module, "__loader__", None))
    return module

  def exec_module(self, module):
    # Already executed under its own name; the import system has just stamped the alias's spec
    # on it, so give the module its own back.
    module.__spec__, module.__loader__ = self._own


class _AliasFinder(importlib.abc.MetaPathFinder):
  def find_spec(self, fullname, path=None, target=None):
    name = _target_name(fullname)
    if name is None:
      return None
    try:
      real = importlib.util.find_spec(name)
    except ModuleNotFoundError:
      real = None
    if real is None:
      return None  # ``import jax.X`` fails as it would for a missing jax submodule
    spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(name),
                                          is_package=real.submodule_search_locations is not None)
    return spec


_finder = _AliasFinder()


def install() -> None:
  """Resolve ``jax`` and ``jax.*`` imports to ember from now on in this process."""
  real = sys.modules.get(_PREFIX)
  if real is not None and not real.__name__.startswith(_TARGET):
    raise RuntimeError("the real jax package is already imported in this process; "
                       "jax_alias.install() must run before anything imports jax")
  if _finder not in sys.meta_path:
    sys.meta_path.insert(0, _finder)


def installed() -> bool:
  return _finder in sys.meta_path
