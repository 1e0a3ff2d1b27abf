"""The compiled search path: the generic MCTS algorithm as a numba kernel.

This runs exactly the algorithm of :class:`playout.mcts.generic.GenericSolver`
(read that first; it is the readable reference) over the built-in domains'
numba primitives (``playout.domains.<name>_nb``):

1. *select*: from the root, while the node's (replayed) state is non-terminal,
   its depth is below the maximum tree depth and every legal action already has
   a child, move to the child maximising UCT ``mean + C sqrt(ln N / n)`` (mean
   from the chooser's view; the first maximum in action order wins; the
   exploration term is 0 while ``N <= 1``), replaying the transition (stochastic
   domains resample it) and recording the edge reward;
2. *expand*: pick an untried legal action uniformly at random, create its node,
   apply the transition;
3. *simulate*: uniformly random actions (or Reversi's heuristic table) until a
   terminal state or ``depth`` steps; the discounted return ``r1 + g r2 + ...``
   (``+ g^k evaluate(state)`` when cut off), in player 0's frame;
4. *backpropagate*: from the new node up, ``G = r_edge + g G``; each node counts a
   visit and adds ``G`` (``-G`` if its chooser is player 1) to its total and max;
   the root only counts visits.

The tree is a set of preallocated arrays indexed by node (``iterations + 1``
nodes; ``child[node, action]`` is -1 until expanded, so memory is about
``(iterations + 1) * n_actions * 4`` bytes: 2.6 MB for 10,000 Reversi
iterations), in the style of DeepMind's mctx.  The kernel is written once over
an integer domain id; the id is compiled as a literal type and the ``d_*``
dispatchers resolve it at compile time (numba overloads), so each domain gets
its own machine code and only the domains in use are compiled.  Reversi is
deterministic, so the generic tree equals the stateful solver's (one state per
node).  Randomness: one xorshift64* stream seeded per
call (:mod:`playout.mcts.nbrng`), so a seeded search is reproducible, though
not equal to the Python solver's ``random.Random`` draws.

The module is imported lazily (``playout.mcts`` does not import it), so a CLI
start compiles or loads nothing until a compiled search is requested.  All
kernels use ``cache=True``: in a fresh environment the first domain searched
compiles in about 6-7 s and each further domain in about 1.5-2 s (2-core VM);
later processes load the cache (``playout solve connect4`` then starts in about
0.6 s).  Numba checks a cache only against its own source file, so at import
this module flushes its caches if a primitive module is newer.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numba import njit, typeof, types
from numba.extending import overload

from playout.domains import connect4_nb, gridworld_nb, push_your_luck_nb, reversi_nb, twenty48_nb
from playout.mcts import nbrng
from playout.jitcache import announce_compile, flush_stale_caches
from playout.mcts.nbrng import randint, seed_state
from playout.mcts.result import ActionStats, SearchResult

GRIDWORLD, PUSH_YOUR_LUCK, TWENTY48, CONNECT4, REVERSI = 0, 1, 2, 3, 4

#: domain name -> (domain id, primitives module)
DOMAINS = {
    "gridworld": (GRIDWORLD, gridworld_nb),
    "push_your_luck": (PUSH_YOUR_LUCK, push_your_luck_nb),
    "twenty48": (TWENTY48, twenty48_nb),
    "connect4": (CONNECT4, connect4_nb),
    "reversi": (REVERSI, reversi_nb),
}
DOMAINS_BY_ID = {i: mod for i, mod in DOMAINS.values()}
NO_LIMIT = 1 << 62


# -- dispatch over domains ------------------------------------------------------
# Each ``d_*`` function forwards to the domain module's primitive.  Called from
# plain Python (NUMBA_DISABLE_JIT) it looks the module up at run time; inside a
# kernel compiled for a literal domain id, its numba overload resolves the module
# at compile time, so only that domain's primitives are compiled and inlined.
def _primitive(dom: Any, name: str) -> Any:
    """The numba primitive ``name`` of the domain whose id is the literal type ``dom``."""
    if not isinstance(dom, types.IntegerLiteral):
        return None
    return getattr(DOMAINS_BY_ID[dom.literal_value], name, None)


def n_actions(dom):
    return DOMAINS_BY_ID[dom].N_ACTIONS


def d_legal(dom, s, out):
    return DOMAINS_BY_ID[dom].legal(s, out)


def d_step(dom, s, a, rs):
    return DOMAINS_BY_ID[dom].step(s, a, rs)


def d_terminal(dom, s):
    return DOMAINS_BY_ID[dom].terminal(s)


def d_to_play(dom, s):
    return DOMAINS_BY_ID[dom].to_play(s)


def d_evaluate(dom, s):
    return DOMAINS_BY_ID[dom].evaluate(s)


def d_heuristic_action(dom, acts, n, rs, weights):
    """The domain's heuristic simulation move (Reversi's weight table), else uniform."""
    fn = getattr(DOMAINS_BY_ID[dom], "heuristic_action", None)
    return acts[randint(rs, n)] if fn is None else fn(acts, n, rs, weights)


@overload(n_actions, prefer_literal=True)
def _ol_n_actions(dom):
    if not isinstance(dom, types.IntegerLiteral):
        return None
    na = DOMAINS_BY_ID[dom.literal_value].N_ACTIONS
    return lambda dom: na


@overload(d_legal, prefer_literal=True)
def _ol_legal(dom, s, out):
    fn = _primitive(dom, "legal")
    return None if fn is None else (lambda dom, s, out: fn(s, out))


@overload(d_step, prefer_literal=True)
def _ol_step(dom, s, a, rs):
    fn = _primitive(dom, "step")
    return None if fn is None else (lambda dom, s, a, rs: fn(s, a, rs))


@overload(d_terminal, prefer_literal=True)
def _ol_terminal(dom, s):
    fn = _primitive(dom, "terminal")
    return None if fn is None else (lambda dom, s: fn(s))


@overload(d_to_play, prefer_literal=True)
def _ol_to_play(dom, s):
    fn = _primitive(dom, "to_play")
    return None if fn is None else (lambda dom, s: fn(s))


@overload(d_evaluate, prefer_literal=True)
def _ol_evaluate(dom, s):
    fn = _primitive(dom, "evaluate")
    return None if fn is None else (lambda dom, s: fn(s))


@overload(d_heuristic_action, prefer_literal=True)
def _ol_heuristic_action(dom, acts, n, rs, weights):
    if not isinstance(dom, types.IntegerLiteral):
        return None
    fn = _primitive(dom, "heuristic_action")
    if fn is None:
        return lambda dom, acts, n, rs, weights: acts[randint(rs, n)]
    return lambda dom, acts, n, rs, weights: fn(acts, n, rs, weights)


@njit(cache=True, inline="always")
def rollout(dom, s, depth, g, rs, heuristic, weights, acts):
    """Discounted return of one simulation from ``s`` (modified in place), player 0's frame."""
    total = 0.0
    w = 1.0
    for _ in range(depth):
        n = d_legal(dom, s, acts)
        if n == 0:  # terminal (every domain has actions in non-terminal states)
            return total
        if heuristic:
            a = d_heuristic_action(dom, acts, n, rs, weights)
        else:
            a = acts[randint(rs, n)]
        p = d_to_play(dom, s)
        r = d_step(dom, s, a, rs)
        total += w * (r if p == 0 else -r)
        w *= g
    if not d_terminal(dom, s):
        v = d_evaluate(dom, s)
        total += w * (v if d_to_play(dom, s) == 0 else -v)
    return total


