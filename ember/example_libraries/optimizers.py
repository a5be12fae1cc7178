"""First-order optimizers as triples of pure functions, mirroring
``jax.example_libraries.optimizers``.

An optimizer is an ``(init_fun, update_fun, get_params)`` triple:

- ``init_fun(params)`` takes a pytree of arrays and returns the optimizer state (an
  ``OptimizerState``, itself a pytree, so it can cross ``jit``);
- ``update_fun(step, grads, opt_state)`` takes the integer step index, gradients shaped like the
  parameters, and the state, and returns the next state;
- ``get_params(opt_state)`` returns the parameters held in a state, so that
  ``get_params(init_fun(params))`` is ``params``.

Each optimizer is written for one array and lifted to pytrees by the ``optimizer`` decorator.
Step sizes are numbers or schedules (functions of the step index, see ``exponential_decay`` and
friends). The updates compute the same operations in the same order as JAX's, so states match
JAX's bit for bit. ``sm3`` is not provided.

Example:
    >>> import ember
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> opt_init, opt_update, get_params = optimizers.momentum(0.1, mass=0.9)
    >>> loss = lambda p: jnp.sum(p["w"] ** 2)
    >>> state = opt_init({"w": jnp.array([1.0, -2.0])})
    >>> for i in range(3):
    ...   state = opt_update(i, ember.grad(loss)(get_params(state)), state)
    >>> get_params(state)
    {'w': Array([ 0.06200001, -0.12400001], dtype=float32)}
"""
from __future__ import annotations

import functools
import warnings
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

import ember.numpy as jnp
from ember import tree, tree_util

__all__ = [
    "JoinPoint", "Optimizer", "OptimizerState", "Schedule", "adagrad", "adam", "adamax",
    "clip_grads", "constant", "exponential_decay", "inverse_time_decay", "l2_norm",
    "make_schedule", "momentum", "nesterov", "optimizer", "pack_optimizer_state",
    "piecewise_constant", "polynomial_decay", "rmsprop", "rmsprop_momentum", "sgd", "sm3",
    "unpack_optimizer_state",
]

Array = Any
Params = Any      # a pytree of arrays
State = Any       # one leaf's optimizer state
Updates = Params  # gradients: the same structure as the parameters
Step = int
Schedule = Callable[[Step], float]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
InitFn = Callable[[Params], OptimizerState]
UpdateFn = Callable[[Step, Updates, OptimizerState], OptimizerState]
ParamsFn = Callable[[OptimizerState], Params]
OptimizerState.__doc__ = """The state of a pytree optimizer: the flat per-leaf states (the
pytree children) and, as static data, the parameters' tree structure and each leaf state's.

Example:
  >>> import ember, ember.numpy as jnp
  >>> from ember.example_libraries import optimizers
  >>> init, _, _ = optimizers.sgd(0.1)
  >>> state = init({"w": jnp.array([1.0, 2.0])})
  >>> ember.tree_util.tree_leaves(state)
  [Array([1., 2.], dtype=float32)]
"""
with warnings.catch_warnings():  # optree warns that namedtuples are nodes already; JAX does not
  warnings.simplefilter("ignore", UserWarning)
  tree_util.register_pytree_node(
      OptimizerState,
      lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
      lambda static, children: OptimizerState(children[0], *static))


class Optimizer(NamedTuple):
  """An ``(init_fn, update_fn, params_fn)`` triple; unpacks like a tuple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> opt = optimizers.adam(0.1)
    >>> opt.params_fn(opt.update_fn(0, jnp.array([1.0]), opt.init_fn(jnp.array([0.0]))))
    Array([-0.09999934], dtype=float32)
  """
  init_fn: Callable[[Params], OptimizerState]
  update_fn: Callable[[Step, Updates, OptimizerState], OptimizerState]
  params_fn: Callable[[OptimizerState], Params]


# --- lifting one-array optimizers to pytrees ----------------------------------------------------

def _flatten_states(states):
  flats = [tree.flatten(s) for s in states]
  return tuple(f for f, _ in flats), tuple(d for _, d in flats)


def _unflatten_states(opt_state):
  return [tree.unflatten(d, f) for d, f in zip(opt_state.subtree_defs, opt_state.packed_state,
                                               strict=True)]


