"""The stateful solver: nodes hold states.

mctreesearch4j's ``StatefulSolver`` keeps the state in each node, so a descent
costs no replayed transitions.  Each node's actions are *edges* carrying the UCT
statistics; an edge has one child per distinct next state sampled through it
(one for a deterministic domain), so a stochastic domain grows a closed-loop tree.

With ``transpositions=True`` nodes are shared through a table keyed by state
(states must then be hashable): positions reached by different move orders pool
their statistics (Childs, Brodeur & Kocsis, "Transpositions and move groups in
Monte Carlo tree search", CIG 2008: the UCT1 variant, statistics on edges, a
node's children shared).  Backpropagation follows the path of the iteration, not
parent pointers.

With ``mcts_solver=True`` the search also proves values.  Two kinds of proof
are kept, each exact:

* **Exact values** (every MDP and game).  Each node and edge carries bounds
  ``lo <= v <= hi`` on its exact value ``v``: the discounted return from there
  under optimal play, intermediate rewards included, for the player to move (an
  edge's for the player choosing it) -- the score bounds of Cazenave & Saffidine,
  "Score bounded Monte-Carlo tree search", CG 2010.  A terminal node is worth 0
  (no rewards follow); an edge ``a`` with reward ``r`` into child ``c`` is worth
  ``r + g v(c)`` (``-v(c)`` when the opponent moves at ``c``); a node is worth
  the max over its actions, an action not yet tried bounded by the domain's
  :meth:`~playout.mdp.MDP.value_bounds` (``(-inf, inf)`` by default).  A node
  is *solved* when ``lo == hi``: once every action is solved, or -- only with a
  declared upper bound ``hi`` -- once one action is proven to reach ``hi``
  (Winands et al.'s "one winning move suffices", which is sound only when the
  win is known to be the maximum).  The search stops once the root is solved;
  :attr:`SearchResult.value <playout.mcts.result.SearchResult.value>` is its
  value and the action an exact maximiser.  An action whose ``hi`` is below its
  node's ``lo`` is provably worse than another and is no longer selected nor
  recommended; a descent stops at a solved node and backs up its exact value,
  and every return backed up through a node is first clipped to its bounds.
* **Win / loss** (two-player zero-sum :class:`~playout.mdp.Game` s whose
  rewards are paid only when the game ends): MCTS-Solver proper (Winands,
  Bjornsson & Saito, "Monte-Carlo Tree Search Solver", CG 2008).  The result of
  a game is the sign of the reward of the move that ends it; a node is a proven
  win for the player to move if one action leads to a proven win for them, a
  proven loss if every action leads to a proven loss.  This proves the *result*
  whatever the discount factor.  With ``g < 1`` the exact value also depends on
  how fast the win comes, which only the first kind proves; the search stops
  once the root's result is proven (``SearchResult.value`` is then set only if
  the exact value was proven by then) and plays a proven win, the one with the
  best proven value.  A reward paid before the
  end of a game (a non-terminal transition with a non-zero reward) switches this
  kind off for the rest of the search, since the result then is the return, and
  only the first kind applies.  One-player MDPs have no "win": a reward of 0.1
  and one of 1.0 are values, not results.

Chance.  MCTS-Solver's backup is sound only along deterministic edges: one
sampled outcome of a dice roll proves nothing about the others.  An edge's
proof therefore comes

* from its one successor, when the edge is *deterministic*: every transition
  sampled through it drew nothing from the solver's ``rng``.  The MDP contract
  (:mod:`playout.mdp`) makes a stochastic transition draw its randomness from
  ``rng``, so a transition that drew nothing is a function of (state, action).
  The solver's ``rng`` counts its draws (:class:`DrawCountingRandom`, the same
  stream as :class:`random.Random`) to tell; a domain that declares nothing
  and draws from ``rng`` is stochastic, and a transition that draws but ignores
  the draw (a slip probability of 0) is conservatively stochastic too;
* from all its outcomes, when the domain enumerates them with
  ``chance_outcomes(state, action)`` (:meth:`playout.mdp.MDP.chance_outcomes`):
  the edge's value is the probability-weighted sum over its outcomes (an outcome
  not yet sampled bounded by ``value_bounds``), so it is solved once every
  outcome of positive probability is in the tree and solved; it is a proven win
  (loss) once every outcome is a proven win (loss) for the chooser.  Mixed
  outcomes are no win or loss (the value lies strictly between);
* never, otherwise: a stochastic edge without an outcome list stays unproven,
  so a root whose every line passes through chance is searched for the whole
  budget and answered by visit counts, as without ``mcts_solver``.

A transition that draws its randomness elsewhere (the global :mod:`random` or
numpy state) breaks the contract, and the solver cannot see it.
"""

