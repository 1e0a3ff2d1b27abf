"""A tiny seeded random number generator for numba kernels.

xorshift64* (Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003, with the
multiplier of Vigna, "An experimental exploration of Marsaglia's xorshift
generators, scrambled", ACM TOMS 42(4), 2016).  The state is a ``uint64`` array
of shape (1,), seeded through splitmix64 (Steele, Lea & Flood, OOPSLA 2014) so
that nearby seeds give unrelated streams.  One generator per task/search.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_M = np.uint64(2685821657736338717)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def seed_state(seed):
    """A fresh generator state (uint64[1]) from an integer seed (splitmix64 step)."""
    z = np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(1)
    rs = np.empty(1, dtype=np.uint64)
    rs[0] = z
    return rs


@njit(cache=True, inline="always")
def next_u64(rs):
    """Next 64-bit output; advances ``rs`` in place."""
    x = rs[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rs[0] = x
    return x * _M


@njit(cache=True, inline="always")
def randint(rs, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32``.

    Multiply-shift range reduction (Lemire, "Fast random integer generation in
    an interval", ACM TOMS 2019) without the rejection step: bias below n / 2**32.
    """
    return np.int64(((next_u64(rs) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def uniform(rs):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(rs) >> _S11) * _INV53
