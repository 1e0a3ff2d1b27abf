"""Numba cache upkeep: a kernel's cache is dropped when any project file it reaches changes."""

from __future__ import annotations

import importlib
import os
import sys
import time

import pytest

from playout import jitcache


def _package(tmp_path, name):
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "leaf.py").write_text("from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    (pkg / "mid.py").write_text(f"from {name}.leaf import f\n\ndef g(x):\n    return f(x) * 2\n")
    (pkg / "top.py").write_text(
        f"from numba import njit\nfrom {name} import mid\nfrom {name}.leaf import f\n\n"
        "@njit(cache=True)\ndef k(x):\n    return f(x) - 1\n")
    return pkg


def test_dependencies_are_found_transitively_through_modules_and_dispatchers(tmp_path, monkeypatch):
    pkg = _package(tmp_path, "jcpkg_a")
    monkeypatch.syspath_prepend(str(tmp_path))
    top = importlib.import_module("jcpkg_a.top")
    deps = jitcache.module_dependencies(vars(top), package="jcpkg_a")
    assert str(pkg / "leaf.py") in deps and str(pkg / "mid.py") in deps
    assert not any("numba" in d for d in deps)  # only the named package


def test_a_newer_dependency_flushes_the_cache(tmp_path, monkeypatch):
    pkg = _package(tmp_path, "jcpkg_b")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    top = importlib.import_module("jcpkg_b.top")
    assert top.k(1) == 1  # compiles and writes the cache
    index = top.k._cache._cache_file._index_path
    if not os.path.exists(index):
        pytest.skip("numba wrote no cache index (JIT disabled?)")
    assert jitcache.flush_stale_caches(vars(top)) == 0  # no dependency is newer than the cache
    now = time.time()
    os.utime(index, (now - 10, now - 10))  # the cache was written, then
    os.utime(pkg / "mid.py", (now - 5, now - 5))  # a file reached only through another module changed
    assert jitcache.flush_stale_caches(vars(top), []) == 1  # found without being listed
    assert jitcache.flush_stale_caches(vars(top)) == 0  # flushed: no index left to be stale


def test_the_rollout_kernels_depend_on_the_bearoff_database():
    """The kind of fault that made the explicit lists unsafe: rollout.py did not list bearoff.py."""
    from playout.backgammon import rollout

    deps = {os.path.basename(p) for p in jitcache.module_dependencies(vars(rollout))}
    assert {"bearoff.py", "classes.py", "evaluators.py", "moves.py", "net.py"} <= deps
    assert "jitcache.py" not in deps