from __future__ import annotations

import math
import random
from typing import Any, Generic

from playout.mdp import A, MDPError, S
from playout.mcts.result import ActionStats, SearchResult
from playout.mcts.solver import Solver, frame_sign, make_stats


class DrawCountingRandom(random.Random):
    """A :class:`random.Random` that counts its draws in :attr:`draws`.

    Every method of :class:`random.Random` draws through ``random()`` or
    ``getrandbits()`` (CPython's ``random.py``), so counting those two sees every
    draw; the stream is the same as a :class:`random.Random` in the same state.
    """

    draws: int = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()

    def getrandbits(self, k: int) -> int:
        self.draws += 1
        return super().getrandbits(k)


class Edge(Generic[S, A]):
    """An action out of a :class:`StateNode`, with its statistics.

    Attributes:
        action: the action.
        player: the player choosing it.
        visits, total, max_reward: statistics in ``player``'s frame.
        outcomes: next state -> (child node, reward in player 0's frame).
        proven: +1 / -1 / 0: proven win / loss / unknown for ``player`` (the
            win/loss proofs; only for two-player games, see the module docstring).
        lo, hi: bounds on the edge's exact value for ``player`` (discounted return
            of the action under optimal play); solved when equal.
        drew: a transition sampled through the edge drew from the solver's rng
            (the edge is stochastic); kept only with ``mcts_solver``.
        chance: the domain's ``{next_state: probability}`` for the edge
            (:meth:`playout.mdp.MDP.checked_chance_outcomes`), or ``None``.
        ostats: with ``chance="expected"``, next state -> ``[visits, return sum]``
            per outcome (``player``'s frame); ``total / visits`` is then the
            probability-weighted mean over the outcomes visited.
    """

    __slots__ = ("action", "player", "visits", "total", "max_reward", "outcomes", "proven",
                 "drew", "chance", "lo", "hi", "ostats")

    def __init__(self, action: A, player: int) -> None:
        self.action = action
        self.player = player
        self.visits = 0
        self.total = 0.0
        self.max_reward = -math.inf
        self.outcomes: dict[Any, tuple[StateNode[S, A], float]] = {}
        self.proven = 0
        self.drew = False
        self.chance: dict[Any, float] | None = None
        self.lo = -math.inf
        self.hi = math.inf
        self.ostats: dict[Any, list] | None = None

    def __repr__(self) -> str:
        return f"Edge(action={self.action!r}, visits={self.visits}, total={self.total:.3f})"


class StateNode(Generic[S, A]):
    """A node of the stateful tree.

    Attributes:
        state: the state.
        depth: depth at which the node was first reached.
        terminal: ``mdp.is_terminal(state)``.
        actions: legal actions (empty when terminal).
        edges: action -> :class:`Edge`, in expansion order.
        visits: times the node was on an iteration's path.
        player: the player to move.
        lo, hi: bounds on the node's exact value for ``player`` (0 and 0 when
            terminal); solved when equal.
        prior: ``{action: probability}`` from the solver's ``prior_fn`` (PUCT), or
            ``None`` until first needed.
    """

    __slots__ = ("state", "depth", "terminal", "actions", "edges", "visits", "player", "lo", "hi",
                 "prior")

    def __init__(self, state: S, depth: int, terminal: bool, actions: list[A], player: int) -> None:
        self.state = state
        self.depth = depth
        self.terminal = terminal
        self.actions = actions
        self.edges: dict[Any, Edge[S, A]] = {}
        self.visits = 0
        self.player = player
        self.lo = 0.0 if terminal else -math.inf
        self.hi = 0.0 if terminal else math.inf
        self.prior: dict[Any, float] | None = None

    def __repr__(self) -> str:
        return f"StateNode(state={self.state!r}, visits={self.visits})"