@njit(cache=True)
def _search_kernel(dom, root, iterations, c, g, depth, max_tree_depth, heuristic, weights,
                   child, visits, total, best, chooser, ndepth, path, path_r, rs, meta):
    """Run ``iterations`` more MCTS iterations from state array ``root``.

    The tree lives in the caller's arrays (node-indexed, capacity at least
    ``meta[0] + iterations``; see :class:`_Tree`): ``child`` (nodes, n_actions)
    int32, -1 until expanded; ``visits``; ``total`` and ``best`` (return sum and
    max in the chooser's frame); ``chooser`` (player who picked the edge into the
    node); ``ndepth``; ``path``/``path_r`` scratch.  ``rs`` is the random
    stream, ``meta[0]`` the number of nodes in use (1: the root alone); both
    advance, so repeated calls continue one search.
    """
    na = child.shape[1]
    acts = np.empty(na, dtype=np.int64)
    s = np.empty_like(root)
    nodes = meta[0]
    for _ in range(iterations):
        s[:] = root
        node = 0
        plen = 0
        while ndepth[node] < max_tree_depth:
            n = d_legal(dom, s, acts)
            if n == 0:
                break  # terminal
            untried = 0
            for i in range(n):
                if child[node, acts[i]] < 0:
                    untried += 1
            if untried > 0:  # expand
                k = randint(rs, untried)
                a = -1
                for i in range(n):
                    if child[node, acts[i]] < 0:
                        if k == 0:
                            a = acts[i]
                            break
                        k -= 1
                new = nodes
                nodes += 1
                child[node, a] = new
                ndepth[new] = ndepth[node] + 1
                p = d_to_play(dom, s)
                chooser[new] = p
                r = d_step(dom, s, a, rs)
                path[plen] = new
                path_r[plen] = r if p == 0 else -r
                plen += 1
                break
            # select by UCT
            log_n = math.log(visits[node]) if visits[node] > 1 else 0.0
            pick = -1
            pick_score = -np.inf
            for i in range(n):
                ch = child[node, acts[i]]
                sc = total[ch] / visits[ch] + c * math.sqrt(log_n / visits[ch])
                if sc > pick_score:
                    pick_score = sc
                    pick = i
            a = acts[pick]
            p = d_to_play(dom, s)
            r = d_step(dom, s, a, rs)
            node = child[node, a]
            path[plen] = node
            path_r[plen] = r if p == 0 else -r
            plen += 1
        value = rollout(dom, s, depth, g, rs, heuristic, weights, acts)
        for k in range(plen - 1, -1, -1):
            nd = path[k]
            value = path_r[k] + g * value
            visits[nd] += 1
            mine = value if chooser[nd] == 0 else -value
            total[nd] += mine
            if mine > best[nd]:
                best[nd] = mine
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
                self.path_r, self.rs, self.meta)


