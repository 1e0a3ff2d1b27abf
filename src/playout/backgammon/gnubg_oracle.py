"""GNU Backgammon 1.07's own match analysis, the oracle of :mod:`playout.backgammon.analysis`.

:func:`gnubg_analyse` runs Debian ``gnubg -t`` (``analyse match`` at a depth, then ``show
statistics match``) on a ``.mat``/SGF file; :func:`parse_gnubg_statistics` reads the per-player
figures it prints (error and luck rates in mEMG, decision counts and marks).
"""

from __future__ import annotations

from playout.backgammon.analysis import AnalysisError

_STAT_ROWS = {
    ("Chequerplay statistics", "Total moves"): "total_moves",
    ("Chequerplay statistics", "Unforced moves"): "unforced_moves",
    ("Chequerplay statistics", "Moves marked doubtful"): "checker_doubtful",
    ("Chequerplay statistics", "Moves marked bad"): "checker_bad",
    ("Chequerplay statistics", "Moves marked very bad"): "checker_very_bad",
    ("Chequerplay statistics", "Error total EMG (MWC)"): "checker_error_total_emg",
    ("Chequerplay statistics", "Error rate mEMG (MWC)"): "checker_error_rate_memg",
    ("Luck statistics", "Luck total EMG (MWC)"): "luck_total_emg",
    ("Luck statistics", "Luck rate mEMG (MWC)"): "luck_rate_memg",
    ("Cube statistics", "Total cube decisions"): "cube_decisions",
    ("Cube statistics", "Close or actual cube decisions"): "close_cube_decisions",
    ("Cube statistics", "Error total EMG (MWC)"): "cube_error_total_emg",
    ("Cube statistics", "Error rate mEMG (MWC)"): "cube_error_rate_memg",
    ("Overall statistics", "Error total EMG (MWC)"): "overall_error_total_emg",
    ("Overall statistics", "Error rate mEMG (MWC)"): "overall_error_rate_memg",
}
# money sessions print "Error total EMG (Points)" etc.
_STAT_ALIASES = {"(Points)": "(MWC)", "(ppg)": "(MWC)"}


def parse_gnubg_statistics(text: str) -> list[dict]:
    """Per player (gnubg's player 0, 1) the figures of ``show statistics match`` output.

    Error figures are made positive (gnubg prints errors with a minus sign).
    """
    import re

    out = [{}, {}]
    section = None
    for line in text.splitlines():
        s = line.strip()
        if s.endswith("statistics") and len(s.split()) == 2:
            section = s
            continue
        for a, b in _STAT_ALIASES.items():
            line = line.replace(a, b)
        for (sec, label), key in _STAT_ROWS.items():
            if sec == section and line.startswith(label):
                nums = re.findall(r"[-+]?\d+(?:\.\d+)?(?=\s|$)", line[len(label):])
                nums = [float(n) for n in nums]
                if "(MWC)" in label:  # value (pct) value (pct): the values are items 0 and 2
                    vals = [nums[0], nums[2]] if len(nums) >= 4 else nums[:2]
                else:
                    vals = nums[:2]
                for k in (0, 1):
                    v = vals[k]
                    if "error" in key:
                        v = abs(v)
                    out[k][key] = v
    return out


def gnubg_analyse(path, plies: int = 0, *, timeout: float = 300.0) -> list[dict]:
    """Run Debian ``gnubg -t`` on a ``.mat``/``.sgf`` match: ``analyse match`` at ``plies``
    (gnubg numbering) for checker play and cube, pruning net off (as our search, which
    scores every play), then ``show statistics match``; returns
    :func:`parse_gnubg_statistics`.  :class:`AnalysisError` if gnubg is missing, hangs
    (``timeout`` seconds) or prints no statistics."""
    import os
    import shutil
    import subprocess

    exe = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)
    if exe is None:
        raise AnalysisError("gnubg (GNU Backgammon's CLI) is not installed: apt-get install gnubg")
    p = str(path)
    load = f"load match {p}" if p.endswith(".sgf") else f"import mat {p}"
    script = (f"set analysis chequerplay evaluation plies {plies}\n"
              f"set analysis cubedecision evaluation plies {plies}\n"
              "set analysis chequerplay evaluation prune off\n"
              "set analysis cubedecision evaluation prune off\n"
              f"{load}\nanalyse match\nshow statistics match\n")
    try:
        res = subprocess.run([exe, "-t", "-q"], input=script, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AnalysisError(f"gnubg did not finish analysing {p} within {timeout:.0f} s") from None
    stats = parse_gnubg_statistics(res.stdout)
    if "checker_error_rate_memg" not in stats[0]:
        raise AnalysisError(f"gnubg printed no statistics for {p} (rc {res.returncode})")
    return stats
