"""Bounded caches: every cache ember keeps (compiled programs, traced and transformed jaxprs,
signatures) is a ``BoundedCache``, so a long process never grows without limit, and
``ember.clear_caches()`` empties them all.

Example:
    >>> from ember.core.cache import BoundedCache
    >>> cache = BoundedCache(2)
    >>> for k in "abc":
    ...   _ = cache.memo(k, lambda: k.upper())
    >>> sorted(cache)
    ['b', 'c']
"""
from __future__ import annotations

import threading
import weakref
from typing import Callable

__all__ = ["BoundedCache"]


class BoundedCache(dict):
  """A dict of at most ``maxsize`` entries: past that, the oldest insertion is evicted (first in,
  first out; a hit does not refresh an entry, so lookups stay plain dict lookups that cost
  nothing extra on hot paths).
  """

  _every: list = []  # weak references to every cache, for clear_all (ember.clear_caches)

  def __init__(self, maxsize: int = 4096):
    super().__init__()
    self.maxsize = maxsize
    self._lock = threading.Lock()
    every = BoundedCache._every
    if len(every) > 1024 and len(every) & (len(every) - 1) == 0:  # at powers of two: prune
      every[:] = [r for r in every if r() is not None]
    every.append(weakref.ref(self))

  @staticmethod
  def clear_all() -> None:
    """Empty every BoundedCache of the process (``ember.clear_caches``)."""
    for ref in BoundedCache._every:
      cache = ref()
      if cache is not None:
        cache.clear()

  def __setitem__(self, key, value):
    with self._lock:
      if key not in self and len(self) >= self.maxsize:
        try:
          del self[next(iter(self))]
        except (StopIteration, KeyError, RuntimeError):
          pass
      super().__setitem__(key, value)

  def memo(self, key, build: Callable):
    """The value cached under ``key``, built by ``build()`` on a miss."""
    out = self.get(key)
    if out is None:
      out = self[key] = build()
    return out
