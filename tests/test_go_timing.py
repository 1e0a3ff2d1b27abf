"""Adaptive time use of the Go player (playout.go.timing): early stop, unstable evaluation, bank."""

from __future__ import annotations

import random

import pytest

from playout.go.board import Board, gtp_to_point
from playout.go.player import Player
from playout.go.timing import TimeUse


def test_early_stop_only_when_the_lead_cannot_be_caught():
    tu = TimeUse()
    # 1,000 simulations a second, 0.5 s of a 1 s share left: 500 to come
    assert tu.should_stop(0.5, 1.0, 1.0, 1000.0, [(900.0, 0.6), (300.0, 0.5)])  # lead 600
    assert not tu.should_stop(0.5, 1.0, 1.0, 1000.0, [(700.0, 0.6), (300.0, 0.5)])  # lead 400
    # never before min_share of the share, however large the lead
    assert not tu.should_stop(0.1, 1.0, 1.0, 1000.0, [(5000.0, 0.6), (1.0, 0.5)])
    # one legal move: nothing to choose (after min_share)
    assert tu.should_stop(0.3, 1.0, 1.0, 1000.0, [(10.0, 0.5)])
    assert tu.should_stop(1.0, 1.0, 1.0, 1000.0, [(10.0, 0.5), (9.0, 0.9)])  # the hard limit


def test_unstable_choice_runs_on_past_the_share():
    tu = TimeUse()
    # past the share, up to a hard limit of 3 s: the second move has a better rate
    unstable = [(1000.0, 0.50), (900.0, 0.52), (50.0, 0.9)]
    assert not tu.should_stop(1.2, 1.0, 3.0, 1000.0, unstable)
    # ... but not when it cannot catch up before the hard limit
    assert tu.should_stop(2.95, 1.0, 3.0, 1000.0, unstable)
    # a better rate on fewer than `contender` of the visits is noise: stable
    assert tu.should_stop(1.2, 1.0, 3.0, 1000.0, [(1000.0, 0.50), (90.0, 0.7)])
    assert tu.should_stop(1.2, 1.0, 3.0, 1000.0, [(1000.0, 0.55), (900.0, 0.52)])


def test_the_bank_lends_what_earlier_moves_saved_and_stays_in_bounds():
    tu = TimeUse(extend=3.0, bank_cap=4.0, spread=4.0)
    assert tu.limits(1.0) == (1.0, 1.0)  # nothing saved yet
    tu.settle(1.0, 0.2)
    assert tu.bank == pytest.approx(0.8)
    share, hard = tu.limits(1.0)  # a quarter of the bank added to the share, all of it lent
    assert share == pytest.approx(1.2) and hard == pytest.approx(1.8)
    for _ in range(20):
        tu.settle(1.0, 0.0)
    assert tu.bank == 4.0 and tu.limits(1.0) == (2.0, 3.0)  # capped: at most extend means
    tu.settle(1.0, 3.0)
    assert tu.bank == 2.0
    tu.settle(1.0, 9.0)  # an overrun (a slow machine) cannot make it negative
    assert tu.bank == 0.0
    tu.bank = 1.0
    tu.reset()
    assert tu.bank == 0.0
    with pytest.raises(ValueError, match="extend"):
        TimeUse(extend=0.5)
    with pytest.raises(ValueError, match="spread"):
        TimeUse(spread=0.0)


def test_a_game_never_takes_more_than_its_mean_a_move():
    """Whatever each search takes within its limits, the bank keeps the total within
    moves x mean."""
    rng = random.Random(4)
    totals = _game_totals(TimeUse(), rng, 199)
    assert all(t <= move + 1e-9 for move, t in enumerate(totals, 1))


def _game_totals(tu: TimeUse, rng: random.Random, moves: int) -> list[float]:
    """Seconds spent after each of ``moves`` moves at a mean of 1 s, each search taking a random
    choice of what its limits allow (an early stop, the share, the hard limit, between)."""
    total, totals = 0.0, []
    for _ in range(moves):
        share, hard = tu.limits(1.0)
        spent = rng.choice([0.2 * share, share, hard, rng.uniform(0.2, 1.0) * hard])
        tu.settle(1.0, spent)
        total += spent
        totals.append(total)
    return totals


def _capture_board() -> Board:
    """5x5, Black to play: the white string D3-D4 has one liberty (D5); its capture wins."""
    b = Board(5, 0.5)
    for mv in ("C3", "D3", "C4", "D4", "D2", "A1", "E3", "A2", "E4", "B1"):
        b.play(gtp_to_point(mv, 5))
    return b


