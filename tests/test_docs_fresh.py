"""The docs keep up with the code: the list of missing JAX names is current, every module is on a page.

Both checks compute what the docs should say from ember as it is now and from
``tests/data/jax_surface.json`` (JAX 0.10.2's public names per module, written by
``tools/make_surface.py`` under JAX), so whoever adds a name or a module reruns one command.
"""
import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
_DIRECTIVE = re.compile(r"^::: +([\w.]+)\s*$", re.MULTILINE)


def _load_tool():
  spec = importlib.util.spec_from_file_location(
      "make_docs_surface", ROOT / "tools" / "make_docs_surface.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


tool = _load_tool()


@pytest.fixture(scope="module")
def surface():
  return tool.load_surface()


def test_surface_data_is_jax_0_10_2s(surface):
  assert surface["jax_version"] == "0.10.2"
  modules = surface["modules"]
  assert {"jax", "jax.numpy", "jax.lax", "jax.nn", "jax.scipy.linalg"} <= set(modules)
  assert "jit" in modules["jax"] and "linalg" not in modules["jax.numpy"]  # modules are keys
  assert all(names == sorted(names) for names in modules.values())


def test_differences_page_lists_the_missing_names(surface):
  page = tool.PAGE.read_text()
  current = tool.current_section(page)
  assert current is not None, f"docs/differences.md lost its {tool.BEGIN!r} marker"
  assert current == tool.render(surface), (
      f"the list of public JAX names ember lacks in docs/differences.md is stale: "
      f"run `{tool.COMMAND}`")


def test_a_missing_name_is_listed_and_a_present_one_is_not(surface):
  fake = {"jax_version": "0.10.2", "modules": {
      "jax.numpy": ["sin", "no_such_name_in_ember"], "jax.no_such_module": ["f"]}}
  text = tool.render(fake)
  assert "- `jax.numpy` (1 of 2): `no_such_name_in_ember`" in text
  assert "- `jax.no_such_module` (1 names)" in text
  assert "`sin`" not in text


def _documented_modules() -> set[str]:
  return {name for page in API.glob("*.md") for name in _DIRECTIVE.findall(page.read_text())}


def test_every_public_module_has_an_api_page(surface):
  missing = sorted(set(tool.public_ember_modules(surface)) - _documented_modules())
  assert not missing, (
      f"no page in docs/api/ documents {missing}: add a `::: module` line to the page of its "
      f"family (and the page to mkdocs.yml's nav)")


def test_every_api_page_is_in_the_navigation():
  nav = (ROOT / "mkdocs.yml").read_text()
  missing = sorted(page.name for page in API.glob("*.md") if f"api/{page.name}" not in nav)
  assert not missing, f"mkdocs.yml's nav does not list docs/api/{missing}"
