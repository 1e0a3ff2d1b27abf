"""Keeping numba's on-disk caches honest across modules.

Numba re-validates a cached ``@njit(cache=True)`` function only against its own
source file.  A kernel that inlines jitted functions from other modules would
keep running stale machine code after one of those modules is edited, so each
such module calls :func:`flush_stale_caches` at import: it stamps the module's
caches with a digest of the contents of every project file they reach, so numba
never loads a cache written for other contents.
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


_digests: dict[tuple[str, int, int], bytes] = {}


def _file_digest(path: str) -> bytes:
    """SHA-1 of the file's bytes (b"" for a missing file), kept per (path, mtime, size)."""
    import hashlib
    import os

    try:
        st = os.stat(path)
    except OSError:
        return b""
    key = (path, st.st_mtime_ns, st.st_size)
    d = _digests.get(key)
    if d is None:
        with open(path, "rb") as f:
            d = hashlib.sha1(f.read()).digest()
        _digests[key] = d
    return d


def sources_digest(paths) -> str:
    """Hex SHA-1 over the contents of ``paths`` (sorted; a missing file counts as empty):
    changes exactly when one of the files' bytes change, not when only their mtimes do."""
    import hashlib

    h = hashlib.sha1()
    for p in sorted(set(paths)):
        h.update(_file_digest(p))
    return h.hexdigest()


def flush_stale_caches(namespace: dict, dependencies: list[str] | None = None) -> int:
    """Tie the on-disk numba cache of every ``@njit(cache=True)`` function defined in
    ``namespace``'s module to the *contents* of its dependencies, so that a cache written
    for other contents is never loaded.  Call it at import, before the kernels run.

    Numba stamps a cache index with its function's own source file (mtime and size) and
    ignores an index whose stamp differs; a kernel that inlines primitives from another
    module would otherwise keep running stale machine code after that module is edited.
    Here each dispatcher's stamp becomes ``(numba's stamp, digest)``, the digest being
    :func:`sources_digest` of the files in ``dependencies`` and of every project module the
    namespace reaches (:func:`module_dependencies`, so a list that misses a file cannot leave
    a stale kernel behind), as this process read them.  A process still running old code
    that compiles after an edit writes its index with the old digest, which every process
    importing the new sources then rejects (an mtime comparison trusted it, being newer than
    the edit); touching a file without changing it costs no recompile.

    Returns the number of kernels whose on-disk cache was written for other contents (numba
    ignores it and recompiles them on their first call; 0 without JIT; functions without a
    cache are skipped).
    """
    import os

    package = str(namespace.get("__name__") or "playout").partition(".")[0]
    paths = set(dependencies or ()) | set(module_dependencies(namespace, package))
    digest = sources_digest(paths)
    stale = 0
    own = namespace.get("__name__")
    for obj in list(namespace.values()):
        if own and getattr(getattr(obj, "py_func", None), "__module__", own) != own:
            continue  # a kernel imported from elsewhere: its own module keeps its cache
        cache = getattr(obj, "_cache", None)
        cache_file = getattr(cache, "_cache_file", None)
        if cache_file is None or not hasattr(cache_file, "_source_stamp"):
            continue
        base = getattr(cache_file, "_playout_base_stamp", None)
        if base is None:
            base = cache_file._playout_base_stamp = cache_file._source_stamp
        cache_file._source_stamp = (base, digest)
        # numba's own reader: an index with another stamp loads as {} (and the next compile
        # overwrites it); an index numba wrote always holds at least one overload
        if os.path.exists(cache_file._index_path) and not cache_file._load_index():
            stale += 1
    return stale


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
