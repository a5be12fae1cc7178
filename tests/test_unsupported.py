"""ember/_unsupported.py: every JAX name ember refuses exists and raises, saying why; refused
modules raise on import; aliases resolve; and the tables list only JAX's public names ember does
not define itself (tests/data/jax_surface.json, JAX 0.10.2's names per module)."""
import importlib
import json
import pathlib

import pytest

import ember
from ember import _unsupported

_SURFACE = json.loads((pathlib.Path(__file__).parent / "data" / "jax_surface.json").read_text())
_MODULES = _SURFACE["modules"]


def _split(jax_name: str) -> tuple[str, str]:
  module, _, name = jax_name.rpartition(".")
  return module, name


def _ember_module(jax_module: str):
  return importlib.import_module("ember" + jax_module[len("jax"):])


def test_every_entry_is_a_public_jax_name_ember_does_not_define():
  stale = []
  for jax_name in [*_unsupported.UNSUPPORTED, *_unsupported.ALIASES]:
    module, name = _split(jax_name)
    if name not in _MODULES.get(module, ()):
      stale.append(f"{jax_name}: not a public name of JAX 0.10.2")
    elif name in vars(_ember_module(module)):
      stale.append(f"{jax_name}: ember's module defines it; drop the table's entry")
  stale += [m for m in _unsupported.MODULES if m not in _MODULES]
  assert stale == []


@pytest.mark.parametrize("module", sorted(_unsupported.MODULES))
def test_refused_modules_raise_on_import_saying_why(module):
  with pytest.raises(ModuleNotFoundError, match="is not supported by ember") as info:
    importlib.import_module("ember" + module[len("jax"):])  # an ember module would import
  assert _unsupported.MODULES[module].reason in str(info.value)


@pytest.mark.parametrize("jax_name", sorted(_unsupported.UNSUPPORTED))
def test_refused_name_raises_naming_itself_reason_and_alternative(jax_name):
  module, name = _split(jax_name)
  stub = getattr(_ember_module(module), name)
  refusal = _unsupported.UNSUPPORTED[jax_name]
  with pytest.raises(NotImplementedError) as info:
    stub(1, key=2)
  message = str(info.value)
  assert jax_name in message and refusal.reason in message
  assert refusal.alternative is None or refusal.alternative in message


def test_stub_refuses_every_use_but_a_type_probe():
  from ember.interpreters import mlir
  stub = mlir.LoweringRuleContext
  assert _unsupported.is_unsupported(stub)
  assert not isinstance(ember.numpy.ones(2), stub)  # no ember value is one
  with pytest.raises(NotImplementedError, match="LoweringRuleContext"):
    stub.module_context  # noqa: B018
  with pytest.raises(NotImplementedError, match="LoweringRuleContext"):
    class Rule(stub):  # noqa: F841
      pass
  with pytest.raises(AttributeError):
    stub.__wrapped__  # noqa: B018 (what inspect and copy probe: a plain answer)
  assert "LoweringRuleContext" in repr(stub)


def test_a_refused_helper_does_not_shadow_the_builtin_in_embers_module():
  from ember.experimental import ode
  assert _unsupported.is_unsupported(ode.zip) and "zip" not in vars(ode)
  assert float(ode.odeint(lambda y, t: -y, 1.0, ember.numpy.array([0.0, 1.0]))[-1]) == \
      pytest.approx(0.36787944, rel=1e-5)


def test_unknown_names_are_still_attribute_errors():
  from ember.interpreters import mlir
  with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
    mlir.no_such_name  # noqa: B018
  assert not hasattr(mlir, "no_such_name")


@pytest.mark.parametrize("jax_name", sorted(_unsupported.ALIASES))
def test_aliases_resolve(jax_name):
  module, name = _split(jax_name)
  target_module, _, target = _unsupported.ALIASES[jax_name].rpartition(".")
  assert getattr(_ember_module(module), name) is getattr(
      importlib.import_module(target_module), target)


def test_importing_a_refused_module_says_why():
  with pytest.raises(ModuleNotFoundError, match="Pallas and Mosaic") as info:
    import ember.experimental.pallas  # noqa: F401
  assert info.value.name == "ember.experimental.pallas"
  with pytest.raises(ModuleNotFoundError, match="IFRT"):
    importlib.import_module("ember.experimental.colocated_python.api")
  with pytest.raises(ModuleNotFoundError, match="No module named 'ember.no_such_module'"):
    importlib.import_module("ember.no_such_module")