def test_player_stops_early_on_a_settled_choice_and_books_the_saving():
    b = _capture_board()
    pl = Player(seconds=2.0, time_use=TimeUse(), seed=3)
    info = pl.genmove(b)
    assert info.move == gtp_to_point("D5", 5)
    # the lead of D5 exceeds what the rest of the 2 s share could add near half-way (~1 s
    # measured): stopped early, the rest banked
    assert info.seconds < 1.6
    assert 0.4 < pl.time_use.bank <= 2.0
    bank = pl.time_use.bank
    info = pl.genmove(b)  # the kept tree settles it sooner (in a longer share): more saved
    assert info.move == gtp_to_point("D5", 5) and pl.time_use.bank > bank
    # a position with fewer moves is a new game: the bank starts again from 0
    pl.genmove(Board(5, 0.5))
    assert pl._time_moves == 0 and pl.time_use.bank <= 2.0


def test_without_time_use_the_share_is_spent():
    pl = Player(seconds=0.3, seed=3)
    info = pl.genmove(_capture_board())
    assert info.seconds >= 0.29 and pl.time_use is None


def test_gtp_time_use_option():
    from click.testing import CliRunner

    from playout.cli import main

    r = CliRunner().invoke(main, ["gtp", "--boardsize", "5", "--seconds", "0.2", "--time-use",
                                  "adaptive", "--no-warm-up"], input="genmove b\nquit\n")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("= ") and len(r.output.split()[1]) == 2  # a point such as C3
    r = CliRunner().invoke(main, ["gtp", "--time-use", "sometimes"], input="quit\n")
    assert r.exit_code == 2 and "'sometimes' is not one of 'fixed', 'adaptive'" in r.output


def test_a_loan_starts_each_game_and_bounds_its_mean():
    """The bank starts a game with ``loan`` shares; a game of n moves then takes at most
    mean x (n + loan) whatever each search spends within its limits."""
    tu = TimeUse(loan=3.0)
    tu.reset(1.0)
    assert tu.bank == 3.0
    share, hard = tu.limits(1.0)  # the first move may already run on: 1 + 3/4, up to 3
    assert share == pytest.approx(1.75) and hard == pytest.approx(3.0)
    rng = random.Random(7)
    first3 = []
    for _game in range(20):
        tu.reset(1.0)
        totals = _game_totals(tu, rng, 59)
        assert all(t <= move + 3.0 + 1e-9 for move, t in enumerate(totals, 1))
        first3.append(totals[2])
    assert max(first3) > 3.0  # the loan was spent: more than the mean over the first moves
    assert TimeUse().loan == 0.0  # no loan by default: a game stays within its mean
    with pytest.raises(ValueError, match="loan"):
        TimeUse(loan=-1.0)
    with pytest.raises(ValueError, match="loan"):
        TimeUse(loan=30.0)  # more than the bank can hold


def test_player_gives_the_loan_from_its_first_game():
    """The first genmove starts a game: its limits are computed with the loan in the bank
    (checked before the search, so that a slow machine cannot change the answer)."""
    b = _capture_board()
    tu = TimeUse(loan=4.0)
    seen = []
    limits = tu.limits
    tu.limits = lambda mean: (seen.append(tu.bank), limits(mean))[1]
    pl = Player(seconds=0.5, time_use=tu, seed=3)
    pl.genmove(b)
    assert seen == [2.0]  # 4 shares of 0.5 s
    pl.genmove(Board(5, 0.5))  # fewer moves: a new game, the loan again
    assert seen[-1] == 2.0 and len(seen) == 2


def test_gtp_time_loan_option():
    from click.testing import CliRunner

    from playout.cli import main

    r = CliRunner().invoke(main, ["gtp", "--boardsize", "5", "--seconds", "0.2", "--time-use",
                                  "adaptive", "--time-loan", "3", "--no-warm-up"],
                           input="genmove b\nquit\n")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("= ")
    r = CliRunner().invoke(main, ["gtp", "--time-loan", "-1"], input="quit\n")
    assert r.exit_code == 2 and "--time-loan" in r.output
    r = CliRunner().invoke(main, ["gtp", "--seconds", "1", "--time-loan", "3"], input="quit\n")
    assert r.exit_code == 2 and "--time-loan needs --time-use adaptive" in r.output
