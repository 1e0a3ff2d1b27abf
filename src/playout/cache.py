"""Where playout keeps what it computes once per machine (bear-off database, compiled pattern
tables): ``$PLAYOUT_CACHE_DIR``, else ``$XDG_CACHE_HOME/playout``, else ``~/.cache/playout``
(the XDG Base Directory convention).  Numba's compiled kernels live beside the sources
(:mod:`playout.jitcache`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, IO


def cache_dir() -> Path:
    """The cache folder (not created here; writers create it and tolerate a read-only one)."""
    env = os.environ.get("PLAYOUT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "playout"


def write_atomic(path: Path, write: Callable[[IO[bytes]], None]) -> bool:
    """Write ``path`` through ``write(file)`` into a temporary sibling, then rename it into place
    (``os.replace`` is atomic, so processes that fill the cache together never read half a
    file).  Creates the parent folder; returns False, leaving nothing behind, when the cache
    folder cannot be written (a read-only home): callers then recompute each time."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            write(f)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
