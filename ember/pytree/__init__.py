"""Pytrees for ember, backed by optree in ember's own registry namespace.

A pytree is a nested structure of containers (tuples, lists, dicts, namedtuples, ``None`` and
registered custom nodes) whose non-container elements are *leaves*. Conventions follow JAX:

* ``None`` is an empty subtree, not a leaf;
* dict keys are flattened in sorted order, and unflattening builds dicts (and defaultdicts) with
  their keys sorted, as JAX does (``OrderedDict`` keeps insertion order);
* namedtuples are nodes; dataclasses are leaves unless registered with ``register_dataclass``.

The treedef type is optree's ``PyTreeSpec``, exposed here as ``PyTreeDef``; it is hashable and
cheap to compare, so transforms use it as a cache key.

Known difference from JAX 0.10: ``collections.deque`` and struct sequences (e.g.
``time.struct_time``) are pytree nodes here (optree built-ins that cannot be re-registered), while
JAX treats them as leaves.

Example:
    >>> from ember import pytree
    >>> leaves, treedef = pytree.flatten({"b": (1, None), "a": 2})
    >>> leaves
    [2, 1]
    >>> pytree.unflatten(treedef, [20, 10])
    {'a': 20, 'b': (10, None)}
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import operator
from typing import Any, Callable, Iterable, Sequence

import optree
from jaxlib import _jax

__all__ = [
    "NAMESPACE", "PyTreeDef", "DictKey", "SequenceKey", "GetAttrKey", "FlattenedIndexKey",
    "KeyEntry", "KeyPath", "Partial", "flatten", "unflatten", "treedef_num_leaves",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "register_dataclass", "register_static",
    "tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure",
    "tree_reduce", "tree_all", "tree_transpose", "tree_broadcast", "broadcast_prefix",
    "tree_map_with_path",
    "tree_flatten_with_path", "tree_leaves_with_path", "keystr", "treedef_is_leaf",
    "treedef_children", "treedef_tuple", "all_leaves", "build_tree",
]

NAMESPACE = "ember"
PyTreeDef = optree.PyTreeSpec
_NO_PREFIX = object()  # no prefix tree given (error messages then name the structures)

_NONE_IS_LEAF = False


# ------------------------------------------------------------------------------------ key classes

@dataclasses.dataclass(frozen=True, slots=True)
class DictKey:
  """Path entry for a mapping key: ``str(DictKey('w')) == "['w']"``.

  >>> DictKey('w')
  DictKey(key='w')
  """
  key: Any

  def __str__(self) -> str:
    return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
  """Path entry for a sequence index: ``str(SequenceKey(0)) == "[0]"``.

  >>> SequenceKey(0)
  SequenceKey(idx=0)
  """
  idx: int

  def __str__(self) -> str:
    return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
  """Path entry for an attribute (namedtuple field, dataclass field): ``.name``.

  >>> str(GetAttrKey('x'))
  '.x'
  """
  name: str

  def __str__(self) -> str:
    return f".{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
  """Path entry for the i-th child of a custom node registered without keys.

  >>> str(FlattenedIndexKey(2))
  '[<flat index 2>]'
  """
  key: int

  def __str__(self) -> str:
    return f"[<flat index {self.key}>]"


KeyEntry = Any
KeyPath = tuple
_KEY_TYPES = (DictKey, SequenceKey, GetAttrKey, FlattenedIndexKey)


def _simple_key_str(key: Any) -> str:
  if isinstance(key, DictKey):
    return str(key.key)
  if isinstance(key, SequenceKey):
    return str(key.idx)
  if isinstance(key, GetAttrKey):
    return key.name
  if isinstance(key, FlattenedIndexKey):
    return str(key.key)
  return str(key)


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
  """Renders a key path as a string.

  >>> keystr((DictKey('layer1'), SequenceKey(0), GetAttrKey('w')))
  "['layer1'][0].w"
  >>> keystr((DictKey('layer1'), SequenceKey(0)), simple=True, separator='/')
  'layer1/0'
  """
  render = _simple_key_str if simple else str
  return separator.join(render(k) for k in keys)


# --------------------------------------------------------------------------- fast internal helpers

def _sort_dict_node(node: PyTreeDef) -> PyTreeDef:
  if node.type is dict:
    return optree.treespec_dict(zip(node.entries(), node.children()), none_is_leaf=_NONE_IS_LEAF,
                                namespace=NAMESPACE)
  if node.type is collections.defaultdict:
    factory = node.unflatten([None] * node.num_leaves).default_factory
    return optree.treespec_defaultdict(factory, zip(node.entries(), node.children()),
                                       none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)
  return node


_sorted_specs: dict[PyTreeDef, PyTreeDef] = {}


def sorted_dicts(treedef: PyTreeDef) -> PyTreeDef:
  """``treedef`` with its dicts' keys in sorted order, so unflattening builds sorted dicts as JAX
  does. optree's treedefs remember each dict's insertion order but compare and hash without it,
  so the sorted treedef of every equal one is cached (bounded)."""
  out = _sorted_specs.get(treedef)
  if out is None:
    out = treedef.transform(f_node=_sort_dict_node)
    if len(_sorted_specs) >= 4096:
      _sorted_specs.clear()
    _sorted_specs[treedef] = out
  return out


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None):
  """Returns ``(leaves, treedef)``; the hot-path flatten used by transforms.

  >>> flatten([1, (2, None)])[0]
  [1, 2]
  """
  fast = _fast_flatten(tree, is_leaf)
  if fast is not None:
    spec = _spec_of(fast[1], tree, is_leaf)
    if spec is not None:
      return fast[0], spec
  try:
    leaves, treedef = optree.tree_flatten(tree, is_leaf, none_is_leaf=_NONE_IS_LEAF,
                                          namespace=NAMESPACE)
  except TypeError:
    _check_is_leaf(is_leaf)
    raise
  return leaves, sorted_dicts(treedef)


_specs_by_jaxlib: dict = {}


def _spec_of(jtd, tree: Any, is_leaf) -> PyTreeDef | None:
  """The (sorted) optree treedef for a jaxlib treedef of ember's registry, built with optree the
  first time and cached (bounded); None where the jaxlib treedef cannot be a key (unhashable
  auxiliary data)."""
  try:
    spec = _specs_by_jaxlib.get(jtd)
  except Exception:  # noqa: BLE001
    return None
  if spec is None:
    spec = sorted_dicts(optree.tree_structure(tree, is_leaf, none_is_leaf=_NONE_IS_LEAF,
                                              namespace=NAMESPACE))
    if spec.num_leaves != jtd.num_leaves:
      return None
    if len(_specs_by_jaxlib) >= 4096:
      _specs_by_jaxlib.clear()
    _specs_by_jaxlib[jtd] = spec
  return spec


def _check_is_leaf(is_leaf) -> None:
  """JAX's TypeError for an ``is_leaf`` that is not callable, in words instead of optree's
  C++ signature dump (called only once a flatten has failed, so the hot path costs nothing)."""
  if is_leaf is not None and not callable(is_leaf):
    raise TypeError(f"is_leaf must be a callable (node -> bool) or None, got {is_leaf!r} of "
                    f"type {type(is_leaf).__name__}.") from None


def unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
  """Rebuilds a tree from its treedef and leaves (no validation beyond optree's).

  >>> unflatten(flatten((1, 2))[1], [3, 4])
  (3, 4)
  """
  return treedef.unflatten(leaves)


def treedef_num_leaves(treedef: PyTreeDef) -> int:
  """Number of leaves described by ``treedef``.

  >>> treedef_num_leaves(tree_structure({'a': 1, 'b': (2, None)}))
  2
  """
  return treedef.num_leaves


# ------------------------------------------------------------------------------------ registration

# Custom node types whose optree entries are ember key objects (registered "with keys").
_KEYED_TYPES: set[type] = set()


def _register(nodetype: type, flatten_fn, unflatten_fn, keyed: bool) -> None:
  try:
    optree.register_pytree_node(
        nodetype, flatten_fn, unflatten_fn,
        path_entry_type=optree.FlattenedEntry, namespace=NAMESPACE)
  except ValueError as e:
    raise ValueError(f"Cannot register {nodetype!r} as a pytree node: {e}") from None
  if keyed:
    _KEYED_TYPES.add(nodetype)
  _mirror(nodetype, flatten_fn, unflatten_fn)


# jit's cached-call path flattens arguments with jaxlib's C++ registry (about 5x faster per leaf
# than optree here). Every node registered with ember is mirrored into it; a type known only to
# optree is a leaf there, which sends that call down the general (optree) path, so the two
# registries can never disagree silently.
_FAST_REGISTRY = _jax.pytree.default_registry()
fast_flatten = _FAST_REGISTRY.flatten


# The public tree functions flatten with a private jaxlib registry too (optree's flatten costs
# several times jaxlib's per node). It holds exactly ember's nodes: the built-ins, deque (a node in
# optree), and every registered type. A type it refused sends every call down the optree path.
_TREE_REGISTRY = _jax.pytree.PyTreeRegistry()
_UNMIRRORED: set[type] = set()


def _mirror(nodetype: type, flatten_fn, unflatten_fn) -> None:
  def two(x):
    out = flatten_fn(x)
    return out[0], out[1]
  try:
    _FAST_REGISTRY.register_node(nodetype, two, unflatten_fn)
  except Exception:  # already mirrored, or a type jaxlib refuses: it stays a leaf there
    pass
  try:
    _TREE_REGISTRY.register_node(nodetype, two, unflatten_fn)
  except Exception:  # noqa: BLE001 (refused: the public functions then use optree only)
    _UNMIRRORED.add(nodetype)


def _defaultdict_flatten(d: collections.defaultdict):
  keys = sorted(d)
  return [d[k] for k in keys], (d.default_factory, tuple(keys))


_TREE_REGISTRY.register_node(collections.deque, lambda d: (list(d), d.maxlen),
                             lambda maxlen, children: collections.deque(children, maxlen))
_TREE_REGISTRY.register_node(collections.OrderedDict, lambda d: (list(d.values()), tuple(d)),
                             lambda keys, children: collections.OrderedDict(zip(keys, children)))
_TREE_REGISTRY.register_node(
    collections.defaultdict, _defaultdict_flatten,
    lambda aux, children: collections.defaultdict(aux[0], zip(aux[1], children)))
# Leaf types checked once to be leaves for optree too (struct sequences are nodes there only).
_PLAIN_LEAF_TYPES: set[type] = set()


def _fast_flatten(tree: Any, is_leaf) -> tuple | None:
  """``(leaves, jaxlib treedef)`` from the private jaxlib registry, or None where optree would
  see another structure (a struct sequence leaf, a type jaxlib refused) or jaxlib fails: the
  caller then takes the optree path, which also gives every error message."""
  if _UNMIRRORED:
    return None
  try:
    leaves, jtd = _TREE_REGISTRY.flatten(tree, is_leaf)
  except ValueError as e:
    if "sorting pytree dictionary keys" in str(e):
      raise  # keys of no common order ({1: a, 'b': c}): JAX's error (optree would not sort)
    return None
  except Exception:  # noqa: BLE001 (the optree path raises the right error, if any)
    return None
  types = set(map(type, leaves))
  if not types <= _PLAIN_LEAF_TYPES:
    for t in types - _PLAIN_LEAF_TYPES:
      if optree.is_structseq_class(t):
        return None
      _PLAIN_LEAF_TYPES.add(t)
  return leaves, jtd


def _flatten_from_keyed(flatten_with_keys: Callable) -> Callable:
  """Adapts a JAX-style ``flatten_with_keys`` to optree's (children, aux, entries) form."""
  def flatten_fn(node):
    pairs, aux = flatten_with_keys(node)
    pairs = tuple(pairs)
    if not pairs:
      return (), aux, ()
    keys, children = zip(*pairs)
    return children, aux, keys
  return flatten_fn


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
  """Registers ``nodetype`` as a pytree node.

  ``flatten_func(x) -> (children, aux)``; ``unflatten_func(aux, children) -> x``; the optional
  ``flatten_with_keys_func(x) -> (((key, child), ...), aux)`` supplies path keys (when given it is
  used for all flattening). Without it, paths use ``FlattenedIndexKey``.

  >>> class Pair:
  ...   def __init__(self, a, b): self.a, self.b = a, b
  >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
  >>> tree_leaves(Pair(1, [2]))
  [1, 2]
  """
  flatten_fn = flatten_func if flatten_with_keys_func is None else flatten_with_keys_func
  if not callable(flatten_fn) or not callable(unflatten_func):
    raise TypeError(
        f"Cannot register {nodetype!r} as a pytree node: the flatten and unflatten functions "
        f"must be callable, got {flatten_fn!r} and {unflatten_func!r}.")
  if flatten_with_keys_func is None:
    _register(nodetype, flatten_func, unflatten_func, keyed=False)
  else:
    _register(nodetype, _flatten_from_keyed(flatten_with_keys_func), unflatten_func, keyed=True)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable,
                              flatten_func: Callable | None = None) -> None:
  """Registers ``nodetype`` with a key-aware flatten, ``x -> (((key, child), ...), aux)``.

  ``flatten_func`` is accepted for JAX compatibility; ``flatten_with_keys`` is always used.

  >>> class Box:
  ...   def __init__(self, v): self.v = v
  >>> register_pytree_with_keys(
  ...     Box, lambda b: (((GetAttrKey('v'), b.v),), None), lambda _, c: Box(*c))
  >>> keystr(tree_leaves_with_path(Box(1))[0][0])
  '.v'
  """
  del flatten_func
  register_pytree_node(nodetype, None, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: type) -> type:
  """Class decorator: registers ``cls`` using its ``tree_flatten`` / ``tree_unflatten`` methods.

  >>> @register_pytree_node_class
  ... class Wrap:
  ...   def __init__(self, x): self.x = x
  ...   def tree_flatten(self): return (self.x,), None
  ...   @classmethod
  ...   def tree_unflatten(cls, aux, children): return cls(*children)
  >>> tree_map(lambda v: v + 1, Wrap(1)).x
  2
  """
  register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
  return cls


