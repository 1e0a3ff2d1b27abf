"""Adaptive time use for the Go player: stop a search whose choice is settled, run on when
it is not, and keep the time saved for later moves.

With a fixed time a move (``playout gtp --seconds S``) every move gets ``S``: the forced
reply as much as the middle-game fight.  :class:`TimeUse` keeps ``S`` as the *mean* over the
game and moves time between moves with the two rules Huang, Coulom and Lin measured for
Erica ("Time Management for Monte-Carlo Tree Search Applied to the Game of Go", TAAI 2010):

* **early stop**: before the move's share ``S`` is spent, stop as soon as the most-visited
  root move cannot be overtaken in the time left at the current simulation rate (its lead in
  visits exceeds the simulations still to come); the most-visited move is what is played
  (:func:`playout.go.player.final_choice`), so the answer is the one the full search gives.
* **unstable evaluation**: at the share, run on while the most-visited move is not the one
  with the best win rate (among moves with at least :attr:`TimeUse.contender` of its visits),
  up to ``extend * S``, and only while the *bank* of time saved by earlier moves covers it.

The time saved is spent again: each move's share is ``S`` plus a :attr:`TimeUse.spread`-th
of the bank (as a clock's time left divided by the moves to come grows when moves were
quick).  Without that, early stops alone left a third of the time unused (0.64 s a move at
``S`` = 1 against GNU Go, 11 games).  The bank starts every game at 0 (but see the loan below)
and is capped (:attr:`TimeUse.bank_cap` shares), and a move never takes more than ``S`` plus
the bank, so a game's mean time a move stays within ``S`` (beyond the overhead any search has).

A game's last moves are mostly settled and stop early, so their savings stay in the bank when
the game ends (3.9 s of a game's 30.9 moves at ``S`` = 1 against GNU Go, 0.874 s a move:
``data/go/match-s1-adaptive``).  :attr:`TimeUse.loan` lends that time to the first moves
instead: the bank starts each game with ``loan`` shares, so a game of ``n`` moves takes at most
``S (1 + loan / n)`` a move.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TimeUse:
    """When a timed search stops (seconds; module docstring).

    Attributes:
        extend: a move may take up to ``extend`` times its share, bank permitting (>= 1).
        min_share: fraction of the share every search runs before it may stop early.
        contender: a move with at least this fraction of the most-visited move's visits whose
            win rate is higher makes the choice unstable.
        spread: each move's share adds this fraction's inverse of the bank (4: a quarter).
        bank_cap: the bank holds at most this many shares.
        loan: shares the bank holds at the start of each game (time the game's early stops
            are expected to save, lent to its first moves; 0: none).
        bank: seconds saved so far in this game (:meth:`settle` adds to it, :meth:`reset`
            sets it to the loan).
    """

    extend: float = 3.0
    min_share: float = 0.2
    contender: float = 0.1
    spread: float = 4.0
    bank_cap: float = 20.0
    loan: float = 0.0
    bank: float = 0.0

    def __post_init__(self) -> None:
        if not self.extend >= 1.0:
            raise ValueError(f"extend must be >= 1, not {self.extend}")
        if not self.spread >= 1.0:
            raise ValueError(f"spread must be >= 1, not {self.spread}")
        if not 0.0 <= self.min_share <= 1.0:
            raise ValueError(f"min_share must be in [0, 1], not {self.min_share}")
        if not 0.0 <= self.loan <= self.bank_cap:
            raise ValueError(f"loan must be in [0, bank_cap = {self.bank_cap}], not {self.loan}")

    def reset(self, mean: float = 0.0) -> None:
        """A new game whose mean time a move is ``mean`` seconds: the bank holds the loan."""
        self.bank = self.loan * mean

    def limits(self, mean: float) -> tuple[float, float]:
        """(share, hard limit) in seconds of the next move when the game's mean is ``mean``:
        the share is ``mean`` plus a ``spread``-th of the bank, the limit ``mean`` plus what
        the bank lends, at most ``extend`` means."""
        hard = mean + min(self.bank, (self.extend - 1.0) * mean)
        return min(hard, mean + self.bank / self.spread), hard

    def settle(self, mean: float, spent: float) -> None:
        """Book a move that took ``spent`` seconds of a game whose mean is ``mean``: the
        difference goes to (or comes from) the bank, which stays in ``[0, bank_cap * mean]``."""
        self.bank = min(self.bank_cap * mean, max(0.0, self.bank + mean - spent))

    def should_stop(self, elapsed: float, share: float, hard: float, rate: float,
                    children: list[tuple[float, float]]) -> bool:
        """Whether the search may stop now.

        Args:
            elapsed: seconds searched so far.
            share: this move's share (seconds); ``hard``: its limit (:meth:`hard_limit`).
            rate: simulations a second so far.
            children: ``(visits, win rate)`` of the root's moves, most visits first.
        """
        if elapsed >= hard:
            return True
        if elapsed < self.min_share * share or not children:
            return False
        if len(children) == 1:
            return True  # one legal move: nothing to choose
        v1, v2 = children[0][0], children[1][0]
        end = share if elapsed < share else hard
        if v1 - v2 > rate * (end - elapsed):
            return True  # the most-visited move stays so until the end
        if elapsed < share:
            return False
        best = children[0][1]
        return not any(r > best and v >= self.contender * v1 for v, r in children[1:])
