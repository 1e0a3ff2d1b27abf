"""PR scoring rules, one hand-made case per rule, and the peers' PR on reference set A."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from playout.backgammon import benchmark as B, scoring as S

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REF_A = SHARED / "data" / "backgammon" / "reference" / "A"


def _board(i):
    b = [0] * 26
    b[i] = 1
    return tuple(b)


def _checker(equities, levels=None):
    levels = levels or ["3-ply"] * len(equities)
    moves = [B.MoveReference(_board(i + 1), e, eval_level=l) for i, (e, l) in enumerate(zip(equities, levels))]
    return B.Reference("checker", _board(20), (3, 1), 1, "centered", moves=moves)


def _cube(nd, dt, dp=1.0, double=None, beaver=False):
    return B.Reference("cube", _board(20), None, 1, "centered", equity_nd=nd, equity_dt=dt, equity_dp=dp,
                       should_double_ref=double, is_beaver=beaver, eval_level="3-ply")


def test_checker_error_is_best_minus_chosen():
    ref = _checker([0.30, 0.25, 0.10])
    assert S.score_checker(ref, _board(1)).error == 0.0
    r = S.score_checker(ref, _board(3))
    assert r.counted and r.error == pytest.approx(0.20)


def test_checker_trivial_filters():
    assert S.score_checker(_checker([0.3]), _board(1)).status == "trivial"  # one legal move
    assert S.score_checker(_checker([0.3, 0.2995]), _board(2)).status == "trivial"  # spread < 0.001
    assert S.score_checker(_checker([0.3, 0.299]), _board(2)).status == "scored"  # spread = 0.001
    assert S.score_checker(_checker([0.3, 0.2]), _board(2), n_legal=1).status == "trivial"


def test_checker_mismatch_reported_not_scored():
    r = S.score_checker(_checker([0.3, 0.2]), _board(9))
    assert r.status == "mismatch" and not r.counted
    s = S.summarize([r, S.score_checker(_checker([0.3, 0.2]), _board(2))])
    assert s.mismatches == 1 and s.decisions == 1 and s.pr == pytest.approx(50.0)


def test_checker_best_is_taken_over_reference_grade_moves():
    # a stale 1-ply value above the rolled-out best does not set the bar
    ref = _checker([0.5, 0.3, 0.2], ["1-ply", "Rollout", "Rollout"])
    r = S.score_checker(ref, _board(3))
    assert r.error == pytest.approx(0.1) and r.grade == "Rollout" and r.reference_grade
    r = S.score_checker(ref, _board(1))
    assert r.error == 0.0 and not r.reference_grade


def test_doubler_side():
    ref = _cube(0.40, 0.60, double=True)          # right: double (min(DT,DP) = 0.6)
    d, t = S.score_cube(ref, double=False, take=True)
    assert d.error == pytest.approx(0.20) and t.error == 0.0
    d, _ = S.score_cube(ref, double=True, take=True)
    assert d.error == 0.0
    ref = _cube(0.70, 1.40, double=True)          # double/pass: actual = min(DT, DP) = 1
    d, t = S.score_cube(ref, double=True, take=True)
    assert d.error == 0.0 and t.error == pytest.approx(0.40)  # a take gives DT 1.4 > DP 1
    d, t = S.score_cube(ref, double=False, take=False)
    assert d.error == pytest.approx(0.30) and t.error == 0.0


@pytest.mark.parametrize("nd,dt,dp", [(0.4, 0.4005, 1.0), (0.5, 0.25, 1.0), (1.3, 1.9, 1.0), (-0.95, -0.92, 1.0)])
def test_doubler_trivial(nd, dt, dp):
    d, _ = S.score_cube(_cube(nd, dt, dp, double=False), True, True)
    assert d.status == "trivial"


def test_taker_side_only_where_reference_doubles():
    _, t = S.score_cube(_cube(0.30, 0.20, double=False), True, False)
    assert t.status == "not_applicable" and not t.counted
    _, t = S.score_cube(_cube(0.6, 0.8, double=True), True, False)  # wrong pass: DP 1 vs DT .8
    assert t.counted and t.error == pytest.approx(0.2)
    _, t = S.score_cube(_cube(0.9, 0.9995, double=True), True, True)  # |DT-DP| < 0.001
    assert t.status == "trivial"
    _, t = S.score_cube(_cube(0.9, 0.9995, double=True, beaver=True), True, True)
    assert t.status == "scored"


def test_summary_pr_error_rate_blunders_and_csv(tmp_path):
    rows = [S.score_checker(_checker([0.3, 0.2]), _board(2), 0),   # 0.1: blunder
            S.score_checker(_checker([0.3, 0.25]), _board(2), 1),  # 0.05
            *S.score_cube(_cube(0.4, 0.6, double=True), True, True, 2)]  # 0, 0
    s = S.summarize(rows)
    assert s.decisions == 4 and s.checker == 2 and s.cube == 2
    assert s.pr == pytest.approx(500 * 0.15 / 4) and s.error_rate == pytest.approx(1000 * 0.15 / 4)
    assert s.blunders == 1 and s.checker_pr == pytest.approx(500 * 0.075)
    p = tmp_path / "d.csv"
    S.write_csv(p, {"e": rows})
    got = list(csv.DictReader(p.open()))
    assert [r["side"] for r in got] == ["checker", "checker", "double", "take"]
    assert float(got[0]["error"]) == pytest.approx(0.1)


@pytest.mark.skipif(not REF_A.exists(), reason="shared data not present")
@pytest.mark.parametrize("spec,expected", [("gnubg:ply=0", 2.07), ("bgsage:ply=1", 2.15)])
def test_peer_checker_pr_on_reference_a_matches_readme(spec, expected):
    """reference/A/README.md: gnubg 0-ply 2.07, bgsage 1-ply 2.15 (checker decisions)."""
    pytest.importorskip(spec.split(":")[0])
    from playout.backgammon.engines import make_engine
    s = B.load_set(REF_A)
    pairs = [(d, r) for d, r in zip(s.decisions, s.references) if d.kind == "checker"]
    rows = S.rate([d for d, _ in pairs], [r for _, r in pairs], make_engine(spec))
    summ = S.summarize(rows)
    assert summ.checker == 326 and summ.mismatches == 0
    assert round(summ.checker_pr, 2) == expected


def test_paired_difference_over_shared_decisions():
    """PR differences on the decision sides both engines scored; hand-computed values."""
    first = [S.Scored(0, "checker", "scored", 0.010), S.Scored(1, "checker", "scored", 0.000),
             S.Scored(2, "checker", "scored", 0.020), S.Scored(3, "checker", "mismatch"),
             S.Scored(4, "double", "scored", 0.100), S.Scored(4, "take", "scored", 0.000)]
    other = [S.Scored(0, "checker", "scored", 0.010), S.Scored(1, "checker", "scored", 0.004),
             S.Scored(2, "checker", "scored", 0.000), S.Scored(3, "checker", "scored", 0.500),
             S.Scored(4, "double", "scored", 0.000), S.Scored(4, "take", "not_applicable")]
    p = S.paired(first, other, "checker")
    # shared: 0, 1, 2 (3 is a mismatch for the first); x 500: 0, +2, -10
    assert (p.n, p.changed) == (3, 2)
    assert p.diff == pytest.approx(-8 / 3)
    sd = ((8 / 3) ** 2 + (2 + 8 / 3) ** 2 + (-10 + 8 / 3) ** 2) / 2
    assert p.se == pytest.approx((sd / 3) ** 0.5)
    c = S.paired(first, other, "cube")  # only the doubler side is shared
    assert (c.n, c.changed, c.diff) == (1, 1, pytest.approx(-50.0))
    assert c.se != c.se  # NaN: one decision has no spread
    assert S.paired(first, [], "checker").n == 0
    with pytest.raises(ValueError, match="checker or cube"):
        S.paired(first, other, "double")
