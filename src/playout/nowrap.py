"""Compile the Go kernels without numba's negative-index wraparound.

Numba gives every signed integer index Python's meaning of a negative index: ``a[i]`` compiles
to ``a[i + n if i < 0 else i]``.  The Go kernels (:mod:`playout.go`) index one state array
``S[row, point]`` a few hundred times a move with points computed at run time, never negative,
and that select on every access cost 15% of a pattern playout (mc_mogo_classic 9x9: 14,700 ->
17,300 playouts/s; uniform 59,300 -> 67,600; same playouts, same random stream).  Numba has no
option to switch it off per function, so :func:`install` wraps numba's
``numba.np.arrayobj.fix_integer_index`` (checked with numba 0.68) to skip it for functions
whose LLVM name is in one of :data:`SCOPES`; every other function, in this package or a
user's, keeps Python semantics.

Rule for code in the scopes: an index must never be negative.  ``tests/test_nowrap.py`` runs the
Go kernels under ``NUMBA_BOUNDSCHECK=1``, where a negative index raises ``IndexError``, and
checks that functions outside the scopes still wrap.  If numba changes the wrapped function,
:func:`install` leaves numba alone (the kernels are then only slower) and :func:`installed`
says so.
"""

from __future__ import annotations

#: Mangled-name prefixes of the functions compiled without wraparound (``playout.go.*``).
SCOPES = ("_ZN7playout2go",)

_state = {"installed": False}


def install() -> bool:
    """Wrap numba's index fix-up once per process; return whether it is active."""
    if _state["installed"]:
        return True
    try:
        from numba.core import types
        from numba.np import arrayobj
    except ImportError:  # numba missing or reorganised: keep its behaviour
        return False
    original = getattr(arrayobj, "fix_integer_index", None)
    if original is None or getattr(original, "__code__", None) is None:
        return False
    if original.__code__.co_varnames[:5] != ("context", "builder", "idxty", "idx", "size"):
        return False

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.startswith(SCOPES):
            return context.cast(builder, idx, idxty, types.intp)
        return original(context, builder, idxty, idx, size)

    fix_integer_index.__wrapped__ = original
    arrayobj.fix_integer_index = fix_integer_index
    _state["installed"] = True
    return True


def installed() -> bool:
    """Whether :func:`install` is active in this process."""
    return _state["installed"]
