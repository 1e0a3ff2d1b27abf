"""Process helpers for the kill -9 tests (Linux /proc)."""

from __future__ import annotations

import os


def children(pid: int) -> list[int]:
    """Pids whose parent is ``pid``."""
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(d))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return kids


def gone(pid: int) -> bool:
    """True once ``pid`` has exited (a zombie waiting for a reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