def register_pytree_with_keys_class(cls: type) -> type:
  """Class decorator using ``tree_flatten_with_keys`` / ``tree_unflatten`` methods.

  >>> @register_pytree_with_keys_class
  ... class Named:
  ...   def __init__(self, w): self.w = w
  ...   def tree_flatten_with_keys(self): return ((GetAttrKey('w'), self.w),), None
  ...   @classmethod
  ...   def tree_unflatten(cls, aux, children): return cls(*children)
  >>> tree_leaves_with_path(Named(3))
  [((GetAttrKey(name='w'),), 3)]
  """
  register_pytree_with_keys(
      cls, operator.methodcaller("tree_flatten_with_keys"), cls.tree_unflatten)
  return cls


def _infer_dataclass_fields(nodetype: type) -> tuple[list[str], list[str]]:
  if not dataclasses.is_dataclass(nodetype):
    raise TypeError(
        "register_dataclass: data_fields and meta_fields are required when nodetype is not "
        f"a dataclass. Got nodetype={nodetype!r}.")
  fields = dataclasses.fields(nodetype)
  data = [f.name for f in fields if not f.metadata.get("static", False)]
  meta = [f.name for f in fields if f.metadata.get("static", False)]
  return data, meta


def _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields) -> None:
  given = set(data_fields) | set(meta_fields)
  if dataclasses.is_dataclass(nodetype):
    init_fields = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
    if given != init_fields:
      msg = ("register_dataclass: data_fields and meta_fields must name exactly the dataclass "
             "fields with init=True (minus drop_fields).")
      if missing := init_fields - given:
        msg += f" Missing: {sorted(missing)} (add them to drop_fields to skip them)."
      if unexpected := given - init_fields:
        msg += f" Unexpected: {sorted(unexpected)}."
      raise ValueError(msg)
  if overlap := set(data_fields) & set(meta_fields):
    raise ValueError(
        f"register_dataclass: data_fields and meta_fields overlap: {sorted(overlap)}.")


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
  if not names:
    return lambda _: ()
  if len(names) == 1:
    get_one = operator.attrgetter(names[0])
    return lambda x: (get_one(x),)
  return operator.attrgetter(*names)