def optimizer(opt_maker: Callable[..., tuple]) -> Callable[..., Optimizer]:
  """Decorator turning a maker of one-array optimizer triples into a maker of pytree ones.

  Args:
    opt_maker: a function returning ``(init, update, get_params)`` where ``init(x0)`` makes the
      state of one array (any pytree), ``update(i, g, state)`` returns the next state with the
      same structure, and ``get_params(state)`` returns the array.

  Returns:
    A function with ``opt_maker``'s arguments returning an ``Optimizer`` whose functions take
    and return pytrees of parameters and ``OptimizerState`` values.

  Raises:
    TypeError: from ``update_fun`` when the gradients' tree structure differs from the
      parameters', or when ``update`` changes the structure of a leaf's state.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries.optimizers import optimizer
    >>> @optimizer
    ... def halving():
    ...   return (lambda x: x), (lambda i, g, x: x / 2), (lambda x: x)
    >>> init, update, get_params = halving()
    >>> params = [jnp.array([4.0]), jnp.array([1.0])]
    >>> get_params(update(0, params, init(params)))
    [Array([2.], dtype=float32), Array([0.5], dtype=float32)]
  """
  @functools.wraps(opt_maker)
  def tree_opt_maker(*args, **kwargs):
    init, update, get_params = opt_maker(*args, **kwargs)

    @functools.wraps(init)
    def tree_init(params):
      leaves, treedef = tree.flatten(params)
      flat, defs = _flatten_states([init(x) for x in leaves])
      return OptimizerState(flat, treedef, defs)

    @functools.wraps(update)
    def tree_update(i, grads, opt_state):
      grad_leaves, grad_def = tree.flatten(grads)
      if grad_def != opt_state.tree_def:
        raise TypeError(
            "optimizer update function was passed a gradient tree that did not match the "
            "parameter tree structure with which it was initialized: parameter tree "
            f"{opt_state.tree_def} and grad tree {grad_def}.")
      new = [update(i, g, s) for g, s in zip(grad_leaves, _unflatten_states(opt_state),
                                               strict=True)]
      flat, defs = _flatten_states(new)
      for before, after in zip(opt_state.subtree_defs, defs, strict=True):
        if before != after:
          raise TypeError("optimizer update function produced an output structure that did "
                          f"not match its input structure: input {before} and output {after}.")
      return OptimizerState(flat, opt_state.tree_def, opt_state.subtree_defs)

    @functools.wraps(get_params)
    def tree_get_params(opt_state):
      return tree.unflatten(opt_state.tree_def,
                            [get_params(s) for s in _unflatten_states(opt_state)])

    return Optimizer(tree_init, tree_update, tree_get_params)
  return tree_opt_maker


def _params_of(state):
  """The parameters of a ``(x, *accumulators)`` state."""
  return state[0]


def _x_and_zeros(count):
  """An ``init`` returning the parameters followed by ``count`` zero accumulators."""
  return lambda x0: (x0,) + tuple(jnp.zeros_like(x0) for _ in range(count))


def _bias_correction(beta, i, dtype):
  return 1 - jnp.asarray(beta, dtype) ** (i + 1)


# --- optimizers ---------------------------------------------------------------------------------

@optimizer
def sgd(step_size):
  """Stochastic gradient descent: ``x - step_size(i) * g``.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.sgd(0.1)
    >>> get_params(update(0, jnp.array([1.0, -1.0]), init(jnp.array([1.0, 2.0]))))
    Array([0.9, 2.1], dtype=float32)
  """
  step_size = make_schedule(step_size)
  return (lambda x0: x0), (lambda i, g, x: x - step_size(i) * g), (lambda x: x)


@optimizer
def momentum(step_size: Schedule, mass: float):
  """Gradient descent with (heavy-ball) momentum.

  The velocity accumulates ``v = mass * v + g`` and the step is ``x - step_size(i) * v``.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    mass: the momentum coefficient.

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.momentum(0.1, mass=0.5)
    >>> state = update(0, jnp.array(1.0), init(jnp.array(1.0)))
    >>> get_params(update(1, jnp.array(1.0), state))
    Array(0.75, dtype=float32, weak_type=True)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * velocity, velocity
  return _x_and_zeros(1), update, _params_of


@optimizer
def nesterov(step_size: Schedule, mass: float):
  """Gradient descent with Nesterov momentum.

  The velocity accumulates ``v = mass * v + g`` and the step is
  ``x - step_size(i) * (mass * v + g)``.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    mass: the momentum coefficient.

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.nesterov(0.1, mass=0.5)
    >>> get_params(update(0, jnp.array(1.0), init(jnp.array(1.0))))
    Array(0.85, dtype=float32, weak_type=True)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, velocity = state
    velocity = mass * velocity + g
    return x - step_size(i) * (mass * velocity + g), velocity
  return _x_and_zeros(1), update, _params_of


