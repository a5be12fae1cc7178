"""ember.experimental.checkify: JAX 0.10.2's names and error categories; the transform raises."""
import pytest

from ember.experimental import checkify


def _names(categories):
  return sorted(c.__name__ for c in categories)


def test_error_categories_are_jaxs():
  assert _names(checkify.user_checks) == ["FailedCheckError"]
  assert _names(checkify.float_checks) == ["DivisionByZeroError", "NaNError"]
  assert _names(checkify.automatic_checks) == ["DivisionByZeroError", "NaNError", "OOBError"]
  assert _names(checkify.all_checks) == ["DivisionByZeroError", "FailedCheckError", "NaNError",
                                         "OOBError"]
  assert issubclass(checkify.JaxRuntimeError, ValueError)


@pytest.mark.parametrize("call", [lambda: checkify.checkify(abs), lambda: checkify.check(True, "m"),
                                  lambda: checkify.check_error(None), checkify.init_error,
                                  lambda: checkify.debug_check(True, "m")])
def test_the_transform_is_refused_by_name(call):
  with pytest.raises(NotImplementedError, match="ember.experimental.checkify"):
    call()
