"""The compiled search path: the generic MCTS algorithm as a numba kernel.

This runs exactly the algorithm of :class:`playout.mcts.generic.GenericSolver`
(read that first; it is the readable reference) over a domain's numba
primitives, given as a value: a :class:`~playout.mcts.compiled_domain.CompiledDomain`
(``legal``, ``step``, ``is_terminal``, ``to_play``, optional ``evaluate`` and
``rollout_action``; see that module for the protocol).  The built-in domains are
such values too (``<name>_nb.DOMAIN`` beside each domain, registered by name);
this module imports no domain:

1. *select*: from the root, while the node's (replayed) state is non-terminal,
   its depth is below the maximum tree depth and every legal action already has
   a child, move to the child maximising UCT ``mean + C sqrt(ln N / n)`` (mean
   from the chooser's view; the first maximum in action order wins; the
   exploration term is 0 while ``N <= 1``), replaying the transition (stochastic
   domains resample it) and recording the edge reward;
2. *expand*: pick an untried legal action uniformly at random, create its node,
   apply the transition;
3. *simulate*: uniformly random actions (or the domain's ``rollout_action``) until a
   terminal state or ``depth`` steps; the discounted return ``r1 + g r2 + ...``
   (``+ g^k evaluate(state)`` when cut off), in player 0's frame;
4. *backpropagate*: from the new node up, ``G = r_edge + g G``; each node counts a
   visit and adds ``G`` (``-G`` if its chooser is player 1) to its total and max;
   the root only counts visits.

The tree is a set of preallocated arrays indexed by node (``iterations + 1``
nodes; ``child[node, action]`` is -1 until expanded, so memory is about
``(iterations + 1) * n_actions * 4`` bytes: 2.6 MB for 10,000 Reversi
iterations), in the style of DeepMind's mctx.  The kernel is a kernel factory
per domain: one template (``_kernel_template``) is instantiated per domain as a
new function whose globals bind ``_d_legal``, ``_d_step``, ... to that domain's
primitives, so each domain gets its own machine code with direct (inlinable)
calls, like the integer-id dispatch it replaces.  Measured against passing the
primitives as first-class function arguments (a tuple of dispatchers): that
path is about 30% slower per decision (calls through pointers) and numba cannot
cache it (the dispatcher types differ per process), so every process would pay
the 4-6 s compile.  Each instance is cached on disk under a name holding the
domain's name and a hash of its primitives' source files (and the project
modules they reach), so editing a domain -- a user's file included -- never
loads stale machine code.  Reversi is
deterministic, so the generic tree equals the stateful solver's (one state per
node).  Randomness: one xorshift64* stream seeded per
call (:mod:`playout.mcts.nbrng`), so a seeded search is reproducible, though
not equal to the Python solver's ``random.Random`` draws.

The module is imported lazily (``playout.mcts`` does not import it), so a CLI
start compiles or loads nothing until a compiled search is requested.  All
kernels use ``cache=True``: in a fresh environment the first domain searched
compiles in about 5-7 s and each further domain in about 1.5-2 s (2-core VM);
later processes load the cache (``playout solve connect4`` then starts in about
0.6 s).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import re
import time
import types as pytypes
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, typeof

from playout.jitcache import announce_compile, module_dependencies
from playout.mcts.compiled_domain import PRIMITIVES, CompiledDomain, check_domain, lookup, registered
from playout.mcts.nbrng import randint, seed_state
from playout.mcts.result import ActionStats, SearchResult

NO_LIMIT = 1 << 62


@njit(cache=True)
def _uniform_action(s, acts, n, rs, params):
    """The default simulation policy: one of ``acts[:n]`` uniformly."""
    return acts[randint(rs, n)]


@njit(cache=True)
def _zero_value(s):
    """The default ``evaluate``: 0 at the simulation depth limit."""
    return 0.0


# The template's domain primitives: bound per domain in a copy of this module's
# globals by ``kernel_for`` (these module-level names are never called).
_d_legal = _d_step = _d_is_terminal = _d_to_play = _d_evaluate = _d_rollout_action = _d_prior = None
# Compile-time switches, bound per kernel instance (numba freezes globals as constants and
# prunes the dead branch, so the plain instance compiles neither the PUCT nor the value code):
# ``_USE_PRIOR`` PUCT selection with the domain's ``prior``; ``_USE_VALUE`` leaf values from
# ``evaluate`` mixed with the rollout (``rollout_weight < 1``).
_USE_PRIOR = _USE_VALUE = False


def _kernel_template(root, iterations, c, g, depth, max_tree_depth, heuristic, weights, normalize,
                     child, visits, total, best, chooser, ndepth, path, path_r, rs, meta, qrange,
                     rollout_weight):
    """Run ``iterations`` more MCTS iterations from state array ``root``.

    The tree lives in the caller's arrays (node-indexed, capacity at least
    ``meta[0] + iterations``; see :class:`_Tree`): ``child`` (nodes, n_actions)
    int32, -1 until expanded; ``visits``; ``total`` and ``best`` (return sum and
    max in the chooser's frame); ``chooser`` (player who picked the edge into the
    node); ``ndepth``; ``path``/``path_r`` scratch.  ``rs`` is the random
    stream, ``meta[0]`` the number of nodes in use (1: the root alone); both
    advance, so repeated calls continue one search.  ``heuristic``: simulate with
    the domain's ``rollout_action(s, acts, n, rs, weights)`` instead of uniformly.
    ``normalize``: UCT compares means mapped to [0, 1] by ``qrange`` = [smallest,
    largest] return backed up through an edge of the tree (0.5 while that range is
    empty), which the backups widen (see :func:`search`, ``exploration``).
    ``rollout_weight``: AlphaGo's lambda, read only by a ``_USE_VALUE`` instance (leaf
    value ``(1 - lambda) evaluate + lambda rollout``, player 0's frame).
    """
    na = child.shape[1]
    acts = np.empty(na, dtype=np.int64)
    if _USE_PRIOR:  # (not compiled in the plain instance)
        pri = np.empty(na, dtype=np.float64)
    s = np.empty_like(root)
    nodes = meta[0]
    for _ in range(iterations):
        s[:] = root
        node = 0
        plen = 0
        while ndepth[node] < max_tree_depth:
            n = _d_legal(s, acts)
            if n == 0:
                break  # terminal
            a = -1
            expand = False
            if _USE_PRIOR:  # PUCT over every legal action, tried or not (GenericSolver._puct_action)
                _d_prior(s, acts, n, pri)
                p_sum = 0.0
                sum_visits = 0
                sum_total = 0.0
                for i in range(n):
                    if not (pri[i] >= 0.0 and pri[i] < np.inf):
                        raise ValueError("compiled domain prior: a probability is negative, NaN or infinite")
                    p_sum += pri[i]
                    ch = child[node, acts[i]]
                    if ch >= 0:
                        sum_visits += visits[ch]
                        sum_total += total[ch]
                if not p_sum > 0.0:
                    raise ValueError("compiled domain prior: the probabilities sum to 0")
                fpu = sum_total / sum_visits if sum_visits > 0 else 0.0  # the parent's mean
                sqrt_n = math.sqrt(max(sum_visits, 1))
                q_lo = qrange[0]
                span = qrange[1] - qrange[0]
                pick = -1
                pick_score = -np.inf
                for i in range(n):
                    ch = child[node, acts[i]]
                    if ch < 0:
                        q = fpu
                        nv = 0
                    else:
                        q = total[ch] / visits[ch]
                        nv = visits[ch]
                    if normalize:
                        q = (q - q_lo) / span if span > 0 else 0.5
                    sc = q + c * (pri[i] / p_sum) * sqrt_n / (1 + nv)
                    if pick < 0 or sc > pick_score:
                        pick_score = sc
                        pick = i
                a = acts[pick]
                expand = child[node, a] < 0
            else:
                untried = 0
                for i in range(n):
                    if child[node, acts[i]] < 0:
                        untried += 1
                if untried > 0:  # expand an untried action uniformly at random
                    k = randint(rs, untried)
                    for i in range(n):
                        if child[node, acts[i]] < 0:
                            if k == 0:
                                a = acts[i]
                                break
                            k -= 1
                    expand = True
                else:  # select by UCT
                    log_n = math.log(visits[node]) if visits[node] > 1 else 0.0
                    pick = -1
                    pick_score = -np.inf
                    q_lo = qrange[0]
                    span = qrange[1] - qrange[0]
                    for i in range(n):
                        ch = child[node, acts[i]]
                        q = total[ch] / visits[ch]
                        if normalize:
                            q = (q - q_lo) / span if span > 0 else 0.5
                        sc = q + c * math.sqrt(log_n / visits[ch])
                        if sc > pick_score:
                            pick_score = sc
                            pick = i
                    a = acts[pick]
            if expand:
                new = nodes
                nodes += 1
                child[node, a] = new
                ndepth[new] = ndepth[node] + 1
                p = _d_to_play(s)
                chooser[new] = p
                r = _d_step(s, a, rs)
                path[plen] = new
                path_r[plen] = r if p == 0 else -r
                plen += 1
                break
            p = _d_to_play(s)
            r = _d_step(s, a, rs)
            node = child[node, a]
            path[plen] = node
            path_r[plen] = r if p == 0 else -r
            plen += 1
        # the leaf value, player 0's frame: the rollout's return, or (_USE_VALUE) evaluate's
        # value mixed with it (0 at a terminal leaf, as the Python solvers' leaf_value)
        leaf = 0.0
        roll = True
        if _USE_VALUE:
            if _d_legal(s, acts) == 0:
                roll = False
            else:
                v = _d_evaluate(s)
                leaf = v if _d_to_play(s) == 0 else -v
                roll = rollout_weight > 0.0
        value = 0.0
        if roll:  # simulate: the discounted return from s (modified in place)
            w = 1.0
            over = False
            for _ in range(depth):
                n = _d_legal(s, acts)
                if n == 0:  # terminal (every domain has actions in non-terminal states)
                    over = True
                    break
                if heuristic:
                    a = _d_rollout_action(s, acts, n, rs, weights)
                else:
                    a = acts[randint(rs, n)]
                p = _d_to_play(s)
                r = _d_step(s, a, rs)
                value += w * (r if p == 0 else -r)
                w *= g
            if not over and not _d_is_terminal(s):
                v = _d_evaluate(s)
                value += w * (v if _d_to_play(s) == 0 else -v)
        if _USE_VALUE:
            value = (1.0 - rollout_weight) * leaf + rollout_weight * value if roll else leaf
        for k in range(plen - 1, -1, -1):
            nd = path[k]
            value = path_r[k] + g * value
            visits[nd] += 1
            mine = value if chooser[nd] == 0 else -value
            total[nd] += mine
            if mine > best[nd]:
                best[nd] = mine
            if normalize:  # the range of the returns backed up through an edge
                if mine < qrange[0]:
                    qrange[0] = mine
                if mine > qrange[1]:
                    qrange[1] = mine
        visits[0] += 1
    meta[0] = nodes


class _Tree:
    """The node arrays of one compiled search, grown on demand (see ``_search_kernel``)."""

    def __init__(self, n_actions: int, capacity: int, seed: int) -> None:
        self.n_actions = n_actions
        self.child = np.full((capacity, n_actions), -1, dtype=np.int32)
        self.visits = np.zeros(capacity, dtype=np.int64)
        self.total = np.zeros(capacity, dtype=np.float64)
        self.best = np.full(capacity, -np.inf, dtype=np.float64)
        self.chooser = np.zeros(capacity, dtype=np.int8)
        self.ndepth = np.zeros(capacity, dtype=np.int64)
        self.path = np.empty(capacity, dtype=np.int64)
        self.path_r = np.empty(capacity, dtype=np.float64)
        self.rs = seed_state(seed)
        self.meta = np.ones(1, dtype=np.int64)
        self.qrange = np.array([np.inf, -np.inf])  # smallest, largest edge mean (normalised UCT)

    @property
    def capacity(self) -> int:
        return len(self.visits)

    def reserve(self, extra_iterations: int) -> None:
        """Make room for ``extra_iterations`` more nodes (at most one per iteration)."""
        need = int(self.meta[0]) + extra_iterations
        if need <= self.capacity:
            return
        new = max(need, 2 * self.capacity)
        grow = new - self.capacity
        self.child = np.concatenate([self.child, np.full((grow, self.n_actions), -1, dtype=np.int32)])
        self.visits = np.concatenate([self.visits, np.zeros(grow, dtype=np.int64)])
        self.total = np.concatenate([self.total, np.zeros(grow)])
        self.best = np.concatenate([self.best, np.full(grow, -np.inf)])
        self.chooser = np.concatenate([self.chooser, np.zeros(grow, dtype=np.int8)])
        self.ndepth = np.concatenate([self.ndepth, np.zeros(grow, dtype=np.int64)])
        self.path = np.empty(new, dtype=np.int64)
        self.path_r = np.empty(new, dtype=np.float64)

    def arrays(self) -> tuple:
        return (self.child, self.visits, self.total, self.best, self.chooser, self.ndepth, self.path,
                self.path_r, self.rs, self.meta, self.qrange)


def resolve(domain: CompiledDomain | str) -> CompiledDomain:
    """A :class:`CompiledDomain` from a value or a registered name (built-ins: ``connect4``, ...).

    Raises ``ValueError`` (one line) for an unknown name or a value that breaks the protocol.
    """
    dom = lookup(domain) if isinstance(domain, str) else domain
    if _CHECKED.get(id(dom)) is not dom:  # validated once per object (inspect costs ~50 us)
        _CHECKED[id(dom)] = check_domain(dom)
    return dom


_CHECKED: dict[int, CompiledDomain] = {}


def legal_actions(domain: CompiledDomain | str, s: np.ndarray) -> list[int]:
    """Legal action ids of state array ``s`` (compiles only that domain's ``legal``)."""
    dom = resolve(domain)
    acts = np.empty(dom.n_actions, dtype=np.int64)
    n = dom.legal(s, acts)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 0 <= n <= dom.n_actions:
        raise ValueError(f"compiled domain {dom.name!r}: field 'legal' returned {n!r}; the protocol needs "
                         f"the number of legal actions written to out (an int in 0..{dom.n_actions})")
    return [int(a) for a in acts[:n]]


# -- the kernel factory ------------------------------------------------------------
def _fingerprint(dom: CompiledDomain) -> str | None:
    """Hash of the primitives' names and of the source of every file they reach, or ``None``
    when a primitive has no source file (defined interactively: its kernel is not cached)."""
    h = hashlib.sha256()
    files: set[str] = set()
    for field in PRIMITIVES:
        fn = getattr(dom, field)
        if fn is None:
            continue
        py = getattr(fn, "py_func", fn)
        h.update(f"{field}={py.__module__}.{py.__qualname__};".encode())
        try:
            files.add(inspect.getfile(py))
        except TypeError:
            return None
        top = str(py.__module__).partition(".")[0]
        files.update(module_dependencies(py.__globals__, top))
        files.update(module_dependencies(py.__globals__, "playout"))
    for f in sorted(files):
        try:
            h.update(Path(f).read_bytes())
        except OSError:
            return None
    return h.hexdigest()[:16]


def _bindings(dom: CompiledDomain) -> tuple:
    return (dom.legal, dom.step, dom.is_terminal, dom.to_play, dom.evaluate or _zero_value,
            dom.rollout_action or _uniform_action, dom.prior or _no_prior)


@njit(cache=True)
def _no_prior(s, acts, n, out):
    """Placeholder ``prior`` of a domain without one (never called: its branch is pruned)."""
    out[:n] = 1.0


_FACTORY: dict[tuple, Any] = {}
_ENTRY: dict[Any, Any] = {}


def kernel_for(domain: CompiledDomain | str, value: bool = False) -> Any:
    """The search kernel instantiated for ``domain`` (a numba dispatcher; cached per domain).

    A copy of ``_kernel_template`` whose globals bind the domain's primitives and the
    compile-time switches: PUCT when the domain has a ``prior``, leaf values from
    ``evaluate`` when ``value`` (``rollout_weight < 1``); the plain instance compiles
    neither.  Its name (``_search_kernel_<name>[_puct][_value]_<hash>``) names its
    on-disk cache, the hash covering the primitives' source files (see :func:`_fingerprint`).
    """
    dom = resolve(domain)
    puct = dom.prior is not None
    key = (*_bindings(dom), puct, bool(value))
    got = _FACTORY.get(key)
    if got is not None:
        return got
    fp = _fingerprint(dom)
    g = dict(_kernel_template.__globals__)
    (g["_d_legal"], g["_d_step"], g["_d_is_terminal"], g["_d_to_play"], g["_d_evaluate"],
     g["_d_rollout_action"], g["_d_prior"], g["_USE_PRIOR"], g["_USE_VALUE"]) = key
    variant = ("_puct" if puct else "") + ("_value" if value else "")
    name = f"_search_kernel_{re.sub(r'[^0-9A-Za-z_]', '_', dom.name)}{variant}_{fp or 'nocache'}"
    fn = pytypes.FunctionType(_kernel_template.__code__, g, name)
    fn.__qualname__ = name
    fn.__doc__ = _kernel_template.__doc__
    got = njit(cache=fp is not None)(fn)
    _FACTORY[key] = got
    return got


def _drop_superseded_caches(kernel: Any) -> int:
    """Delete the on-disk caches of earlier versions of ``kernel``'s domain (same domain name,
    another source hash: the domain was edited), so edits do not pile up files.  Returns the
    number of files removed; errors (a read-only or shared cache folder) are ignored."""
    m = re.fullmatch(r"(_search_kernel_\w*?)_([0-9a-f]{16})", kernel.py_func.__name__)
    folder = getattr(getattr(kernel, "_cache", None), "_cache_path", None)
    if m is None or folder is None:
        return 0
    pattern = re.compile(rf"compiled\.{re.escape(m.group(1))}_(?!{m.group(2)})[0-9a-f]{{16}}-\d+\.py\d+\w*\.(\d+\.nbc|nbi)")
    removed = 0
    try:
        for f in Path(folder).iterdir():
            if pattern.fullmatch(f.name):
                f.unlink()
                removed += 1
    except OSError:
        pass
    return removed


def _explain_compile_error(dom: CompiledDomain, exc: Exception) -> ValueError:
    """One line naming the primitive that does not compile for the kernel's argument types."""
    from numba import types as nt

    s, v = nt.Array(nt.int64, 1, "C"), nt.Array(nt.int64, 1, "C")
    rs, w = nt.Array(nt.uint64, 1, "C"), nt.Array(nt.float64, 1, "C")
    sigs = {"legal": (s, v), "step": (s, nt.int64, rs), "is_terminal": (s,), "to_play": (s,),
            "evaluate": (s,), "rollout_action": (s, v, nt.int64, rs, w), "prior": (s, v, nt.int64, w)}
    wants = {"legal": nt.Integer, "to_play": nt.Integer, "rollout_action": nt.Integer,
             "step": nt.Number, "evaluate": nt.Number, "is_terminal": (nt.Boolean, nt.Integer)}
    who = f"compiled domain {dom.name!r}"
    for field, sig in sigs.items():
        fn = getattr(dom, field)
        if fn is None:
            continue
        try:
            fn.compile(sig)
            ret = fn.overloads[tuple(sig)].signature.return_type
        except Exception as sub:  # noqa: BLE001 - numba's typing errors, reported in one line
            first = next((ln.strip() for ln in str(sub).splitlines() if ln.strip()), type(sub).__name__)
            return ValueError(f"{who}: field {field!r} does not compile for ({', '.join(map(str, sig))}): "
                              f"{first}")
        if field in wants and not isinstance(ret, wants[field]):
            return ValueError(f"{who}: field {field!r} returns {ret}; the protocol needs "
                              f"{'an integer' if wants[field] is nt.Integer else 'a number or bool'}")
    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
    return ValueError(f"{who}: the search kernel does not compile with its primitives: {first}")


def _entry(dom: CompiledDomain, args: tuple, value: bool = False) -> Any:
    """The kernel for ``dom`` compiled (or loaded from the cache) for ``args``, without dispatch.

    We compile the signature once and keep its entry point (the dispatcher's type
    resolution costs microseconds per call).  A primitive that does not compile
    (wrong types or return type) raises one ``ValueError`` line naming its field.
    """
    kernel = kernel_for(dom, value)
    fn = _ENTRY.get(kernel)  # the argument types are fixed by search_array
    if fn is None:
        if not hasattr(kernel, "compile"):  # NUMBA_DISABLE_JIT: plain Python
            fn = kernel
        else:
            sig = tuple(typeof(a) for a in args)
            cold = announce_compile(f"the MCTS search kernel for {dom.name}", "2-10 s", kernel, sig=sig)
            try:
                fn = kernel.compile(sig)
            except Exception as exc:  # noqa: BLE001 - numba's errors are many lines
                from numba.core.errors import NumbaError

                if not isinstance(exc, NumbaError):
                    raise
                raise _explain_compile_error(dom, exc) from None
            if cold:
                _drop_superseded_caches(kernel)
        _ENTRY[kernel] = fn
    return fn


def _policy_params(dom: CompiledDomain) -> np.ndarray:
    p = dom.policy_params
    if callable(p):
        p = p()
        object.__setattr__(dom, "policy_params", p)  # computed once (frozen dataclass)
    if p is None:
        return np.zeros(1)
    return np.ascontiguousarray(p, dtype=np.float64)


def state_array(domain: CompiledDomain | str, state: Any, *, anchor_terminal: bool = False) -> np.ndarray:
    """The Python domain ``state`` as the compiled kernel's state array (the domain's ``to_array``).

    ``anchor_terminal`` is passed to ``to_array`` only when set (2048's anchor rule).
    Raises ``ValueError`` for an unknown domain or one without ``to_array``.
    """
    dom = resolve(domain)
    if dom.to_array is None:
        raise ValueError(f"compiled domain {dom.name!r} has no to_array; pass a state array")
    if anchor_terminal:
        return dom.to_array(state, anchor_terminal=True)
    return dom.to_array(state)


def search_array(
    domain: CompiledDomain | str,
    root: np.ndarray,
    iterations: int | None,
    c: float,
    discount: float,
    depth: int,
    seed: int = 0,
    max_tree_depth: int | None = None,
    policy: str = "uniform",
    seconds: float | None = None,
    exploration: str = "anchor",
    rollout_weight: float = 1.0,
) -> SearchResult:
    """:func:`search` from a state array (see :func:`state_array`)."""
    dom = resolve(domain)
    rollout_weight = float(rollout_weight)
    if not 0.0 <= rollout_weight <= 1.0:
        raise ValueError(f"rollout_weight must be in [0, 1], got {rollout_weight}")
    if rollout_weight < 1.0 and dom.evaluate is None:
        raise ValueError(f"rollout_weight < 1 mixes the domain's evaluate with the rollout; "
                         f"{dom.name} has no evaluate")
    if exploration not in EXPLORATIONS:
        raise ValueError(f"exploration must be one of {', '.join(EXPLORATIONS)}, got {exploration!r}")
    if policy not in ("uniform", "heuristic"):
        raise ValueError(f"policy must be 'uniform' or 'heuristic', got {policy!r}")
    if policy == "heuristic" and dom.rollout_action is None:
        raise ValueError(f"the heuristic simulation policy needs the domain's rollout_action; "
                         f"{dom.name} has none (among the built-ins: reversi only)")
    if iterations is None and seconds is None:
        raise ValueError("give iterations=N or seconds=S")
    if iterations is not None and iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
    if not 0.0 < discount <= 1.0:
        raise ValueError(f"discount must be in (0, 1], got {discount}")
    root = np.ascontiguousarray(root, dtype=np.int64)
    if root.ndim != 1:
        raise ValueError(f"compiled domain {dom.name!r}: the state must be a 1-D int64 array, "
                         f"got shape {root.shape}")
    weights = _policy_params(dom) if policy == "heuristic" else np.zeros(1)
    root_actions = legal_actions(dom, root)
    if not root_actions:
        raise ValueError(f"the root state of {dom.name} is terminal; nothing to search")
    if max(root_actions) >= dom.n_actions or min(root_actions) < 0:
        raise ValueError(f"compiled domain {dom.name!r}: legal() gave action ids {root_actions}, "
                         f"outside 0..{dom.n_actions - 1} (n_actions)")
    mtd = NO_LIMIT if max_tree_depth is None else int(max_tree_depth)
    limit = NO_LIMIT if iterations is None else int(iterations)
    first = limit if seconds is None else min(limit, 32)
    tree = _Tree(dom.n_actions, first + 1, int(seed) & 0x7FFFFFFFFFFFFFFF)
    fixed = (root, float(c), float(discount), int(depth), mtd, policy == "heuristic", weights,
             exploration == "normalized")

    value = rollout_weight < 1.0
    # compile outside the clock
    kernel = _entry(dom, (fixed[0], first, *fixed[1:], *tree.arrays(), rollout_weight), value)

    def run(n: int) -> None:
        tree.reserve(n)
        kernel(fixed[0], n, *fixed[1:], *tree.arrays(), rollout_weight)

    t0 = time.perf_counter()
    run(first)
    done = first
    if seconds is not None:
        deadline = t0 + seconds
        while done < limit:
            now = time.perf_counter()
            if now >= deadline:
                break
            per_iteration = (now - t0) / done
            # aim at a quarter of the time left per call, so the overshoot stays small
            n = int(min(limit - done, max(16, 0.25 * (deadline - now) / max(per_iteration, 1e-9))))
            run(n)
            done += n
    elapsed = time.perf_counter() - t0
    root_visits = int(tree.visits[0])
    stats = []
    for a in root_actions:
        ch = int(tree.child[0, a])
        if ch < 0:
            continue
        n = int(tree.visits[ch])
        expl = math.inf if n == 0 else (0.0 if root_visits <= 1 else c * math.sqrt(math.log(root_visits) / n))
        stats.append(ActionStats(dom.action_of(a), n, float(tree.total[ch]) / n if n else 0.0,
                                 float(tree.best[ch]), expl))
    best = max(stats, key=lambda st: st.visits)
    return SearchResult(best.action, tuple(stats), done, elapsed)


#: the library's settings for a domain that names none (``playout solve``'s for user MDPs)
DEFAULT_C, DEFAULT_DISCOUNT, DEFAULT_DEPTH = 1.4, 1.0, 1000
#: UCT's constant on normalised means when ``c`` is not given: the Python solvers' default
#: (``Solver(exploration="normalized")``, measured there; keep the two equal)
NORMALIZED_C = 1.0
#: PUCT's constant when ``c`` is not given and the domain has a ``prior``: the Python solvers'
#: default with ``prior_fn`` (1.25, MuZero's ``c_1``; keep the two equal)
PUCT_C = 1.25
EXPLORATIONS = ("anchor", "normalized")


def search(
    domain: CompiledDomain | str,
    state: Any = None,
    iterations: int | None = None,
    c: float | None = None,
    discount: float | None = None,
    depth: int | None = None,
    seed: int = 0,
    max_tree_depth: int | None = None,
    policy: str = "uniform",
    anchor_terminal: bool = False,
    seconds: float | None = None,
    exploration: str = "anchor",
    rollout_weight: float = 1.0,
) -> SearchResult:
    """Compiled MCTS from a domain state; the same result type as the Python solvers.

    Tree policy: UCT, or AlphaZero's PUCT when the domain has a ``prior`` primitive
    (``Q + c P sqrt(N) / (1 + n)``, ``N`` the visits of the node's children added up,
    an untried action valued at the parent's mean and expanded when it wins; the rule
    of the Python solvers' ``prior_fn``, :class:`~playout.mcts.generic.GenericSolver`;
    no Dirichlet noise here).  Leaf value: the rollout's return, or with
    ``rollout_weight < 1`` AlphaGo's ``(1 - lambda) evaluate(leaf) + lambda rollout``
    (Silver et al. 2016; ``evaluate`` in the frame of the player to move at the leaf,
    0 at a terminal leaf; the Python solvers' ``value_fn`` / ``rollout_weight``).

    Args:
        domain: a :class:`~playout.mcts.compiled_domain.CompiledDomain`, or a
            registered name (the built-ins ``gridworld``, ``push_your_luck``,
            ``twenty48``, ``connect4``, ``reversi`` once the domains package
            is imported).
        state: a state of the Python domain (converted by the domain's
            ``to_array``), a state array (``np.ndarray``), or ``None``: the
            domain's ``initial_state()``.
        iterations: MCTS iterations (>= 1); with ``seconds``, an upper bound.
            ``None`` with no ``seconds``: 1000.
        seconds: stop after about this much wall time (checked between kernel
            calls of a growing number of iterations; the overshoot is about a
            quarter of the remaining time at the last check).
        c, discount, depth: UCT constant, reward discount factor and simulation
            depth limit; ``None`` takes the domain's defaults (the built-ins':
            the anchor's settings), else 1.4, 1.0, 1000.
        seed: seed of the kernel's random stream.
        max_tree_depth: nodes at this depth are not expanded (``None``: no limit).
        policy: ``"uniform"`` or ``"heuristic"`` (the domain's ``rollout_action``,
            e.g. Reversi's weight table) simulation.
        anchor_terminal: 2048 only: end a game on a full grid or a 2048 tile
            (mctreesearch4j's rule) instead of when no move is left.
        exploration: ``"anchor"`` (default here: mctreesearch4j's UCT on raw
            means, like-for-like with the anchor) or ``"normalized"``: UCT on
            means mapped to [0, 1] by the smallest and largest return backed up
            through any edge of the tree (in its chooser's frame; MuZero's
            ``MinMaxStats``, Schrittwieser et al. 2020, App. B; mctx's min-max
            ``qtransform`` idea; 0.5 while the range is empty), the rule of the
            Python solvers' ``exploration="normalized"``; then ``c`` defaults to
            :data:`NORMALIZED_C` instead of the domain's.  The reported
            exploration terms stay ``c sqrt(ln N / n)``.
        rollout_weight: lambda in [0, 1]: 1 (default) the rollout alone (``evaluate``
            only at the simulation depth cut, as before), 0 the domain's ``evaluate``
            alone (no rollout is played); needs ``evaluate`` when below 1.

    Returns:
        :class:`~playout.mcts.result.SearchResult` with actions in the domain's
        types (``action_of``; e.g. ``"left"``, column ``3``).

    Raises:
        ValueError: unknown domain, a broken protocol (one line naming the
        field), bad option, or a terminal root state.
    """
    dom = resolve(domain)
    if c is None and dom.prior is not None:
        c = PUCT_C
    if c is None and exploration == "normalized":
        c = NORMALIZED_C
    c = (dom.c if dom.c is not None else DEFAULT_C) if c is None else c
    discount = (dom.discount if dom.discount is not None else DEFAULT_DISCOUNT) if discount is None else discount
    depth = (dom.depth if dom.depth is not None else DEFAULT_DEPTH) if depth is None else depth
    if iterations is None and seconds is None:
        iterations = 1000
    if state is None:
        if dom.initial_state is None:
            raise ValueError(f"compiled domain {dom.name!r} has no initial_state; pass a state")
        root = np.asarray(dom.initial_state())
        if anchor_terminal:
            raise ValueError("anchor_terminal needs an explicit 2048 state")
    elif isinstance(state, np.ndarray):
        root = state
    else:
        root = state_array(dom, state, anchor_terminal=anchor_terminal)
    return search_array(dom, root, iterations, c, discount, depth, seed, max_tree_depth, policy, seconds,
                        exploration, rollout_weight)


def known_domains() -> list[str]:
    """Names that :func:`search` resolves (registered with :func:`playout.mcts.compiled_domain.register`)."""
    return registered()