@optimizer
def adagrad(step_size, momentum=0.9):
  """Adagrad (Duchi et al., 2011) with momentum on the scaled gradient.

  The squared gradients are summed over all steps; each step moves along the momentum average
  of ``g / sqrt(sum of g**2)`` (zero where that sum is zero).

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    momentum: the momentum coefficient (default 0.9).

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adagrad(1.0, momentum=0.0)
    >>> get_params(update(0, jnp.array([2.0, 0.0]), init(jnp.array([1.0, 1.0]))))
    Array([0., 1.], dtype=float32)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, g_sq, m = state
    g_sq = g_sq + jnp.square(g)
    g_sq_inv_sqrt = jnp.where(g_sq > 0, 1. / jnp.sqrt(g_sq), 0.0)
    m = (1. - momentum) * (g * g_sq_inv_sqrt) + momentum * m
    return x - step_size(i) * m, g_sq, m
  return _x_and_zeros(2), update, _params_of


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
  """RMSProp: steps scaled by a running root mean square of the gradients.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    gamma: the decay rate of the running average of squared gradients (default 0.9).
    eps: added to the average before the square root (default 1e-8).

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.rmsprop(0.1, gamma=0.75)
    >>> get_params(update(0, jnp.array(2.0), init(jnp.array(1.0))))
    Array(0.8, dtype=float32, weak_type=True)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
  return _x_and_zeros(1), update, _params_of


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
  """RMSProp whose scaled steps accumulate in a momentum term.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    gamma: the decay rate of the running average of squared gradients (default 0.9).
    eps: added to the average before the square root (default 1e-8).
    momentum: the momentum coefficient (default 0.9).

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.rmsprop_momentum(0.1, gamma=0.75)
    >>> get_params(update(0, jnp.array(2.0), init(jnp.array(1.0))))
    Array(0.8, dtype=float32, weak_type=True)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, avg_sq_grad, mom = state
    avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1. - gamma)
    mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
    return x - mom, avg_sq_grad, mom
  return _x_and_zeros(2), update, _params_of


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """Adam (Kingma and Ba, 2015): bias-corrected running moments of the gradients.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    b1: the decay rate of the first-moment estimate (default 0.9).
    b2: the decay rate of the second-moment estimate (default 0.999).
    eps: added to the root of the second moment (default 1e-8).

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adam(0.1)
    >>> get_params(update(0, jnp.array([0.5, -1.0]), init(jnp.array([1.0, 2.0]))))
    Array([0.90000063, 2.0999994 ], dtype=float32)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, m, v = state
    m = (1 - b1) * g + b1 * m
    v = (1 - b2) * jnp.square(g) + b2 * v
    m_hat = m / _bias_correction(b1, i, m.dtype)
    v_hat = v / _bias_correction(b2, i, m.dtype)
    return x - step_size(i) * m_hat / (jnp.sqrt(v_hat) + eps), m, v
  return _x_and_zeros(2), update, _params_of


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
  """AdaMax: Adam with the second moment replaced by a decaying infinity norm.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    b1: the decay rate of the first-moment estimate (default 0.9).
    b2: the decay rate of the infinity norm (default 0.999).
    eps: added to the infinity norm (default 1e-8).

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.adamax(0.1)
    >>> get_params(update(0, jnp.array([0.5, -1.0]), init(jnp.array([1.0, 2.0]))))
    Array([0.90000004, 2.1       ], dtype=float32)
  """
  step_size = make_schedule(step_size)

  def update(i, g, state):
    x, m, u = state
    m = (1 - b1) * g + b1 * m
    u = jnp.maximum(b2 * u, jnp.abs(g))
    return x - (step_size(i) / _bias_correction(b1, i, m.dtype)) * m / (u + eps), m, u
  return _x_and_zeros(2), update, _params_of


