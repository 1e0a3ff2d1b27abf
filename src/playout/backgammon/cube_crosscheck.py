"""Cross-check of our cube model (:mod:`playout.backgammon.cube`) against GNU Backgammon 1.07.

One ``gnubg -t`` process (Debian ``gnubg``, ``/usr/games/gnubg``) is driven in batch:
for every case it gets ``set matchid`` (cube value/owner, score, Crawford flag, the
no-Jacoby bit), ``set board`` and ``eval`` at 0-ply with cubeful evaluation.  From
its answer we parse the cubeless probabilities it used (6 decimals), the cubeful
equity of the cube as it is (the ``Cubeful`` column) and, where the side on roll may
double, gnubg's cube analysis (ND, DT, DP and the proper action).  Match figures are
MWC (``set output mwc on``), money figures equities per unit cube.  We feed
*gnubg's own* probabilities into our model and compare ND/DT/DP and the action text.

Positions: boards from ``gnubg_selfplay_position_ids.txt`` (shared data) chosen to
span contact, race and both-home races; gnubg's two-sided bear-off database
positions (both sides home with at most 6 checkers) are left out, since gnubg
values those from its exact database rather than from its cube model.  Cases:
:func:`score_grid` (money with and without Jacoby; 7-point match scores with
1/2/3-away combinations, Crawford and post-Crawford, DMP, 2-away/2-away, longer
scores) x cube states (centred; owned by either side at 2..16).

Entry point: ``playout bg crosscheck-cube [--positions N] [--json]``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from playout.backgammon.board import is_race
from playout.backgammon.ids import Position, board_from_position_id, match_id, position_id

GNUBG = "/usr/games/gnubg"
IDS_FILE = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "backgammon" / \
    "gnubg_selfplay_position_ids.txt"
MATCH_LENGTH = 7


class GnubgError(RuntimeError):
    """gnubg is missing, hung, or answered something we cannot read."""


@dataclass(frozen=True)
class Case:
    """One cube situation: board (side on roll), cube, score (side on roll, opponent)."""

    board: tuple
    cube_value: int
    cube_owner: str
    match_length: int = 0
    score: tuple = (0, 0)
    crawford: bool = False
    jacoby: bool = True
    score_class: str = "money"

    def position(self) -> Position:
        return Position(np.array(self.board, dtype=np.int8), self.cube_value, self.cube_owner,
                        None, self.match_length, self.score, self.crawford, self.jacoby)


@dataclass
class GnubgAnswer:
    """What gnubg said about a case (``nd_cubeful``: the eval line's Cubeful column)."""

    evaluator: str
    probs: list
    nd_cubeful: float
    nd: float | None = None
    dt: float | None = None
    dp: float | None = None
    action: str | None = None
    raw: str = field(default="", repr=False)


def score_grid(match_length: int = MATCH_LENGTH) -> list[tuple[str, int, tuple, bool]]:
    """(class, match length, (away side on roll, away opponent), crawford) for the grid.

    Money is match length 0.  Classes: ``money``, ``crawford`` (one side 1-away, the
    Crawford game), ``post-crawford`` (one side 1-away, later games), ``dmp`` (both
    1-away), ``2a-2a``, ``short`` (2/3-away combinations), ``long`` (4..7-away).
    """
    out = [("money", 0, (0, 0), False)]
    for k in range(2, match_length + 1):
        out.append(("crawford", match_length, (1, k), True))
        out.append(("crawford", match_length, (k, 1), True))
        out.append(("post-crawford", match_length, (1, k), False))
        out.append(("post-crawford", match_length, (k, 1), False))
    out.append(("dmp", match_length, (1, 1), False))
    out.append(("2a-2a", match_length, (2, 2), False))
    for a, b in ((2, 3), (3, 2), (3, 3), (2, 4), (4, 2), (3, 4), (4, 3), (2, 5), (5, 2)):
        out.append(("short", match_length, (a, b), False))
    for a, b in ((4, 4), (5, 3), (3, 5), (5, 5), (7, 5), (5, 7), (6, 4), (7, 7), (4, 6)):
        out.append(("long", match_length, (a, b), False))
    return out


def cube_states(score_class: str) -> list[tuple[int, str]]:
    """Cube (value, owner) states for a score class (the Crawford game: centred 1 only)."""
    if score_class == "crawford":
        return [(1, "centered")]
    states = [(1, "centered")]
    for v in (2, 4, 8, 16):
        states += [(v, "player"), (v, "opponent")]
    return states


def cases_for(boards, match_length: int = MATCH_LENGTH) -> list[Case]:
    """Every board x score class x cube state (money: Jacoby on and off for a centred cube)."""
    out = []
    for b in boards:
        bt = tuple(int(v) for v in b)
        for cls, ml, away, crawford in score_grid(match_length):
            score = (ml - away[0], ml - away[1]) if ml else (0, 0)
            for v, owner in cube_states(cls):
                if ml == 0 and v > 4:
                    continue  # money equities are per unit cube: 2 and 4 suffice
                jacobys = (True, False) if (ml == 0 and owner == "centered") else (ml == 0,)
                for jac in jacobys:
                    out.append(Case(bt, v, owner, ml, score, crawford, jac,
                                    cls if not (ml == 0 and not jac) else "money-nojacoby"))
    return out


def _bearoff2(b) -> bool:
    """gnubg's two-sided bear-off database class: both sides home with <= 6 checkers each."""
    me = sum(int(v) for v in b[1:7] if v > 0)
    op = -sum(int(v) for v in b[19:25] if v < 0)
    home = not any(v > 0 for v in b[7:26]) and not any(v < 0 for v in b[0:19])
    return home and me <= 6 and op <= 6


def pick_boards(n: int, ids_file: Path = IDS_FILE) -> list[np.ndarray]:
    """``n`` boards from the self-play IDs: half contact, a third races, the rest both-home.

    Deterministic: evenly spaced within each kind, in file order.  Raises ``GnubgError``
    naming the file if it cannot be read.
    """
    try:
        ids = [ln.strip() for ln in Path(ids_file).read_text().splitlines() if ln.strip()]
    except OSError as exc:
        raise GnubgError(f"{ids_file}: cannot read position IDs ({exc})") from None
    kinds: dict[str, list] = {"contact": [], "race": [], "home": []}
    for pid in ids:
        b = board_from_position_id(pid)
        if _bearoff2(b):
            continue
        if not is_race(b):
            kinds["contact"].append(b)
        else:
            home = not any(v > 0 for v in b[7:26]) and not any(v < 0 for v in b[0:19])
            kinds["home" if home else "race"].append(b)
    want = {"contact": (n + 1) // 2, "race": max(1, n // 3) if n > 1 else 0}
    want["home"] = max(0, n - want["contact"] - want["race"])
    out = []
    for k, m in want.items():
        pool = kinds[k]
        if m and pool:
            step = len(pool) / m
            out += [pool[int(i * step)] for i in range(min(m, len(pool)))]
    return out[:n]


# -- driving gnubg ------------------------------------------------------------------------

_NUM = r"([+-]?\d+\.\d+)(%?)"
_MARK = "shown with 6 digits after the decimal separator"


def _val(text: str, pct: str) -> float:
    return float(text) / 100.0 if pct else float(text)


def parse_eval(block: str, plies: int = 0) -> GnubgAnswer:
    """Parse one ``eval`` answer (after our marker); ``plies``: gnubg's depth, whose line
    (``static:`` at 0, ``N ply:``) gives the probabilities and the cubeful ND.  Raises
    GnubgError if unreadable."""
    m = re.search(r"Evaluator:\s*(\S+)", block)
    label = rf"{plies} ply:" if plies else "static:"
    s = re.search(label + r"\s+" + r"\s+".join([r"(\d+\.\d+)"] * 5) + r"\s+" + _NUM + r"\s+" + _NUM,
                  block)
    if not m or not s:
        raise GnubgError(f"gnubg eval answer not understood: {block.strip()[:300]!r}")
    probs = [float(s.group(i)) for i in range(1, 6)]
    ans = GnubgAnswer(m.group(1), probs, _val(s.group(8), s.group(9)), raw=block)
    if "Cube analysis" in block:
        def grab(label):
            g = re.search(label + r"\s+" + _NUM, block)
            return _val(g.group(1), g.group(2)) if g else None
        ans.nd = grab(r"\d\. No (?:re)?double")
        ans.dp = grab(r"\d\. (?:Re)?[Dd]ouble, pass")
        ans.dt = grab(r"\d\. (?:Re)?[Dd]ouble, take")
        a = re.search(r"Proper cube action:\s*(.+)", block)
        if a:
            ans.action = re.sub(r"\s*\(-?\d+(\.\d+)?%\)\s*$", "", a.group(1).strip())
    return ans


def run_gnubg(cases: list[Case], *, timeout: float | None = None,
              gnubg: str = GNUBG, plies: int = 0) -> list[GnubgAnswer]:
    """gnubg 1.07's answer for every case at ``plies`` (gnubg numbering; 0 by default, the
    cube model's cross-check; deeper: its cubeful n-ply, without the pruning net), from one
    batch process.

    Raises GnubgError if gnubg is missing, exceeds ``timeout`` (default 30 s + 0.1 s a
    case), or answers something we cannot parse.
    """
    exe = gnubg if Path(gnubg).exists() else shutil.which("gnubg")
    if not exe:
        raise GnubgError(f"{gnubg}: GNU Backgammon is not installed (Debian: apt-get install gnubg)")
    lines = ["set player 0 human", "set player 1 human",
             f"set evaluation cubedecision evaluation plies {int(plies)}",
             "set evaluation cubedecision evaluation prune off",
             "set evaluation chequerplay evaluation plies 0",
             "set evaluation cubedecision evaluation cubeful on",
             "set evaluation chequerplay evaluation cubeful on",
             "set output digits 6", "set output mwc on", "set beavers on",
             f"new match {MATCH_LENGTH}"]
    for i, c in enumerate(cases):
        pos = c.position()
        lines += [f"set matchid {match_id(pos, turn=1)}", f"set board {position_id(pos.board)}",
                  "set output digits 6", "eval"]  # the digits line marks each answer
    lines += ["set output digits 6", "quit", "y"]
    script = "\n".join(lines) + "\n"
    limit = timeout if timeout is not None else 30.0 + 0.1 * (1 + 4 * plies) * len(cases)
    try:
        res = subprocess.run([exe, "-t", "-q"], input=script, capture_output=True, text=True,
                             timeout=limit)
    except subprocess.TimeoutExpired:
        raise GnubgError(f"gnubg did not answer {len(cases)} cases within {limit:.0f} s") from None
    except OSError as exc:
        raise GnubgError(f"{exe}: cannot run gnubg ({exc})") from None
    # stdout: the set-up's digits line, then per case a digits line and its eval answer
    blocks = res.stdout.split(_MARK)[2:]
    if len(blocks) < len(cases) + 1:
        raise GnubgError(f"gnubg answered {max(len(blocks) - 1, 0)} of {len(cases)} cases "
                         f"(stderr: {res.stderr.strip()[:200]!r})")
    return [parse_eval(b, plies) for b in blocks[:len(cases)]]


# -- comparison ----------------------------------------------------------------------------------

def ours(case: Case, probs) -> tuple[float, float | None, float | None, str | None, bool]:
    """Our (ND, DT, DP, action, can_double) for ``case`` from the given probabilities."""
    from playout.backgammon.cube import cube_action

    d = cube_action(np.array(case.board, dtype=np.int8), case.cube_value, case.cube_owner,
                    probs=probs, jacoby=case.jacoby, beaver=True,
                    match_length=case.match_length, score=case.score, crawford=case.crawford)
    return d.equity_nd, d.equity_dt, d.equity_dp, d.optimal_action, d.can_double


def compare(cases: list[Case], answers: list[GnubgAnswer], tol: float = 2e-5) -> dict:
    """Agreement table by (score class, cube state) and the disagreeing cases.

    A case agrees when every figure gnubg printed is within ``tol`` of ours (gnubg
    prints 6 decimals and computes in single precision) and the action texts are equal.
    A disagreement is *explained* (``tie``) when all figures agree and only the action
    differs at an exact tie of the deciding figures (two of ND/DT/DP within ``tol``):
    gnubg breaks such ties by single-precision rounding (e.g. ND = DT = 0 MWC in a
    certain match loss: gnubg "No double, take", we "Optional double, take").
    """
    rows: dict[tuple, dict] = {}
    bad, explained = [], []
    for c, g in zip(cases, answers):
        nd, dt, dp, action, can = ours(c, g.probs)
        state = "centred" if c.cube_owner == "centered" else f"{c.cube_owner}-owned"
        r = rows.setdefault((c.score_class, state), {"cases": 0, "analysed": 0, "action_agree": 0,
                                                     "nd": 0.0, "dt": 0.0, "dp": 0.0, "ok": 0,
                                                     "tie": 0})
        r["cases"] += 1
        d_nd = abs(nd - g.nd_cubeful)
        ok = d_nd <= tol
        r["nd"] = max(r["nd"], d_nd)
        if g.action is not None:
            r["analysed"] += 1
            d_dt = abs(dt - g.dt) if g.dt is not None else 0.0
            d_dp = abs(dp - g.dp) if g.dp is not None else 0.0
            r["dt"], r["dp"] = max(r["dt"], d_dt), max(r["dp"], d_dp)
            same = action == g.action
            r["action_agree"] += same
            figures = ok and d_dt <= tol and d_dp <= tol
            ok = figures and same
            if figures and not same and g.dt is not None and g.dp is not None and min(
                    abs(g.nd - g.dt), abs(g.nd - g.dp), abs(g.dt - g.dp)) <= tol:
                r["tie"] += 1
                explained.append({"position_id": position_id(np.array(c.board, dtype=np.int8)),
                                  "match_id": match_id(c.position(), turn=1),
                                  "gnubg": [g.nd, g.dt, g.dp, g.action],
                                  "ours": [nd, dt, dp, action]})
                continue
        elif can:
            ok = False  # we say the side may double, gnubg gave no cube analysis
        r["ok"] += ok
        if not ok:
            bad.append({"position_id": position_id(np.array(c.board, dtype=np.int8)),
                        "match_id": match_id(c.position(), turn=1), "class": c.score_class,
                        "cube": [c.cube_value, c.cube_owner], "score": list(c.score),
                        "evaluator": g.evaluator,
                        "gnubg": [g.nd_cubeful, g.dt, g.dp, g.action],
                        "ours": [nd, dt, dp, action]})
    table = [{"score_class": k[0], "cube": k[1], "cases": v["cases"], "agree": v["ok"],
              "ties": v["tie"], "cube_analyses": v["analysed"], "action_agree": v["action_agree"],
              "max_d_nd": v["nd"], "max_d_dt": v["dt"], "max_d_dp": v["dp"]}
             for k, v in sorted(rows.items())]
    total = sum(v["cases"] for v in rows.values())
    agree = sum(v["ok"] for v in rows.values())
    return {"cases": total, "agree": agree, "ties": len(explained), "table": table,
            "disagreements": bad, "explained": explained}


def crosscheck(n_positions: int = 24, *, ids_file: Path = IDS_FILE, timeout: float | None = None,
               match_length: int = MATCH_LENGTH) -> dict:
    """Pick ``n_positions`` boards, run gnubg on the whole grid, compare (see :func:`compare`)."""
    boards = pick_boards(n_positions, ids_file)
    cases = cases_for(boards, match_length)
    answers = run_gnubg(cases, timeout=timeout)
    out = compare(cases, answers)
    out["positions"] = len(boards)
    out["gnubg_evaluators"] = sorted({a.evaluator for a in answers})
    return out


def format_table(res: dict) -> str:
    """The agreement table as text (one line per score class x cube state)."""
    lines = [f"{'score class':<16}{'cube':<16}{'cases':>6}{'agree':>7}{'ties':>5}{'analysed':>9}"
             f"{'action=':>8}{'max|dND|':>10}{'max|dDT|':>10}{'max|dDP|':>10}"]
    for r in res["table"]:
        lines.append(f"{r['score_class']:<16}{r['cube']:<16}{r['cases']:>6}{r['agree']:>7}{r['ties']:>5}"
                     f"{r['cube_analyses']:>9}{r['action_agree']:>8}{r['max_d_nd']:>10.2e}"
                     f"{r['max_d_dt']:>10.2e}{r['max_d_dp']:>10.2e}")
    lines.append(f"total: {res['agree']}/{res['cases']} cases agree, {res['ties']} explained ties "
                 "(gnubg's single-precision tie-break), "
                 f"({res['positions']} positions; gnubg evaluators {', '.join(res['gnubg_evaluators'])}); "
                 f"{len(res['disagreements'])} unexplained disagreements")
    return "\n".join(lines)