def legal_actions(domain_name: str, s: np.ndarray) -> list[int]:
    """Legal action ids of state array ``s`` (compiles only that domain's primitive)."""
    mod = DOMAINS[domain_name][1]
    acts = np.empty(mod.N_ACTIONS, dtype=np.int64)
    n = mod.legal(s, acts)
    return [int(a) for a in acts[:n]]


# numba re-validates a cache only against its own file: flush this module's caches
# if a primitive module it inlines is newer (see playout.jitcache).
_PRIMITIVE_FILES = [nbrng.__file__] + [mod.__file__ for _, mod in DOMAINS.values()]
flush_stale_caches(globals(), _PRIMITIVE_FILES)
for _, _mod in DOMAINS.values():
    flush_stale_caches(vars(_mod), [nbrng.__file__])


# -- Python entry ----------------------------------------------------------------
_KERNELS: dict[int, Any] = {}


def _kernel_for(dom: int, args: tuple) -> Any:
    """The compiled ``_search_kernel`` specialised for domain ``dom``, called without dispatch.

    The domain id is typed as a literal so each domain gets its own machine code
    (the ``d_*`` overloads pick that domain's primitives; each domain compiles
    and caches separately).  ``literally`` would make the dispatcher retry type inference on
    every call (about 2 ms), so we compile (or load from the cache) the literal
    signature once and keep its entry point, which takes the same arguments.
    """
    fn = _KERNELS.get(dom)
    if fn is None:
        if not hasattr(_search_kernel, "compile"):  # NUMBA_DISABLE_JIT: plain Python
            fn = _search_kernel
        else:
            sig = (types.literal(dom),) + tuple(typeof(a) for a in args)
            name = next((k for k, (i, _) in DOMAINS.items() if i == dom), str(dom))
            announce_compile(f"the MCTS search kernel for {name}", "2-10 s", _search_kernel,
                             sig=sig)
            fn = _search_kernel.compile(sig)
        _KERNELS[dom] = fn
    return fn


_WEIGHTS: np.ndarray | None = None


def _reversi_weights() -> np.ndarray:
    """mctreesearch4j's Reversi heuristic table (the domain's package data) by square index."""
    global _WEIGHTS
    if _WEIGHTS is None:
        from playout.domains.reversi import heuristic_weights

        _WEIGHTS = reversi_nb.weights_array(heuristic_weights())
    return _WEIGHTS


def state_array(domain_name: str, state: Any, *, anchor_terminal: bool = False) -> np.ndarray:
    """The Python domain ``state`` as the compiled kernel's state array.

    Raises ``ValueError`` for a domain without a compiled path.
    """
    if domain_name not in DOMAINS:
        raise ValueError(f"no compiled path for domain {domain_name!r}; known: {', '.join(DOMAINS)}")
    _, mod = DOMAINS[domain_name]
    if domain_name == "twenty48":
        return mod.to_array(state, anchor_terminal=anchor_terminal)
    return mod.to_array(state)