@optimizer
def sm3(step_size, momentum=0.9):
  """SM3 (Anil et al. 2019, "Memory-Efficient Adaptive Optimization"): Adagrad whose squared
  gradient sums are kept per axis (one vector per dimension of the parameter, not one entry per
  element); an element's sum is the smallest of its axes' plus its squared gradient.

  Args:
    step_size: a positive number, or a schedule mapping the step index to one.
    momentum: the momentum applied to the scaled gradients (default 0.9).

  Returns:
    An ``(init_fun, update_fun, get_params)`` triple.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, update, get_params = optimizers.sm3(0.1)
    >>> get_params(update(0, jnp.array([0.5, -1.0]), init(jnp.array([1.0, 2.0]))))
    Array([0.99, 2.01], dtype=float32)
  """
  step_size = make_schedule(step_size)

  def init(x0):
    x = jnp.atleast_1d(x0)
    sums = [jnp.zeros(n, dtype=x.dtype) for n in x.shape]  # one per axis
    return x, jnp.zeros_like(x), sums, jnp.shape(x0)

  def update(i, g, state):
    x, m, sums, shape = state
    along = [_along_axis(s, axis, jnp.ndim(g)) for axis, s in enumerate(sums)]
    accum = functools.reduce(jnp.minimum, along) + jnp.square(g)
    scale = jnp.where(accum > 0, 1. / jnp.sqrt(accum), 0)
    m = (1. - momentum) * (g * scale) + momentum * m
    x = x - step_size(i) * m
    others = [tuple(a for a in range(x.ndim) if a != axis) for axis in range(x.ndim)]
    return x, m, [accum.max(axes) for axes in others], shape

  def get_params(state):
    x, _, _, shape = state
    return x.reshape(shape)
  return init, update, get_params


def _along_axis(v, axis: int, ndim: int):
  """The vector ``v`` as an array of rank ``ndim`` varying along ``axis`` (size 1 elsewhere);
  a scalar gradient (``ndim`` 0) takes ``v`` as it is."""
  index = [None] * ndim
  index[axis:axis + 1] = [slice(None)]
  return v[tuple(index)]


# --- step-size schedules ------------------------------------------------------------------------

def constant(step_size) -> Schedule:
  """The schedule returning ``step_size`` at every step.

  Example:
    >>> from ember.example_libraries import optimizers
    >>> optimizers.constant(0.1)(1000)
    0.1
  """
  return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Schedule:
  """The schedule ``step_size * decay_rate ** (i / decay_steps)``.

  Example:
    >>> from ember.example_libraries import optimizers
    >>> optimizers.exponential_decay(1.0, decay_steps=10, decay_rate=0.5)(20)
    0.25
  """
  return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Schedule:
  """The schedule ``step_size / (1 + decay_rate * i / decay_steps)``.

  With ``staircase=True`` the ratio ``i / decay_steps`` is rounded down, so the step size
  changes every ``decay_steps`` steps.

  Example:
    >>> from ember.example_libraries import optimizers
    >>> optimizers.inverse_time_decay(1.0, decay_steps=2, decay_rate=1.0)(3)
    0.4
    >>> optimizers.inverse_time_decay(1.0, decay_steps=2, decay_rate=1.0, staircase=True)(3)
    Array(0.5, dtype=float32, weak_type=True)
  """
  if staircase:
    return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
  return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Schedule:
  """The schedule going from ``step_size`` to ``final_step_size`` along
  ``(1 - i / decay_steps) ** power`` over ``decay_steps`` steps, then staying there.

  Example:
    >>> from ember.example_libraries import optimizers
    >>> schedule = optimizers.polynomial_decay(1.0, decay_steps=10, final_step_size=0.1)
    >>> schedule(5), schedule(50)
    (Array(0.55, dtype=float32, weak_type=True), Array(0.1, dtype=float32, weak_type=True))
  """
  def schedule(i):
    frac = 1 - jnp.minimum(i, decay_steps) / decay_steps
    return frac ** power * (step_size - final_step_size) + final_step_size
  return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
  """The schedule returning ``values[k]`` where ``k`` counts the boundaries below the step.

  Args:
    boundaries: increasing step indices, a sequence of length ``n``.
    values: the step sizes, a sequence of length ``n + 1``.

  Raises:
    ValueError: if either is not a sequence, or ``values`` is not one longer.

  Example:
    >>> from ember.example_libraries import optimizers
    >>> schedule = optimizers.piecewise_constant([10, 20], [1.0, 0.5, 0.1])
    >>> schedule(0), schedule(15), schedule(25)
    (Array(1., dtype=float32), Array(0.5, dtype=float32), Array(0.1, dtype=float32))
  """
  boundaries = jnp.array(boundaries)
  values = jnp.array(values)
  if not boundaries.ndim == values.ndim == 1:
    raise ValueError("boundaries and values must be sequences")
  if boundaries.shape[0] != values.shape[0] - 1:
    raise ValueError("boundaries length must be one shorter than values length")
  return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule) -> Schedule:
  """A schedule as given, or the constant schedule of a scalar.

  Raises:
    TypeError: for anything else (naming its type).

  Example:
    >>> from ember.example_libraries import optimizers
    >>> optimizers.make_schedule(0.01)(7)
    0.01
  """
  if callable(scalar_or_schedule):
    return scalar_or_schedule
  if jnp.ndim(scalar_or_schedule) == 0:
    return constant(scalar_or_schedule)
  raise TypeError(type(scalar_or_schedule))