def register_dataclass(nodetype: type, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> type:
  """Registers a dataclass-like type: data fields are children, meta fields are static aux data.

  When both field lists are omitted (``nodetype`` must then be a dataclass), fields whose
  metadata has ``static=True`` are meta fields and all others are data fields. Returns
  ``nodetype``, so it can be used as a decorator.

  >>> @register_dataclass
  ... @dataclasses.dataclass
  ... class Point:
  ...   x: float
  ...   tag: str = dataclasses.field(default='p', metadata=dict(static=True))
  >>> tree_flatten_with_path(Point(1.0))[0]
  [((GetAttrKey(name='x'),), 1.0)]
  """
  if data_fields is None or meta_fields is None:
    if (data_fields is None) != (meta_fields is None):
      raise TypeError(
          "register_dataclass: data_fields and meta_fields must both be given or both omitted; "
          f"got data_fields={data_fields!r}, meta_fields={meta_fields!r}.")
    data_fields, meta_fields = _infer_dataclass_fields(nodetype)
  data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
  _check_dataclass_fields(nodetype, data_fields, meta_fields, drop_fields)
  get_data, get_meta = _getter(data_fields), _getter(meta_fields)
  keys = tuple(GetAttrKey(name) for name in data_fields)

  def flatten_fn(x):
    return get_data(x), get_meta(x), keys

  def unflatten_fn(meta, data):
    kwargs = dict(zip(meta_fields, meta))
    kwargs.update(zip(data_fields, data))
    return nodetype(**kwargs)

  _register(nodetype, flatten_fn, unflatten_fn, keyed=True)
  return nodetype


def _static_flatten(x):
  return (), x


def _static_unflatten(aux, _):
  return aux


def register_static(cls: type) -> type:
  """Registers ``cls`` as a childless node: instances are kept in the treedef, not as leaves.

  Instances must be hashable. Returns ``cls`` (usable as a decorator).

  >>> @register_static
  ... class Tag:
  ...   def __hash__(self): return 0
  ...   def __eq__(self, other): return isinstance(other, Tag)
  >>> tree_leaves([Tag(), 1])
  [1]
  """
  _register(cls, _static_flatten, _static_unflatten, keyed=False)
  return cls


# ----------------------------------------------------------------------------------------- Partial

class _StaticPartialFunc:
  """Hashable callable holding a ``functools.partial`` so its bound args stay static.

  ``functools.partial`` merges a nested partial's arguments into the outer one; wrapping the inner
  partial keeps those arguments out of the ``Partial``'s leaves.
  """
  __slots__ = ("wrapped", "func", "args", "keywords")

  def __init__(self, wrapped: functools.partial):
    self.wrapped = wrapped
    self.func, self.args, self.keywords = wrapped.func, wrapped.args, wrapped.keywords

  def __call__(self, *args, **kwargs):
    return self.wrapped(*args, **kwargs)

  def __hash__(self) -> int:
    return hash(self.wrapped)

  def __eq__(self, other: Any) -> bool:
    if isinstance(other, _StaticPartialFunc):
      other = other.wrapped
    return self.wrapped == other

  def __repr__(self) -> str:
    return f"{type(self).__name__}({self.wrapped!r})"


class Partial(functools.partial):
  """A ``functools.partial`` that is a pytree: the bound args/kwargs are children (leaves), the
  function is static aux data.

  >>> p = Partial(lambda a, b: a + b, 1)
  >>> p(2), tree_leaves(p)
  (3, [1])
  >>> tree_map(lambda v: v * 10, p)(2)
  12
  """

  def __new__(cls, func, *args, **kwargs):
    if isinstance(func, functools.partial):
      func = _StaticPartialFunc(func)
    return super().__new__(cls, func, *args, **kwargs)


def _partial_flatten(p: Partial):
  return (p.args, p.keywords), p.func


def _partial_unflatten(func, children):
  args, kwargs = children
  return Partial(func, *args, **kwargs)


_register(Partial, _partial_flatten, _partial_unflatten, keyed=False)


# --------------------------------------------------------------------------------- tree functions

def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None):
  """Flattens ``tree`` into ``(leaves, treedef)``.

  >>> leaves, treedef = tree_flatten({'b': 1, 'a': [2, None]})
  >>> leaves
  [2, 1]
  """
  return flatten(tree, is_leaf)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
  """The leaves of ``tree`` in flattening order.

  >>> tree_leaves([None, 1, (2, None)])
  [1, 2]
  """
  fast = _fast_flatten(tree, is_leaf)
  if fast is not None:
    return fast[0]
  try:
    return optree.tree_leaves(tree, is_leaf, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)
  except TypeError:
    _check_is_leaf(is_leaf)
    raise


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
  """The treedef of ``tree``.

  >>> tree_structure((1, [2])).num_leaves
  2
  """
  fast = _fast_flatten(tree, is_leaf)
  if fast is not None:
    spec = _spec_of(fast[1], tree, is_leaf)
    if spec is not None:
      return spec
  try:
    return sorted_dicts(optree.tree_structure(tree, is_leaf, none_is_leaf=_NONE_IS_LEAF,
                                              namespace=NAMESPACE))
  except TypeError:
    _check_is_leaf(is_leaf)
    raise


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
  """Rebuilds a tree from ``treedef`` and exactly ``treedef.num_leaves`` leaves.

  >>> tree_unflatten(tree_structure({'a': 0, 'b': (0, 0)}), [1, 2, 3])
  {'a': 1, 'b': (2, 3)}
  """
  if not isinstance(leaves, (list, tuple)):
    leaves = list(leaves)
  expected = treedef.num_leaves
  if len(leaves) != expected:
    which = "few" if len(leaves) < expected else "many"
    raise ValueError(f"Too {which} leaves for PyTreeDef; expected {expected}, got {len(leaves)} "
                     f"(tree_unflatten of {treedef}).")
  return treedef.unflatten(leaves)