def search_array(
    domain_name: str,
    root: np.ndarray,
    iterations: int | None,
    c: float,
    discount: float,
    depth: int,
    seed: int = 0,
    max_tree_depth: int | None = None,
    policy: str = "uniform",
    seconds: float | None = None,
) -> SearchResult:
    """:func:`search` from a state array (see :func:`state_array`)."""
    if domain_name not in DOMAINS:
        raise ValueError(f"no compiled path for domain {domain_name!r}; known: {', '.join(DOMAINS)}")
    if policy not in ("uniform", "heuristic"):
        raise ValueError(f"policy must be 'uniform' or 'heuristic', got {policy!r}")
    if policy == "heuristic" and domain_name != "reversi":
        raise ValueError("the heuristic simulation policy exists for reversi only")
    if iterations is None and seconds is None:
        raise ValueError("give iterations=N or seconds=S")
    if iterations is not None and iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
    if not 0.0 < discount <= 1.0:
        raise ValueError(f"discount must be in (0, 1], got {discount}")
    dom, mod = DOMAINS[domain_name]
    weights = _reversi_weights() if policy == "heuristic" else np.zeros(1)
    if not legal_actions(domain_name, root):
        raise ValueError(f"the root state of {domain_name} is terminal; nothing to search")
    mtd = NO_LIMIT if max_tree_depth is None else int(max_tree_depth)
    root = np.ascontiguousarray(root, dtype=np.int64)
    limit = NO_LIMIT if iterations is None else int(iterations)
    first = limit if seconds is None else min(limit, 32)
    tree = _Tree(mod.N_ACTIONS, first + 1, int(seed) & 0x7FFFFFFFFFFFFFFF)
    fixed = (root, float(c), float(discount), int(depth), mtd, policy == "heuristic", weights)

    kernel = _kernel_for(dom, (fixed[0], first, *fixed[1:], *tree.arrays()))  # compile outside the clock

    def run(n: int) -> None:
        tree.reserve(n)
        kernel(dom, fixed[0], n, *fixed[1:], *tree.arrays())

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
    for a in legal_actions(domain_name, root):
        ch = int(tree.child[0, a])
        if ch < 0:
            continue
        n = int(tree.visits[ch])
        expl = math.inf if n == 0 else (0.0 if root_visits <= 1 else c * math.sqrt(math.log(root_visits) / n))
        stats.append(ActionStats(mod.action_of(a), n, float(tree.total[ch]) / n if n else 0.0,
                                 float(tree.best[ch]), expl))
    best = max(stats, key=lambda st: st.visits)
    return SearchResult(best.action, tuple(stats), done, elapsed)


def search(
    domain_name: str,
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
) -> SearchResult:
    """Compiled MCTS from a Python domain state; the same result type as the Python solvers.

    Args:
        domain_name: one of ``gridworld``, ``push_your_luck``, ``twenty48``,
            ``connect4``, ``reversi``.
        state: a state of the Python domain (``None``: its initial state).
        iterations: MCTS iterations (>= 1); with ``seconds``, an upper bound.
            ``None`` with no ``seconds``: 1000.
        seconds: stop after about this much wall time (checked between kernel
            calls of a growing number of iterations; the overshoot is about a
            quarter of the remaining time at the last check).
        c, discount, depth: UCT constant, reward discount factor and simulation
            depth limit; ``None`` takes the domain's registry defaults (the
            anchor's settings).
        seed: seed of the kernel's random stream.
        max_tree_depth: nodes at this depth are not expanded (``None``: no limit).
        policy: ``"uniform"`` or (Reversi) ``"heuristic"`` simulation.
        anchor_terminal: 2048 only: end a game on a full grid or a 2048 tile
            (mctreesearch4j's rule) instead of when no move is left.

    Returns:
        :class:`~playout.mcts.result.SearchResult` with actions in the Python
        domain's types (e.g. ``"left"``, column ``3``).

    Raises:
        ValueError: unknown domain, bad option, or a terminal root state.
    """
    if domain_name not in DOMAINS:
        raise ValueError(f"no compiled path for domain {domain_name!r}; known: {', '.join(DOMAINS)}")
    if state is None or c is None or discount is None or depth is None:
        spec = _spec(domain_name)
        if state is None:
            state = spec.factory().initial_state()
        c = spec.c if c is None else c
        discount = spec.discount if discount is None else discount
        depth = spec.depth if depth is None else depth
    if iterations is None and seconds is None:
        iterations = 1000
    root = state_array(domain_name, state, anchor_terminal=anchor_terminal)
    return search_array(domain_name, root, iterations, c, discount, depth, seed, max_tree_depth, policy,
                        seconds)


def _spec(domain_name: str) -> Any:
    from playout.domains import get_domain

    return get_domain(domain_name)