# --- utilities ----------------------------------------------------------------------------------

def l2_norm(tree):  # JAX's parameter name (it shadows the module ``tree`` here)
  """The Euclidean norm of all the leaves of a pytree taken together.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> optimizers.l2_norm({"a": jnp.array([3.0]), "b": jnp.array([[4.0]])})
    Array(5., dtype=float32)
  """
  return jnp.sqrt(sum(jnp.vdot(x, x) for x in tree_util.tree_leaves(tree)))


def clip_grads(grad_tree, max_norm):
  """Scales a pytree of gradients down so that its ``l2_norm`` is at most ``max_norm``.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> optimizers.clip_grads({"a": jnp.array([3.0, 4.0])}, 1.0)
    {'a': Array([0.6, 0.8], dtype=float32)}
  """
  norm = l2_norm(grad_tree)
  return tree.map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
  """A leaf of ``unpack_optimizer_state``'s result, holding one parameter's state pytree.

  Example:
    >>> from ember.example_libraries import optimizers
    >>> optimizers.JoinPoint((1.0, 2.0)).subtree
    (1.0, 2.0)
  """

  def __init__(self, subtree):
    self.subtree = subtree

  def __iter__(self):
    yield self.subtree


def unpack_optimizer_state(opt_state):
  """Converts an ``OptimizerState`` to a pytree of ``JoinPoint`` leaves shaped like the
  parameters, each holding its parameter's state (for serializing states).

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, _, _ = optimizers.momentum(0.1, 0.9)
    >>> marked = optimizers.unpack_optimizer_state(init({"w": jnp.array(1.0)}))
    >>> marked["w"].subtree
    (Array(1., dtype=float32, weak_type=True), Array(0., dtype=float32, weak_type=True))
  """
  return tree.unflatten(opt_state.tree_def,
                        [JoinPoint(s) for s in _unflatten_states(opt_state)])


def pack_optimizer_state(marked_pytree):
  """Converts the result of ``unpack_optimizer_state`` back to an ``OptimizerState``.

  Raises:
    TypeError: if a leaf of ``marked_pytree`` is not a ``JoinPoint``.

  Example:
    >>> import ember.numpy as jnp
    >>> from ember.example_libraries import optimizers
    >>> init, _, get_params = optimizers.sgd(0.1)
    >>> state = init({"w": jnp.array(1.0)})
    >>> get_params(optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state)))
    {'w': Array(1., dtype=float32, weak_type=True)}
  """
  points, treedef = tree.flatten(marked_pytree)
  for p in points:
    if not isinstance(p, JoinPoint):
      raise TypeError(f"pack_optimizer_state expects JoinPoint leaves, got {type(p).__name__}")
  flat, defs = _flatten_states([p.subtree for p in points])
  return OptimizerState(flat, treedef, defs)


from ember._unsupported import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr(__name__)  # JAX's names here that ember refuses or aliases