def _flatten_up_to(treedef: PyTreeDef, tree: Any, fn_name: str, what: str, first: str,
                   prefix: Any = _NO_PREFIX, is_leaf=None, name: str | None = None) -> list:
  """``treedef.flatten_up_to(tree)``, raising JAX's message (the key path of the first difference,
  under ``name``) where the prefix tree itself is at hand (``prefix``), ember's naming both
  structures otherwise. With the prefix at hand it also refuses what optree lets through and JAX
  does not: a dict for an OrderedDict, OrderedDicts in another key order, another defaultdict
  factory."""
  name = name or f"{fn_name} tree"
  try:
    subtrees = treedef.flatten_up_to(tree)
  except ValueError as e:
    if prefix is not _NO_PREFIX:
      msg = _structure_error(prefix, tree, (), name, is_leaf)
      if msg is not None:
        raise ValueError(msg) from None
    raise ValueError(
        f"{fn_name}: the structure of {what} does not match {first} (the structure of {first} "
        f"must be equal to, or a prefix of, that of {what}).\n"
        f"  {first}: {treedef}\n  {what}: {tree_structure(tree)}\n  detail: {e}") from None
  if prefix is not _NO_PREFIX and optree.tree_structure(
      tree, is_leaf, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE) != treedef:
    msg = _structure_error(prefix, tree, (), name, is_leaf)
    if msg is not None:
      raise ValueError(msg)
  return subtrees


