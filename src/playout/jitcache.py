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


def module_dependencies(namespace: dict, package: str = "playout") -> list[str]:
    """Source files of every ``package`` module that ``namespace`` reaches, transitively.

    Follows the namespace's modules, functions and numba dispatchers (by their
    ``__module__``) into those modules' own globals, so a kernel that inlines a
    primitive two imports away still depends on that primitive's file.  This module
    itself is left out (editing it changes no kernel).  Over-approximate by design: a
    file reached only for Python-level code costs a recompile, never a stale kernel.
    """
    import sys
    import types

    seen: set[str] = set()
    files: set[str] = set()
    todo = [namespace]
    while todo:
        ns = todo.pop()
        for obj in list(ns.values()):
            if isinstance(obj, types.ModuleType):
                name = obj.__name__
            else:
                fn = getattr(obj, "py_func", obj)  # a numba dispatcher wraps its Python function
                name = getattr(fn, "__module__", None) if callable(fn) else None
            if not name or name in seen or name == __name__:
                continue
            if name != package and not name.startswith(package + "."):
                continue
            seen.add(name)
            mod = sys.modules.get(name)
            path = getattr(mod, "__file__", None)
            if path:
                files.add(path)
                todo.append(vars(mod))
    return sorted(files)


def flush_stale_caches(namespace: dict, dependencies: list[str] | None = None) -> int:
    """Drop the on-disk numba cache of every ``@njit(cache=True)`` function in
    ``namespace`` (defined in that module) whose cache index is older than one of its dependencies: the
    files listed in ``dependencies`` and every project module the namespace reaches
    (:func:`module_dependencies`), so a list that misses a file cannot leave a stale
    kernel behind.

    Numba invalidates a cached function only when its *own* file changes; a
    kernel that inlines primitives from another module would otherwise keep
    running stale machine code after that module is edited.  Returns the number
    of caches flushed.  Uses numba's ``Cache.flush`` (a no-op without JIT).
    """
    import os

    package = str(namespace.get("__name__") or "playout").partition(".")[0]
    paths = set(dependencies or ()) | set(module_dependencies(namespace, package))
    mtimes = []
    for p in paths:
        try:
            mtimes.append(os.path.getmtime(p))
        except OSError:
            continue
    if not mtimes:
        return 0
    newest = max(mtimes)
    flushed = 0
    own = namespace.get("__name__")
    for obj in list(namespace.values()):
        if own and getattr(getattr(obj, "py_func", None), "__module__", own) != own:
            continue  # a kernel imported from elsewhere: its own module keeps its cache
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


def is_cold(*dispatchers, sig: tuple | None = None) -> bool:
    """Whether calling one of ``dispatchers`` (``@njit(cache=True)`` functions) will compile:
    it has no machine code in this process yet and numba's on-disk cache holds none that is
    valid for its current source file (no index, or an index stamped for an older source).
    With ``sig`` (a tuple of numba types) the cache must hold that signature; without, any.

    False under ``NUMBA_DISABLE_JIT`` (plain functions) and for functions without a cache.
    Reads numba's cache index (``IndexDataCacheFile._load_index`` and ``Cache._index_key``,
    numba 0.59-0.68); any error reading it counts as cold.
    """
    for d in dispatchers:
        cache = getattr(d, "_cache", None)
        cache_file = getattr(cache, "_cache_file", None)
        if cache_file is None:
            continue
        if getattr(d, "overloads", None) and (sig is None or tuple(sig) in d.overloads):
            continue
        try:
            index = cache_file._load_index()
            if not index:
                return True
            if sig is not None and cache._index_key(tuple(sig), d.targetctx.codegen()) not in index:
                return True
        except Exception:  # noqa: BLE001 - unreadable index: numba would recompile too
            return True
    return False


_announced: set[str] = set()


def announce_compile(what: str, estimate: str, *dispatchers, sig: tuple | None = None) -> bool:
    """Print one stderr line before a wait for numba to compile ``what``; checked once per
    process (the first call for ``what``).

    ``estimate``: how long it takes on the reference 2-core machine (e.g. ``"~40 s"``), from
    ``benchmarks/compile_cost.py``.  Nothing is printed when every dispatcher's cache is warm
    (:func:`is_cold`; ``sig`` as there).  stderr, never stdout: GTP engines and ``--json``
    output keep stdout clean.  Returns whether it printed.
    """
    import sys

    if what in _announced:
        return False
    _announced.add(what)  # checked once per process: later calls cost nothing
    if not is_cold(*dispatchers, sig=sig):
        return False
    print(f"playout: compiling {what} (first use after an install or an update, {estimate} on "
          f"2 cores; cached afterwards; `playout warm-up` does it ahead)", file=sys.stderr,
          flush=True)
    return True
