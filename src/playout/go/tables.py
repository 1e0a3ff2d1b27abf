"""Compiled pattern tables for the playouts: the neighbour index and the packed value table.

A point's 3x3 neighbourhood is a 16-bit *neighbour index* (:func:`nbr_index`): the 8
neighbours in order NW, N, NE, W, E, SW, S, SE (N = one row up), each 2 bits (0 empty, 1 own,
2 opponent, 3 off-board), ``index = sum(state_i << 2 i)``.  Because the board's colour codes are
0 empty, 1 black, 2 white, 3 border (:mod:`playout.go.rules`), the index for Black is read off
the colour array directly and White's is ``SWAP[index]``.  A compiled database
(:mod:`playout.go.patterns`) maps the index to a geometry class and the move's property code
(:mod:`playout.go.properties`) to a value; :class:`Table` packs both for the kernels.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
from numba import njit

from playout.go.rules import COLOR

# layout of the table array T (int32, compact for the caches): header; for each neighbour index
# the value row seen by Black | (row seen by White) << 16; the distinct value rows
# values[row * 256 + code] (clipped to 2**31 - 1).  GNU Go's 1,107 classes share few distinct
# rows (2 for uniform, 8 for mogo_classic, 9 for montegnu_classic), so the rows stay in L1.
T_LIGHT, T_NCLASS, T_VMAX, T_DEP = 0, 1, 2, 3
#: header fields for :func:`playout.go.samplers.sample_far_light`: the table is *far-light* (see
#: :class:`Table`); the largest value without the near bit at a point where no stone can be
#: captured (the rejection envelope); whether values without the near bit depend on the capture
#: counts (then the liberties of strings in atari are valued exactly, like near points).
T_FARLIGHT, T_VMAXFAR, T_FARCAP = 4, 5, 6
#: the smallest positive value (the "ordinary" move of the search's priors: 1 in GNU Go's files,
#: where it is the unmatched cells' value)
T_VMIN = 7
T_GEOM = 8
T_VALUES = T_GEOM + 65536
#: property-code bits that need the costly self-atari/suicide analysis (bits 5, 6, 7): the
#: kernels compute them only where a value row depends on them (``T[T[T_DEP] + row * 32 + low]``
#: has bit 0 set when ``values[row, low | e]`` depends on bits 5 or 7 of ``e`` (the opponent's
#: self-atari and suicide) and bit 1 when it depends on bit 6 (own self-atari), over the eight
#: settings ``e`` of these bits; ``low`` = code bits 0..4).
COSTLY_BITS = 0xE0

#: neighbour offsets in index order NW, N, NE, W, E, SW, S, SE, as multiples of (dy, dx).
NBR_ORDER = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _make_swap() -> np.ndarray:
    idx = np.arange(65536, dtype=np.int64)
    out = np.zeros(65536, np.int64)
    for i in range(8):
        s = (idx >> (2 * i)) & 3
        s2 = np.where(s == 1, 2, np.where(s == 2, 1, s))
        out |= s2 << (2 * i)
    return out.astype(np.int32)


#: index seen by Black -> index seen by White (own and opponent swapped).
SWAP = _make_swap()


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------
def proper_eye_geometry() -> np.ndarray:
    """bool[65536]: the centre is a proper eye of the mover (GNU Go's three ``:0`` eye shapes).

    Centre: N, W, E, S own; at most one diagonal opponent, the others own or empty.  Edge and
    corner: orthogonal on-board neighbours own, on-board diagonals own or empty.
    """
    idx = np.arange(65536)
    st = [(idx >> (2 * i)) & 3 for i in range(8)]
    nw, n, ne, w, e, sw, s, se = st
    orth_ok = np.ones(65536, bool)
    for o in (n, w, e, s):
        orth_ok &= (o == 1) | (o == 3)
    n_off = sum((o == 3).astype(int) for o in (n, w, e, s))
    diags = (nw, ne, sw, se)
    n_opp_diag = sum((d == 2).astype(int) for d in diags)
    centre = (n_off == 0) & (n_opp_diag <= 1)
    edge = (n_off >= 1) & (n_opp_diag == 0)
    # an off-board orthogonal neighbour must make its two diagonals off-board too (consistency)
    return orth_ok & (centre | edge)


def fallback_uniform_table() -> tuple[np.ndarray, np.ndarray]:
    """(geometry, values) of light playouts built here: eyes 0, everything else 1.

    Used when :mod:`playout.go.patterns` is unavailable; the shipped ``mc_uniform`` database
    compiles to the same values on every reachable geometry.
    """
    geom = np.where(proper_eye_geometry(), 0, 1).astype(np.int32)
    values = np.zeros((2, 256), np.int64)
    values[1, :] = 1
    return geom, values


class Table:
    """A compiled pattern table ready for the kernels.

    Attributes: ``name``; ``geometry`` int32[65536] (neighbour index -> class); ``values``
    int64[n_classes, 256]; ``light`` (values ignore the property code, so the kernels skip
    computing properties); ``far_light`` (not light, and the values without the near bit at points
    where neither colour captures anything are all within a factor 4 of the largest of them, 0
    aside: GNU Go's three databases, where they are 1 or 0 by shape; playouts then value only
    near points and the liberties of strings in atari exactly and draw the rest by rejection,
    :func:`playout.go.samplers.sample_far_light`); ``T`` the packed int32 array the kernels read.
    """

    def __init__(self, geometry: np.ndarray, values: np.ndarray, name: str = "table"):
        self.name = name
        self.geometry = np.ascontiguousarray(geometry, dtype=np.int32)
        self.values = np.ascontiguousarray(values, dtype=np.int64)
        if self.geometry.shape != (65536,) or self.values.ndim != 2 or self.values.shape[1] != 256:
            raise ValueError("pattern table needs geometry[65536] and values[n_classes, 256]")
        self.light = bool(np.all(self.values == self.values[:, :1]))
        nc = self.values.shape[0]
        rows, row_of_class = np.unique(np.minimum(self.values, 2**31 - 1), axis=0,
                                       return_inverse=True)
        row_of_class = row_of_class.ravel()
        nrows = rows.shape[0]
        T = np.zeros(T_VALUES + nrows * 256 + nrows * 32, np.int32)
        T[T_LIGHT] = int(self.light)
        T[T_NCLASS] = nc
        T[T_VMAX] = max(1, int(rows.max()))
        T[T_VMIN] = int(rows[rows > 0].min()) if np.any(rows > 0) else 1
        T[T_DEP] = T_VALUES + nrows * 256
        far = rows[:, 0::2]  # even codes: near bit 0
        far0 = rows[:, 0::32]  # near bit 0 and no captures: codes that differ in bits 5..7 only
        vmax0 = int(far0.max())
        self.far_light = (not self.light) and vmax0 > 0 and bool(np.all(
            (far0 == 0) | (4 * far0 >= vmax0)))
        T[T_FARLIGHT] = int(self.far_light)
        T[T_VMAXFAR] = vmax0
        T[T_FARCAP] = int(bool(np.any(far != np.repeat(far0, 16, axis=1))))
        by_costly = rows.reshape(nrows, 8, 32)  # [row, bits 5..7 (e = code >> 5), bits 0..4]
        e = np.arange(8)
        # bits 5 and 7: the opponent's self-atari and suicide
        dep_opp = np.any((by_costly != by_costly[:, e ^ 1, :])
                         | (by_costly != by_costly[:, e ^ 4, :]), axis=1)
        dep_own = np.any(by_costly != by_costly[:, e ^ 2, :], axis=1)  # bit 6: own self-atari
        T[T[T_DEP]:] = (dep_opp.astype(np.int32) | (dep_own.astype(np.int32) << 1)).ravel()
        rb = row_of_class[self.geometry]
        rw = row_of_class[self.geometry[SWAP]]
        T[T_GEOM : T_GEOM + 65536] = rb | (rw << 16)
        T[T_VALUES : T[T_DEP]] = rows.ravel()
        #: the kernels' packed table (see ``T_*``)
        self.T = T


_TABLES: dict[str, Table] = {}

#: The engine's default database: GNU Go 3.8's default too, and the strongest of the three
#: built-ins at equal playouts (round robin at 1,000 playouts a move: 15/20 against
#: mc_mogo_classic, 18/20 against mc_uniform; ``benchmarks/go_vs_gnugo.py --round-robin``).
DEFAULT_DATABASE = "mc_montegnu_classic"

#: The database whose values give the tree's priors by default (:class:`playout.go.player.Player`
#: ``prior_table``): ``data/mc_tuned_v1.db``, values fitted by minorization-maximization
#: (``playout go tune-patterns``) to GNU Go 3.8 level-10 self-play moves; the playouts keep
#: :data:`DEFAULT_DATABASE`'s.  Issue 18's matches (``data/go/match-tunedprior/``,
#: ``data/go/screens/``): 116/184 against the playout table's own priors in self-play at 2,000
#: and 5,000 playouts a move, 133.5/200 against GNU Go level 10 at 5,000 playouts (own priors
#: 122.5 on the same seeds).
PRIOR_DATABASE_FILE = str(Path(str(resources.files("playout.go") / "data" / "mc_tuned_v1.db")))


def default_prior_table() -> Table:
    """The compiled :data:`PRIOR_DATABASE_FILE` (cached, as :func:`load_table`)."""
    return load_table(path=PRIOR_DATABASE_FILE)


def _compiled_file(path: str, load_patterns) -> tuple[np.ndarray, np.ndarray]:
    """``(geometry, values)`` of database file ``path``, from the disk cache when the file's
    bytes and the compiler's source are unchanged.

    Compiling a file of all 3x3 patterns (``mc_tuned_v1.db``, 3,299 rules) takes ~0.8 s, once
    per engine start; the cache (``<cache_dir>/patterns/<sha256>.npz``,
    :func:`playout.cache.cache_dir`) makes it a file read.  A bad file is never cached (the
    compiler raises first); an unreadable cache entry is recompiled and replaced.
    """
    import hashlib

    from playout.cache import cache_dir, write_atomic
    from playout.go import pattern_compiler

    p = Path(path)
    if not p.is_file():  # a folder or a missing file: the compiler's own one-line error
        cp = load_patterns(path)
        return cp.geometry, cp.values
    h = hashlib.sha256(p.read_bytes())
    h.update(Path(pattern_compiler.__file__).read_bytes())
    entry = cache_dir() / "patterns" / f"{h.hexdigest()[:32]}.npz"
    try:
        with np.load(entry, allow_pickle=False) as z:
            return z["geometry"].copy(), z["values"].copy()
    except (OSError, KeyError, ValueError, EOFError):
        pass
    cp = load_patterns(path)
    write_atomic(entry, lambda f: np.savez(f, geometry=cp.geometry, values=cp.values))
    return cp.geometry, cp.values


def load_table(name: str | None = None, path: str | None = None) -> Table:
    """The table of a built-in database ``name`` (with or without ``mc_``) or of file ``path``.

    ``path`` wins over ``name``.  Without :mod:`playout.go.patterns` only ``uniform`` is
    available (:func:`fallback_uniform_table`).  Raises ValueError/OSError with the parser's
    message on a bad name or file.
    """
    key = f"file:{path}" if path else (name or DEFAULT_DATABASE)
    if key in _TABLES:
        return _TABLES[key]
    try:
        from playout.go.pattern_compiler import load_patterns  # type: ignore
    except ImportError:
        load_patterns = None
    if load_patterns is not None:
        if path:
            geometry, values = _compiled_file(path, load_patterns)
        else:
            cp = load_patterns(key)
            geometry, values = cp.geometry, cp.values
        t = Table(geometry, values, name=key)
    else:
        base = key[3:] if key.startswith("mc_") else key
        if base != "uniform":
            raise ValueError(f"pattern database {key!r} needs playout.go.patterns (not installed)")
        g, v = fallback_uniform_table()
        t = Table(g, v, name="mc_uniform")
    _TABLES[key] = t
    return t




@njit(cache=True, inline="always", _nrt=False)
def nbr_index(S, W, q):
    """Black-relative 16-bit neighbour index of ``q`` (see module docstring)."""
    return (
        np.int32(S[COLOR, q - W - 1])
        | (np.int32(S[COLOR, q - W]) << 2)
        | (np.int32(S[COLOR, q - W + 1]) << 4)
        | (np.int32(S[COLOR, q - 1]) << 6)
        | (np.int32(S[COLOR, q + 1]) << 8)
        | (np.int32(S[COLOR, q + W - 1]) << 10)
        | (np.int32(S[COLOR, q + W]) << 12)
        | (np.int32(S[COLOR, q + W + 1]) << 14)
    )