class StatefulSolver(Solver[S, A]):
    """MCTS over state nodes; optional transposition table and MCTS-Solver.

    Args:
        transpositions: share nodes between equal states (states must be hashable).
        mcts_solver: prove exact values (score bounds) and, for two-player games
            with rewards only at the end, wins and losses (MCTS-Solver); stop once
            the root is proven.  Proofs cross only deterministic edges and chance
            edges whose every outcome is proven (see the module docstring).  The
            solver's ``rng`` is then a :class:`DrawCountingRandom` (same stream).
        chance: ``"sampled"`` (default): a stochastic action samples one successor
            with ``transition`` per descent, and its mean is the mean of the
            returns sampled through it.  ``"expected"``: where the domain lists
            ``chance_outcomes(state, action)``, the edge is an expectimax chance
            node -- its value is ``sum_o p(o) Q(o) / sum_o p(o)`` over the outcomes
            ``o`` visited so far (``Q(o)``: the mean return through ``o``), a descent
            takes the outcome furthest below its share ``p(o)`` of the edge's
            visits (stratified: no sampling noise in the outcome counts).  Edges
            whose domain lists no outcomes, or one, are sampled as before.
        pass_expectation: with ``chance="expected"``, back up the chance edge's
            current expectation above it instead of the iteration's sampled
            return (full expectimax).  Off by default: on Push Your Luck
            (``benchmarks/chance_nodes.py``, 30 paired episodes of 50 moves, 200
            iterations a move) it scored 419 +- 137 against 577 +- 136 without it
            (early expectations over few outcomes, passed up, mislead the
            parents).
        **kwargs: see :class:`~playout.mcts.solver.Solver` (``exploration``,
            ``prior_fn``, ``value_fn``, ...).

    Raises:
        MDPError: with ``mcts_solver``, a ``chance_outcomes`` that is malformed or
            that misses a state ``transition`` sampled; a ``value_bounds`` that is
            malformed or that a proven value falls outside.
    """

    def __init__(self, mdp: Any, *, transpositions: bool = False, mcts_solver: bool = False,
                 chance: str = "sampled", pass_expectation: bool = False, **kwargs: Any) -> None:
        if chance not in ("sampled", "expected"):
            raise ValueError(f"chance must be 'sampled' or 'expected', got {chance!r}")
        super().__init__(mdp, **kwargs)
        self.chance = chance
        #: pass a chance edge's expectation up instead of the sampled return (``chance="expected"``).
        self.expected_backup = pass_expectation
        #: the action PUCT chose to expand at the node select returned (``None``: random).
        self._pending: Any = None
        self.table: dict[Any, StateNode[S, A]] | None = {} if transpositions else None
        self.mcts_solver = mcts_solver
        #: declared bounds on every state's value (``MDP.value_bounds``).
        self.bounds: tuple[float, float] = (-math.inf, math.inf)
        #: whether win/loss proofs apply (two-player game, no reward before the end so far).
        self.win_loss = False
        if mcts_solver:
            counting = DrawCountingRandom()
            counting.setstate(self.rng.getstate())
            self.rng = counting
            self.bounds = mdp.checked_value_bounds()
            self.win_loss = self.is_game and getattr(mdp, "num_players", 2) == 2
        self.root = self._node(self.root_state, 0)
        #: (node, edge, child, edge reward) records of the current iteration.
        self.path: list[tuple[StateNode[S, A], Edge[S, A], StateNode[S, A], float]] = []

    def _node(self, state: S, depth: int) -> StateNode[S, A]:
        if self.table is not None:
            found = self.table.get(state)
            if found is not None:
                return found
        terminal = bool(self.mdp.is_terminal(state))
        actions = [] if terminal else self.mdp.legal_actions(state)
        node: StateNode[S, A] = StateNode(state, depth, terminal, actions, self.player(state))
        if not terminal:
            node.lo, node.hi = self.bounds
        if self.table is not None:
            self.table[state] = node
        return node

    def new_iteration(self) -> StateNode[S, A]:
        self.path = []
        self._pending = None
        return self.root

    def _follow(self, node: StateNode[S, A], edge: Edge[S, A]) -> tuple[StateNode[S, A], bool]:
        """Sample ``edge``'s transition; return the child and whether it is new."""
        if edge.ostats is not None:
            nxt = self._pick_outcome(edge)
            reward = self.mdp.checked_reward(node.state, edge.action, nxt) * frame_sign(node.player)
        elif self.mcts_solver:
            before = self.rng.draws  # type: ignore[attr-defined]
            nxt, reward = self.step(node.state, edge.action)
            if self.rng.draws != before:  # type: ignore[attr-defined]
                edge.drew = True
            if edge.chance is not None and nxt not in edge.chance:
                raise MDPError(
                    f"{type(self.mdp).__name__}.transition sampled {nxt!r} for action {edge.action!r} "
                    f"from state {node.state!r}, which chance_outcomes does not list"
                )
        else:
            nxt, reward = self.step(node.state, edge.action)
        known = edge.outcomes.get(nxt)
        if known is not None:
            child, _ = known
            new = False
        else:
            child = self._node(nxt, node.depth + 1)
            edge.outcomes[nxt] = (child, reward)
            new = True
        if self.win_loss and reward != 0.0 and not child.terminal:
            self.win_loss = False  # a reward before the end: results are returns now
        self.path.append((node, edge, child, reward))
        return child, new

    @staticmethod
    def _pick_outcome(edge: Edge[S, A]) -> Any:
        """The outcome furthest below its share of the edge's visits: the first
        maximiser of ``p(o) (n + 1) - n(o)`` (``n``: the edge's visits)."""
        assert edge.chance is not None
        stats = edge.ostats or {}
        n = edge.visits + 1
        best, best_gap = None, -math.inf
        for nxt, p in edge.chance.items():
            seen = stats.get(nxt)
            gap = p * n - (seen[0] if seen else 0)
            if gap > best_gap:
                best, best_gap = nxt, gap
        return best

    @staticmethod
    def _solved(node: StateNode[S, A]) -> bool:
        return node.lo == node.hi

    def select(self, node: StateNode[S, A]) -> StateNode[S, A]:
        on_path = {id(node)}
        while not node.terminal and node.depth < self.max_tree_depth:
            if self.prior_fn is None:
                if len(node.edges) < len(node.actions):
                    return node
                edge = self._best_edge(node)
            else:
                if self.mcts_solver and self._solved(node) and node is not self.root:
                    return node
                action = self._puct_action(node)
                if action not in node.edges:
                    self._pending = action  # PUCT prefers an untried action: expand it
                    return node
                edge = node.edges[action]
            child, new = self._follow(node, edge)
            if new or id(child) in on_path:  # a new outcome, or a cycle through transpositions
                return child
            if self.mcts_solver and self._solved(child):
                return child  # nothing to learn below: back up its exact value
            on_path.add(id(child))
            node = child
        return node

    def _dominated(self, node: StateNode[S, A], edge: Edge[S, A]) -> bool:
        """``edge`` cannot raise ``node``'s value: its ``hi`` is below ``node.lo``,
        or equal to it while unsolved (it can at best tie)."""
        return edge.hi < node.lo or (edge.hi == node.lo and edge.lo < edge.hi)

    def _best_edge(self, node: StateNode[S, A]) -> Edge[S, A]:
        """UCT over the edges that can still change a proof.

        With ``mcts_solver``, an edge :meth:`_dominated` by the node's proven value
        is skipped, and so -- until the node's own result is proven -- is a proven
        loss (MCTS-Solver's rule: a proven win then decides the node, and a
        descent only enters a node whose result is proven through a chance edge;
        there its exact value is what is left to prove).  Below the root a solved
        edge is skipped too (nothing is left to learn there; the backup clips the
        node's returns to its bounds instead).  At the root it keeps its visits,
        which the recommendation of an unsolved root counts.
        """
        skip_lost = self.win_loss and self._node_proof(node) == 0
        skip_solved = node is not self.root
        best, best_score = None, -math.inf
        for a in node.actions:
            edge = node.edges[a]
            if self.mcts_solver and ((skip_lost and edge.proven < 0) or self._dominated(node, edge)
                                     or (skip_solved and edge.lo == edge.hi)):
                if best is None:
                    best = edge  # keep some edge when every one is skipped
                continue
            score = self.uct_score(edge.total, edge.visits, node.visits)
            if best is None or score > best_score:
                best, best_score = edge, score
        assert best is not None
        return best

    def _puct_action(self, node: StateNode[S, A]) -> Any:
        """PUCT over all of ``node``'s actions, tried or not (the module
        :mod:`playout.mcts.solver` gives the rule); the same edges as in
        :meth:`_best_edge` are skipped with ``mcts_solver``."""
        if node.prior is None:
            node.prior = self.prior(node.state, node.actions, root=node is self.root)
        tried = [e for e in node.edges.values() if e.visits]
        sum_visits = sum(e.visits for e in tried)
        fpu = sum(e.total for e in tried) / sum_visits if sum_visits else 0.0
        skip_lost = self.win_loss and self._node_proof(node) == 0
        skip_solved = node is not self.root
        best, best_score = None, -math.inf
        for a in node.actions:
            edge = node.edges.get(a)
            if edge is not None and self.mcts_solver and (
                    (skip_lost and edge.proven < 0) or self._dominated(node, edge)
                    or (skip_solved and edge.lo == edge.hi)):
                if best is None:
                    best = a
                continue
            if edge is None or edge.visits == 0:
                q, n = fpu, 0
            else:
                q, n = edge.total / edge.visits, edge.visits
            score = self.puct_score(q, n, node.prior[a], sum_visits)
            if best is None or score > best_score:
                best, best_score = a, score
        return best

    def expand(self, node: StateNode[S, A]) -> StateNode[S, A]:
        if node.terminal or node.depth >= self.max_tree_depth:
            return node
        if node is not self.root and node.visits == 0:
            return node  # select just created it from a new sampled outcome
        if self.mcts_solver and self._solved(node):
            return node
        if self._pending is not None and self._pending not in node.edges:
            action, self._pending = self._pending, None
        else:
            untried = [a for a in node.actions if a not in node.edges]
            if not untried:
                return node
            action = untried[self.rng.randrange(len(untried))]
        edge: Edge[S, A] = Edge(action, node.player)
        if self.mcts_solver or self.chance == "expected":
            edge.chance = self.mdp.checked_chance_outcomes(node.state, action)
        if self.chance == "expected" and edge.chance is not None and len(edge.chance) > 1:
            edge.ostats = {}
        if self.mcts_solver:
            edge.lo, edge.hi = self.bounds
        node.edges[action] = edge
        child, _ = self._follow(node, edge)
        return child

    def simulate(self, node: StateNode[S, A]) -> float:
        if self.mcts_solver and self._solved(node):
            return node.lo * frame_sign(node.player)  # the exact value, player 0's frame
        return self.leaf_value(node.state)

    def backpropagate(self, node: StateNode[S, A], value: float) -> None:
        """Add the return up the path.  With ``mcts_solver`` the return below each
        node is first clipped to the node's proven bounds (its exact value when
        solved), so a proven value is never backed up as less than it is.

        An ``"expected"`` chance edge records the return under its outcome; its
        mean is the probability-weighted mean over its outcomes (passed up instead
        of the sample with ``pass_expectation``)."""
        node.visits += 1
        for parent, edge, child, reward in reversed(self.path):
            if self.mcts_solver and not child.terminal:
                sign = frame_sign(child.player)
                value = sign * min(max(sign * value, child.lo), child.hi)
            value = reward + self.discount * value
            mine = value * frame_sign(edge.player)
            edge.visits += 1
            if mine > edge.max_reward:
                edge.max_reward = mine
            if edge.ostats is not None:
                st = edge.ostats.get(child.state)
                if st is None:
                    st = edge.ostats[child.state] = [0, 0.0]
                st[0] += 1
                st[1] += mine
                chance = edge.chance
                assert chance is not None
                num = den = 0.0
                for nxt, (n, tot) in edge.ostats.items():
                    p = chance[nxt]
                    num += p * tot / n
                    den += p
                q = num / den
                edge.total = q * edge.visits
                if self.expected_backup:
                    value = q * frame_sign(edge.player)
            else:
                edge.total += mine
            self.observe_q(mine)
            parent.visits += 1
            if self.mcts_solver:
                self._bound_edge(parent, edge)
                self._bound_node(parent)
                if self.win_loss:
                    self._prove(parent, edge, child, reward)

    # -- exact values: score bounds (Cazenave & Saffidine 2010) -----------
    def _outcome_bounds(self, edge: Edge[S, A], child: StateNode[S, A], reward: float) -> tuple[float, float]:
        """Bounds on ``reward + g * v(child)`` for ``edge.player`` (reward in player 0's frame)."""
        r = reward * frame_sign(edge.player)
        lo, hi = child.lo, child.hi
        if child.player != edge.player:
            lo, hi = -hi, -lo  # zero-sum: the opponent's value, negated
        if child.terminal:
            return r, r
        return r + self.discount * lo, r + self.discount * hi

    def _bound_edge(self, node: StateNode[S, A], edge: Edge[S, A]) -> None:
        """Recompute ``edge``'s bounds from its outcomes' (see the module docstring)."""
        low, high = self.bounds
        if edge.chance is not None:
            lo = hi = 0.0
            missing = 0.0
            for nxt, p in edge.chance.items():
                known = edge.outcomes.get(nxt)
                if known is None:
                    missing += p
                    continue
                a, b = self._outcome_bounds(edge, *known)
                lo += p * a
                hi += p * b
            if missing:
                lo += missing * low
                hi += missing * high
        elif edge.drew or len(edge.outcomes) != 1:
            lo, hi = low, high  # chance the domain does not enumerate: never proven
        else:
            (child, reward), = edge.outcomes.values()
            lo, hi = self._outcome_bounds(edge, child, reward)
        if lo > high or hi < low:
            raise MDPError(
                f"{type(self.mdp).__name__}.value_bounds declares values in [{low}, {high}], but action "
                f"{edge.action!r} from state {node.state!r} is proven worth "
                f"{'at least ' + repr(lo) if lo > high else 'at most ' + repr(hi)}"
            )
        edge.lo, edge.hi = max(lo, low), min(hi, high)

    def _bound_node(self, node: StateNode[S, A]) -> None:
        """``node``'s bounds: the max over its actions (untried ones: ``value_bounds``)."""
        if node.terminal:
            return
        lo = max(e.lo for e in node.edges.values()) if node.edges else -math.inf
        if len(node.edges) < len(node.actions):
            low, high = self.bounds
            node.lo, node.hi = max(lo, low), high
        else:
            node.lo, node.hi = lo, max(e.hi for e in node.edges.values())

    def root_value(self) -> float | None:
        """The root's exact value for the player to move, if solved, else ``None``."""
        return self.root.lo if self._solved(self.root) and not self.root.terminal else None

    # -- win / loss: MCTS-Solver (Winands et al. 2008) --------------------
    def _prove(self, parent: StateNode[S, A], edge: Edge[S, A], child: StateNode[S, A], reward: float) -> None:
        """Update ``edge.proven`` after an iteration passed it to ``child``.

        Deterministic edge: ``child``'s proof.  Enumerated chance edge: the common
        proof of every outcome, once all are in the tree.  Other edges: unproven.
        """
        if edge.proven:
            return
        if edge.chance is not None:
            if len(edge.outcomes) < len(edge.chance):
                return  # an outcome not sampled yet
            proofs = {self._outcome_proof(edge, c, r) for c, r in edge.outcomes.values()}
            if len(proofs) == 1:
                edge.proven = proofs.pop()
        elif not edge.drew:
            edge.proven = self._outcome_proof(edge, child, reward)

    def _outcome_proof(self, edge: Edge[S, A], child: StateNode[S, A], reward: float) -> int:
        """+1 / -1 / 0: ``child`` (reached through ``edge`` with ``reward``, player 0's
        frame) proven won / lost / unknown for the player choosing ``edge``."""
        if child.terminal:
            mine = reward * frame_sign(edge.player)
            return 1 if mine > 0 else (-1 if mine < 0 else 0)
        value = self._node_proof(child)  # for the player to move at child
        return value if child.player == edge.player else -value

    def _node_proof(self, node: StateNode[S, A]) -> int:
        """+1 / -1 if ``node`` is proven won / lost for its player to move, else 0."""
        if node.terminal or not node.actions:
            return 0
        if any(e.proven > 0 for e in node.edges.values()):
            return 1
        if len(node.edges) == len(node.actions) and all(e.proven < 0 for e in node.edges.values()):
            return -1
        return 0

    def root_proof(self) -> int:
        """+1 / -1 if the root is a proven win / loss for the player to move, else 0
        (always 0 unless win/loss proofs apply; see the module docstring)."""
        return self._node_proof(self.root) if self.win_loss else 0

    def _root_done(self) -> bool:
        return self.root_value() is not None or self.root_proof() != 0

    def run_tree_search(self, iterations: int | None = None, seconds: float | None = None) -> SearchResult:
        if not self.mcts_solver:
            return super().run_tree_search(iterations, seconds)
        # stop early once the root is proven: run in small chunks
        import time

        start = time.perf_counter()
        remaining = iterations
        while not self._root_done():
            chunk = 64 if remaining is None else min(64, remaining)
            if chunk <= 0:
                break
            left = None if seconds is None else seconds - (time.perf_counter() - start)
            if left is not None and left <= 0:
                break
            before = self.iterations_done
            super().run_tree_search(chunk, left)
            if remaining is not None:
                remaining -= self.iterations_done - before
        res = self.result(time.perf_counter() - start)
        return res

    def result(self, seconds: float = 0.0) -> SearchResult:
        res = super().result(seconds)
        if not self.mcts_solver:
            return res
        proof, value = self.root_proof(), self.root_value()
        edges = [self.root.edges[a] for a in self.root.actions if a in self.root.edges]
        if value is not None:  # an exact maximiser (most visited of them)
            pool = [e for e in edges if e.lo == e.hi == value]
        elif proof > 0:  # a proven win (the best proven value, then visits)
            best = max(e.lo for e in edges if e.proven > 0)
            pool = [e for e in edges if e.proven > 0 and e.lo == best]
        else:  # most visited among the actions not proven worse than another
            pool = [e for e in edges if e.hi >= self.root.lo and not (self.win_loss and e.proven < 0)]
        action = max(pool, key=lambda e: e.visits).action if pool else res.action
        return SearchResult(action, res.stats, res.iterations, res.seconds, proof, value)

    def root_statistics(self) -> list[ActionStats]:
        order = {a: i for i, a in enumerate(self.root.actions)}
        edges = sorted(self.root.edges.values(), key=lambda e: order[e.action])
        return make_stats(((e.action, e.visits, e.total, e.max_reward) for e in edges),
                          self.root.visits, self.c)


__all__ = ["StatefulSolver", "StateNode", "Edge", "DrawCountingRandom", "MDPError"]
