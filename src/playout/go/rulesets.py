"""Go rulesets: which repetitions and which suicides a move may make (``playout gtp --rules``).

A :class:`Ruleset` says two things: the repetition rule (``superko``) and whether suicide
of more than one stone is legal.  Every ruleset forbids an occupied point and the immediate
recapture of a simple ko; scoring is area scoring in all of them (stones plus empty regions
that touch one colour, minus komi), which is what the engine counts.

Rulesets (:data:`RULESETS`):

* ``positional`` (the default) -- positional superko, no suicide: a move may not recreate the
  stones of any earlier position (whoever was to move), as in the Chinese rules (1988,
  chapter 1 section 6) and as KGS plays them (``KO_SAMEBOARD`` for Chinese in KGS's
  ``Rules.java``, quoted by W. Shubert on the computer-go list, 13 Aug 2005,
  http://go.computer.free.fr/go-computer/msg07938.html).  GNU Go: ``--positional-superko``.
* ``situational`` -- situational superko, no suicide: a move may not recreate a position
  with the same player to move (the AGA rules; KGS's ``KO_SAMESTATE`` for AGA and New
  Zealand, same source).  GNU Go: ``--situational-superko``.
* ``simple-ko`` -- simple ko only, no suicide: no superko (the Japanese rules, where a long
  cycle is "no result"; KGS's ``KO_SIMPLE`` for Japanese).  GNU Go: ``--simple-ko`` (its
  default).
* ``tromp-taylor`` -- positional superko, suicide of more than one stone legal.  The
  Tromp-Taylor rules (https://tromp.github.io/go.html; Sensei's Library "Tromp-Taylor
  Rules"): "A turn is either a pass; or a move that doesn't repeat an earlier grid
  coloring", and "a move consists of coloring an empty point one's own color; then clearing
  the opponent color, and then clearing one's own color".  Suicide is therefore legal except
  that a single-stone suicide leaves the grid as it was, which repeats the current coloring
  and is illegal.  GNU Go: ``--positional-superko --allow-suicide`` ("Allow suicide except
  single-stone suicide").
* ``new-zealand`` -- situational superko, suicide of more than one stone legal (the New
  Zealand rules allow suicide; KGS ``KO_SAMESTATE``).  A single-stone suicide is forbidden
  here too (GNU Go's ``--allow-suicide``, the closest GNU Go has).  GNU Go:
  ``--situational-superko --allow-suicide``.

The history a superko rule compares with (:class:`playout.go.board.Board`): positional --
the stones of every position of the game record (the start, after each move, after setup);
situational -- every ``(stones, side to move)`` from which a move or a pass was made, as GNU
Go 3.8 keeps it (``engine/board.c``: ``move_history_hash`` and ``move_history_color``, read by
``is_superko_violation``).

GNU Go 3.8 differs on one case: for a suicide its superko test hashes the board with the
suicided stones still on it (``is_superko_violation`` calls ``really_do_trymove``, which does
not remove them), so it never finds a suicide to repeat a position.  We follow the rules:
a multi-stone suicide that recreates an earlier position is a superko violation.

KGS's GTP command ``kgs-rules japanese|chinese|aga|new_zealand`` (:data:`KGS_RULES`) selects
``simple-ko``, ``positional``, ``situational`` and ``new-zealand`` (same source as above).

Playouts and the search tree never play a suicide in any ruleset (the pattern playouts treat
it as illegal, as GNU Go's Monte Carlo playouts do, and the tree's children are the playouts'
legal moves): under ``tromp-taylor`` and ``new-zealand`` the engine accepts an opponent's
suicide and answers ``is_legal`` for one, but does not choose one itself.
"""

from __future__ import annotations

from dataclasses import dataclass

#: values of :attr:`Ruleset.superko`
SIMPLE, POSITIONAL, SITUATIONAL = "simple", "positional", "situational"


@dataclass(frozen=True)
class Ruleset:
    """A ruleset: ``name``, ``superko`` (:data:`SIMPLE`, :data:`POSITIONAL` or
    :data:`SITUATIONAL`), ``suicide`` (suicide of more than one stone legal), and
    ``gnugo`` (the GNU Go 3.8 options that play the same legality rules)."""

    name: str
    superko: str
    suicide: bool
    gnugo: tuple[str, ...]
    description: str


RULESETS: dict[str, Ruleset] = {r.name: r for r in (
    Ruleset("positional", POSITIONAL, False, ("--positional-superko",),
            "positional superko, no suicide (Chinese rules)"),
    Ruleset("situational", SITUATIONAL, False, ("--situational-superko",),
            "situational superko, no suicide (AGA rules)"),
    Ruleset("simple-ko", SIMPLE, False, ("--simple-ko",),
            "simple ko only, no suicide (Japanese rules' ko)"),
    Ruleset("tromp-taylor", POSITIONAL, True, ("--positional-superko", "--allow-suicide"),
            "positional superko, suicide of more than one stone legal"),
    Ruleset("new-zealand", SITUATIONAL, True, ("--situational-superko", "--allow-suicide"),
            "situational superko, suicide of more than one stone legal"),
)}

DEFAULT_RULES = RULESETS["positional"]

#: KGS ``kgs-rules`` argument -> ruleset name (KGS ``Rules.java`` ``getKoType``; module docstring)
KGS_RULES = {"japanese": "simple-ko", "chinese": "positional", "aga": "situational",
             "new_zealand": "new-zealand"}


def get_ruleset(name: str | Ruleset) -> Ruleset:
    """The ruleset called ``name`` (a :class:`Ruleset` is returned as is); ValueError naming
    the known ones otherwise."""
    if isinstance(name, Ruleset):
        return name
    r = RULESETS.get(str(name).strip().lower().replace("_", "-"))
    if r is None:
        raise ValueError(f"unknown rules {name!r} (known: {', '.join(RULESETS)})")
    return r