def _structure_error(prefix, full, path: tuple, name: str, is_leaf) -> str | None:
  """JAX's message for the first place where ``full`` does not have ``prefix``'s structure (None
  where it does): the key path, what kind of difference, and the two subtrees' types."""
  if (is_leaf is not None and is_leaf(prefix)) or (prefix is not None and optree.tree_is_leaf(
      prefix, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)):
    return None  # a prefix leaf stands for any subtree
  if prefix is None and full is None:
    return None
  where = f"pytree structure error: {{}} at key path\n    {name}{''.join(path)}\n"
  said = f"At that key path, the prefix pytree {name} has a subtree of type"
  if type(prefix) is not type(full):
    return (where.format("different types") + f"{said}\n    {type(prefix)}\nbut at the same key "
            f"path the full pytree has a subtree of different type\n    {type(full)}.")
  if isinstance(prefix, (list, tuple)) and len(prefix) != len(full):
    kind = type(prefix).__name__
    return (where.format(f"different lengths of {kind}") + f"{said} {kind} of length "
            f"{len(prefix)}, but the full pytree has a subtree of the same type but of length "
            f"{len(full)}.")
  p, f = _one_level(prefix), _one_level(full)
  if len(p.children) != len(f.children):
    pk, fk = _child_keys(prefix, p), _child_keys(full, f)
    only = [k for k in pk if k not in fk] + [k for k in fk if k not in pk]
    return (where.format("different numbers of pytree children") + f"{said}\n    "
            f"{type(prefix)}\nwith {len(pk)} child keys\n    {' '.join(map(str, pk))}\nbut at "
            f"the same key path the full pytree has a subtree of the same type but with "
            f"{len(fk)} child keys\n    {' '.join(map(str, fk))}\nso the symmetric difference on "
            f"key sets is\n    {' '.join(map(str, only))}")
  pm, fm = _metadata(prefix, p), _metadata(full, f)
  if _differ(pm, fm):
    pm, fm = str(pm), str(fm)
    diff = "\n".join("    " + line for line in difflib.ndiff([pm], [fm]))  # as JAX lays it out
    return (where.format("different pytree metadata") + f"{said}\n    {type(prefix)}\nwith "
            f"metadata\n    {pm}\nbut at the same key path the full pytree has a subtree of the "
            f"same type but with metadata\n    {fm}\nso the diff in the metadata at these pytree "
            f"nodes is\n{diff}")
  keys = [str(_to_key(a[0])) for a in optree.tree_flatten_with_accessor(
      prefix, lambda x: x is not prefix, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)[0]]
  for key, pc, fc in zip(keys, p.children, f.children):
    msg = _structure_error(pc, fc, path + (key,), name, is_leaf)
    if msg is not None:
      return msg
  return None


