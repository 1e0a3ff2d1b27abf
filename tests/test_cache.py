"""playout.cache: the per-machine cache folder and its atomic writer."""

import numpy as np

from playout.cache import cache_dir, write_atomic


def test_cache_dir_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("PLAYOUT_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("PLAYOUT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x" / "playout"


def test_write_atomic_writes_and_replaces(tmp_path):
    path = tmp_path / "sub" / "a.npz"
    assert write_atomic(path, lambda f: np.savez(f, v=np.arange(3)))
    assert write_atomic(path, lambda f: np.savez(f, v=np.arange(5)))
    with np.load(path) as z:
        assert z["v"].tolist() == [0, 1, 2, 3, 4]
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.npz"]  # no temporary left


def test_write_atomic_unwritable_folder_returns_false(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")  # mkdir under a file fails even for root
    assert not write_atomic(blocker / "sub" / "a.npz", lambda f: np.savez(f, v=np.arange(3)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_write_atomic_failing_writer_leaves_nothing(tmp_path):
    def bad(f):
        f.write(b"half")
        raise OSError("disk full")

    assert not write_atomic(tmp_path / "a.npz", bad)
    assert list(tmp_path.iterdir()) == []
