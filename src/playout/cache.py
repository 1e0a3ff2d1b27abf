"""Where playout keeps what it computes once per machine (bear-off database, compiled pattern
tables): ``$PLAYOUT_CACHE_DIR``, else ``$XDG_CACHE_HOME/playout``, else ``~/.cache/playout``
(the XDG Base Directory convention).  Numba's compiled kernels live beside the sources
(:mod:`playout.jitcache`)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache folder (not created here; writers create it and tolerate a read-only one)."""
    env = os.environ.get("PLAYOUT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "playout"
