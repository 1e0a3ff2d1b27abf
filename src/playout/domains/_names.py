"""Parsing of word actions ("up", "roll", ...) typed by a user."""

from __future__ import annotations

from typing import Iterable


def parse_word(text: str, words: Iterable[str], what: str) -> str:
    """The word in ``words`` that ``text`` names, in full or by its first letter, any case.

    >>> parse_word(" U ", ("up", "down"), "GridWorld move")
    'up'

    Raises:
        ValueError: ``text`` names none of them (the message lists them).
    """
    words = tuple(words)
    t = text.strip().lower()
    for w in words:
        if t in (w, w[0]):
            return w
    raise ValueError(f"not a {what} ({'/'.join(words)}): {text!r}")
