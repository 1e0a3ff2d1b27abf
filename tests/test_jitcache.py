"""Numba cache upkeep: a kernel's cache is dropped when any project file it reaches changes."""

from __future__ import annotations

import importlib
import os
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


def _compiled(tmp_path, monkeypatch, name):
    pkg = _package(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    top = importlib.import_module(f"{name}.top")
    assert jitcache.flush_stale_caches(vars(top)) == 0  # at import, as the package's modules do
    assert top.k(1) == 1  # compiles and writes the cache
    if not os.path.exists(top.k._cache._cache_file._index_path):
        pytest.skip("numba wrote no cache index (JIT disabled?)")
    return pkg, top


def _edit(path, text):
    """Write ``text`` and move the mtime on, as an editor's save does."""
    path.write_text(text)
    later = time.time() + 5
    os.utime(path, (later, later))


def test_a_changed_dependency_flushes_the_cache(tmp_path, monkeypatch):
    pkg, top = _compiled(tmp_path, monkeypatch, "jcpkg_b")
    assert jitcache.flush_stale_caches(vars(top)) == 0  # nothing changed since the cache was written
    _edit(pkg / "mid.py", (pkg / "mid.py").read_text() + "# edited\n")  # reached only through another module
    assert jitcache.flush_stale_caches(vars(top), []) == 1  # found without being listed
    assert top.k._cache._cache_file._load_index() == {}  # numba will not load it
    assert top.k(2.5) == 2.5  # a compile (a new signature: k(1) is in memory) writes this digest
    assert jitcache.flush_stale_caches(vars(top)) == 0


def test_a_touched_but_unchanged_dependency_keeps_the_cache(tmp_path, monkeypatch):
    """git checkout or a build tool moves mtimes without changing a byte: no recompile."""
    pkg, top = _compiled(tmp_path, monkeypatch, "jcpkg_c")
    later = time.time() + 3600
    os.utime(pkg / "leaf.py", (later, later))
    os.utime(pkg / "mid.py", (later, later))
    assert jitcache.flush_stale_caches(vars(top)) == 0
    assert top.k._cache._cache_file._load_index()  # the compiled code stays on disk, valid


def test_an_old_process_writing_after_an_edit_cannot_leave_a_trusted_stale_cache(tmp_path, monkeypatch):
    """The race seen with two processes in one checkout: a process that imported the old
    sources compiles (a new signature) after an edit, so its index is newer than the edit; an
    mtime check trusted it, the content digest does not."""
    pkg, top = _compiled(tmp_path, monkeypatch, "jcpkg_d")
    _edit(pkg / "leaf.py", (pkg / "leaf.py").read_text() + "# edited\n")
    assert top.k(1.5) == 1.5  # the old process compiles again: its index is written after the edit
    index = top.k._cache._cache_file._index_path
    assert os.path.getmtime(index) >= os.path.getmtime(pkg / "mid.py")
    # a process importing the edited sources computes their digest and rejects that index
    assert jitcache.flush_stale_caches(vars(top)) == 1
    assert top.k._cache._cache_file._load_index() == {}  # nothing left to load: it recompiles


def test_sources_digest_follows_contents_not_mtimes(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    d = jitcache.sources_digest([str(a), str(b)])
    assert d == jitcache.sources_digest([str(b), str(a)])  # order does not matter
    later = time.time() + 10
    os.utime(a, (later, later))
    assert jitcache.sources_digest([str(a), str(b)]) == d
    _edit(a, "x = 3\n")
    assert jitcache.sources_digest([str(a), str(b)]) != d
    missing = str(tmp_path / "missing.py")
    assert jitcache.sources_digest([str(a), missing]) == jitcache.sources_digest([str(a)])


def test_the_rollout_kernels_depend_on_the_bearoff_database():
    """The kind of fault that made the explicit lists unsafe: rollout.py did not list bearoff.py."""
    from playout.backgammon import rollout

    deps = {os.path.basename(p) for p in jitcache.module_dependencies(vars(rollout))}
    assert {"bearoff.py", "classes.py", "evaluators.py", "moves.py", "net.py"} <= deps
    assert "jitcache.py" not in deps
