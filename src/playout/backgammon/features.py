"""Hand-made network inputs (numba), the three families our contact networks add to
Tesauro's raw board encoding (:mod:`playout.backgammon.net` lays them out):

* shots (:mod:`playout.backgammon.shots`): how exposed each side's blots are to the other
  side's next roll, exactly over the 21 distinct rolls (:func:`shot_stats`, :func:`shot_inputs`);
* blockade (:mod:`playout.backgammon.blockade`): escapes, containment and mobility, after
  gnubg's contact-net inputs (:data:`ESC`, :func:`escape_inputs`);
* timing, crunch and back games (:mod:`playout.backgammon.contact`): contact breaking, free
  pips, timing, anchors, entering, back games, after the rest of gnubg's contact-net inputs
  (:func:`contact_inputs`).

This module gathers their public names; each family's rules and sources are in its module.
"""

from __future__ import annotations

from playout.backgammon.blockade import ESC, ESC1, N_ESCAPE_SIDE, escape_inputs
from playout.backgammon.contact import N_CONTACT_SIDE, contact_inputs
from playout.backgammon.shots import roll_targets, shot_inputs, shot_stats, shot_stats_reference

__all__ = ["ESC", "ESC1", "N_CONTACT_SIDE", "N_ESCAPE_SIDE", "contact_inputs", "escape_inputs",
           "roll_targets", "shot_inputs", "shot_stats", "shot_stats_reference"]