def _one_level(node):
  return optree.tree_flatten_one_level(node, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)


def _child_keys(node, level) -> list:
  """A node's child keys as JAX lists them: a dict's keys, else the children's positions."""
  return list(level.entries) if isinstance(node, dict) else list(range(len(level.children)))


def _metadata(node, level) -> Any:
  """A node's metadata as JAX compares and prints it: a dict's keys (in its order: sorted for a
  plain dict), a defaultdict's factory with them, a custom node's auxiliary data."""
  if isinstance(node, collections.defaultdict):
    return (node.default_factory, tuple(level.entries))
  if isinstance(node, dict):
    return tuple(level.entries)
  return None if isinstance(node, (list, tuple)) else level.metadata


def _differ(a, b) -> bool:
  try:
    return bool(a != b)
  except Exception:  # noqa: BLE001 (metadata without a plain ==, e.g. arrays: compare the text)
    return str(a) != str(b)


def _rest_leaves(fn_name: str, treedef: PyTreeDef, rest: tuple, first: Any = _NO_PREFIX,
                 is_leaf=None) -> list[list]:
  return [
      _flatten_up_to(treedef, r, fn_name, f"argument {i + 1}", "the first tree", first, is_leaf)
      for i, r in enumerate(rest)
  ]


def _fast_rest_leaves(jtd, rest: tuple) -> list[list] | None:
  """The other trees' leaves up to the first tree's jaxlib treedef, or None where one does not
  match it (or holds what optree would read otherwise): the optree path then raises the error."""
  others = []
  for r in rest:
    try:
      subtrees = jtd.flatten_up_to(r)
    except Exception:  # noqa: BLE001
      return None
    others.append(subtrees)
  return others


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Applies ``f`` leafwise; ``rest`` trees must have ``tree``'s structure (or it as a prefix).

  >>> tree_map(lambda x, y: x + y, {'a': 1, 'b': (2, None)}, {'a': 10, 'b': (20, None)})
  {'a': 11, 'b': (22, None)}
  """
  fast = _fast_flatten(tree, is_leaf)
  if fast is not None:
    leaves, jtd = fast
    if not rest:
      return jtd.unflatten(list(map(f, leaves)))
    others = _fast_rest_leaves(jtd, rest)
    if others is not None:
      return jtd.unflatten(list(map(f, leaves, *others)))
  leaves, treedef = flatten(tree, is_leaf)
  if not rest:
    return treedef.unflatten(map(f, leaves))
  others = _rest_leaves("tree_map", treedef, rest, tree, is_leaf)
  return treedef.unflatten(map(f, leaves, *others))


class _Unspecified:
  def __repr__(self) -> str:
    return "<unspecified>"


_UNSPECIFIED = _Unspecified()


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any,
                initializer: Any = _UNSPECIFIED,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """``functools.reduce`` over the leaves of ``tree``.

  >>> tree_reduce(lambda a, b: a + b, [1, (2, 3)])
  6
  >>> tree_reduce(lambda a, b: a + b, [], 10)
  10
  """
  leaves = tree_leaves(tree, is_leaf)
  if initializer is _UNSPECIFIED:
    return functools.reduce(function, leaves)
  return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
  """True if every leaf is truthy (and for a tree without leaves).

  >>> tree_all([1, True, (1, None)]), tree_all({'a': 0})
  (True, False)
  """
  return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
  """Turns an outer-of-inner tree into an inner-of-outer tree. ``inner_treedef=None`` infers it
  from the first outer subtree.

  >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
  ([1, 3], [2, 4])
  """
  if inner_treedef is None:
    first = outer_treedef.flatten_up_to(pytree_to_transpose)[0]
    inner_treedef = tree_structure(first)
  leaves, treedef = flatten(pytree_to_transpose)
  inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
  if treedef.num_leaves != inner_size * outer_size:
    expected = outer_treedef.compose(inner_treedef)
    raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}\n(tree_transpose: the structure of "
                    "pytree_to_transpose, first, must be outer_treedef composed with "
                    "inner_treedef, second.)")
  rows = [leaves[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
  columns = zip(*rows) if rows else [()] * inner_size
  return inner_treedef.unflatten([outer_treedef.unflatten(col) for col in columns])


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
  """Repeats each leaf of ``prefix_tree`` over the matching subtree of ``full_tree``.

  >>> tree_broadcast([1, {'a': 2}], [(3, 4), {'a': [5, 6]}])
  [(1, 1), {'a': [2, 2]}]
  """
  prefix_leaves, prefix_def = flatten(prefix_tree, is_leaf)
  subtrees = _flatten_up_to(prefix_def, full_tree, "tree_broadcast", "full_tree", "prefix_tree",
                            prefix_tree, is_leaf, "broadcast_prefix prefix_tree")
  return tree_structure(full_tree).unflatten(_repeat_over(prefix_leaves, subtrees))


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list:
  """One leaf of ``prefix_tree`` per leaf of ``full_tree`` (each repeated over the subtree it
  covers), as a flat list; ValueError if ``prefix_tree`` is not a prefix of ``full_tree``.
  How vmap's in_axes, shard_map's specs and jit's shardings reach the leaves they describe.

  >>> broadcast_prefix((None, 0), ([1, 2], {'a': 3, 'b': 4}), is_leaf=lambda x: x is None)
  [None, None, 0, 0]
  """
  prefix_leaves, prefix_def = flatten(prefix_tree, is_leaf)
  return _repeat_over(prefix_leaves, prefix_def.flatten_up_to(full_tree))


def _repeat_over(prefix_leaves: list, subtrees: list) -> list:
  out = []
  for leaf, sub in zip(prefix_leaves, subtrees):
    out.extend([leaf] * tree_structure(sub).num_leaves)
  return out


# ------------------------------------------------------------------------------------ paths

_Kind = optree.PyTreeKind
_DICT_KINDS = frozenset({_Kind.DICT, _Kind.ORDEREDDICT, _Kind.DEFAULTDICT})
_SEQ_KINDS = frozenset({_Kind.TUPLE, _Kind.LIST, _Kind.DEQUE})


def _to_key(entry: optree.PyTreeEntry) -> Any:
  """Converts one optree accessor entry into an ember key object."""
  kind = entry.kind
  if kind in _DICT_KINDS:
    return DictKey(entry.entry)
  if kind in _SEQ_KINDS:
    return SequenceKey(entry.entry)
  if kind is _Kind.CUSTOM:
    if entry.type in _KEYED_TYPES:
      return entry.entry
    return FlattenedIndexKey(entry.entry)
  return GetAttrKey(entry.field)  # namedtuple / struct sequence


def _to_path(accessor: optree.PyTreeAccessor) -> KeyPath:
  return tuple(map(_to_key, accessor))


def _flatten_with_path_pred(tree: Any, is_leaf: Callable[[KeyPath, Any], bool]):
  """Slow path for ``is_leaf_takes_path=True``: walks node by node, then re-flattens a copy of
  the tree whose chosen leaves are replaced by placeholders to get the treedef."""
  out: list[tuple[KeyPath, Any]] = []

  def visit(node: Any, path: KeyPath) -> Any:
    if is_leaf(path, node) or optree.tree_is_leaf(
        node, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE):
      out.append((path, node))
      return _PLACEHOLDER
    accessors, children, spec = optree.tree_flatten_with_accessor(
        node, lambda x: x is not node, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)
    return spec.unflatten(
        [visit(c, path + (_to_key(a[0]),)) for a, c in zip(accessors, children)])

  skeleton = visit(tree, ())
  return out, tree_structure(skeleton)


_PLACEHOLDER = object()


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False):
  """Like ``tree_flatten`` but each leaf comes with its key path: ``([(path, leaf)], treedef)``.

  With ``is_leaf_takes_path=True``, ``is_leaf`` is called as ``is_leaf(path, node)``.

  >>> tree_flatten_with_path({'a': [1]})[0]
  [((DictKey(key='a'), SequenceKey(idx=0)), 1)]
  """
  _check_is_leaf(is_leaf)
  if is_leaf_takes_path and is_leaf is not None:
    return _flatten_with_path_pred(tree, is_leaf)
  _fast_flatten(tree, is_leaf)  # raises JAX's error for dict keys of no common order
  accessors, leaves, treedef = optree.tree_flatten_with_accessor(
      tree, is_leaf, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)
  return list(zip(map(_to_path, accessors), leaves)), sorted_dicts(treedef)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list:
  """The ``(path, leaf)`` pairs of ``tree``.

  >>> tree_leaves_with_path((1, None, 2))
  [((SequenceKey(idx=0),), 1), ((SequenceKey(idx=2),), 2)]
  """
  return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
  """Like ``tree_map`` but calls ``f(path, leaf, *rest_leaves)``.

  >>> tree_map_with_path(lambda p, x: keystr(p), {'a': 1, 'b': [2]})
  {'a': "['a']", 'b': ["['b'][0]"]}
  """
  pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
  paths = [p for p, _ in pairs]
  leaves = [x for _, x in pairs]
  # (an is_leaf taking paths cannot judge a subtree alone: ember's message then, not JAX's)
  others = _rest_leaves("tree_map_with_path", treedef, rest,
                        _NO_PREFIX if is_leaf_takes_path else tree, is_leaf)
  return treedef.unflatten(map(f, paths, leaves, *others))


# ------------------------------------------------------------------------------ treedef helpers

def treedef_is_leaf(treedef: PyTreeDef) -> bool:
  """True for a single-node treedef: a leaf, ``None`` or an empty container.

  >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure((1,)))
  (True, False)
  """
  return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
  """The treedefs of the root's children.

  >>> [t.num_leaves for t in treedef_children(tree_structure({'a': (1, 2), 'b': None}))]
  [2, 0]
  """
  return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
  """A tuple treedef whose children are ``treedefs``.

  >>> treedef_tuple([tree_structure(1), tree_structure((1, 2))]) == tree_structure((1, (1, 2)))
  True
  """
  return optree.treespec_tuple(
      list(treedefs), none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
  """True if every element of ``iterable`` is a leaf (``None`` is not).

  >>> all_leaves([1, 2.0]), all_leaves([1, None]), all_leaves([(1,)])
  (True, False, False)
  """
  _check_is_leaf(is_leaf)
  return optree.all_leaves(
      iterable, is_leaf, none_is_leaf=_NONE_IS_LEAF, namespace=NAMESPACE)


def build_tree(treedef: PyTreeDef, xs: Any) -> Any:
  """Builds a tree of ``treedef``'s structure from nested iterables: each node of ``treedef``
  takes an iterable with one item per child, each leaf takes the item itself.

  >>> build_tree(tree_structure({'a': 0, 'b': (0, 0)}), [1, [2, 3]])
  {'a': 1, 'b': (2, 3)}
  """
  if treedef.num_nodes == 1 and treedef.num_leaves == 1:
    return xs
  children = treedef.children()
  items = list(xs)
  if len(items) != len(children):
    raise ValueError(
        f"build_tree: the node {treedef.one_level()} has {len(children)} children, "
        f"got {len(items)} items.")
  built = [build_tree(c, x) for c, x in zip(children, items)]
  return treedef.one_level().unflatten(built)
