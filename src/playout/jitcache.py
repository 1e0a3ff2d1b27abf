"""Keeping numba's on-disk caches honest across modules.

Numba re-validates a cached ``@njit(cache=True)`` function only against its own
source file.  A kernel that inlines jitted functions from other modules would
keep running stale machine code after one of those modules is edited, so each
such module calls :func:`flush_stale_caches` at import with the files it
depends on.
"""

from __future__ import annotations

from pathlib import Path


def siblings(module_file: str, *names: str) -> list[str]:
    """Paths of the files ``names`` in the folder of ``module_file`` (pass ``__file__``)."""
    here = Path(module_file).parent
    return [str(here / n) for n in names]


def flush_stale_caches(namespace: dict, dependencies: list[str]) -> int:
    """Drop the on-disk numba cache of every ``@njit(cache=True)`` function in
    ``namespace`` whose cache index is older than one of the ``dependencies``
    (source files of the jitted functions it calls).

    Numba invalidates a cached function only when its *own* file changes; a
    kernel that inlines primitives from another module would otherwise keep
    running stale machine code after that module is edited.  Returns the number
    of caches flushed.  Uses numba's ``Cache.flush`` (a no-op without JIT).
    """
    import os

    try:
        newest = max(os.path.getmtime(p) for p in dependencies)
    except (OSError, ValueError):
        return 0
    flushed = 0
    for obj in list(namespace.values()):
        cache = getattr(obj, "_cache", None)
        index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
        if index is None:
            continue
        try:
            if os.path.getmtime(index) < newest:
                cache.flush()
                flushed += 1
        except Exception:  # no index yet (nothing cached), or an unwritable cache dir
            continue
    return flushed
