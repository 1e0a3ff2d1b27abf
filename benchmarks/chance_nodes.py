"""Explicit chance nodes against sampled successors (issue 16 item 3), stateful solver.

For 2048 (from the anchor's demo grid) and Push Your Luck (from no marks), plays
``--episodes`` episodes of at most ``--steps`` moves with
:class:`playout.mcts.StatefulSolver` deciding every move at an equal number of
iterations, once with ``chance="sampled"`` (today's solver: one successor sampled
with ``transition`` per descent) and once with ``chance="expected"`` (expectimax
chance edges over ``chance_outcomes``).  Both use the library's default
exploration (normalised, C = 1.0) and the domain's anchor discount; the
rollout depth is ``--depth``.  The environment's dice come from
``random.Random(episode)``, the solver's from the episode and step, the same
for both modes, so the two columns are paired.

Score: the undiscounted sum of the rewards over the episode (2048: log2 of the
largest tile per move; Push Your Luck: the cash-outs).  Printed: the mean with
its 95% interval (normal, 1.96 standard errors), the paired mean difference
expected - sampled with its 95% interval, and the mean seconds per decision.

    python benchmarks/chance_nodes.py --domain push_your_luck --episodes 20
    python benchmarks/chance_nodes.py --domain twenty48 --episodes 10 --iterations 100
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time

from playout.domains import get_domain
from playout.mcts import StatefulSolver


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval (0 for one sample)."""
    m = statistics.fmean(xs)
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, h


def episode(name: str, mode: str, ep: int, steps: int, iterations: int, depth: int) -> tuple[float, float, int]:
    """(score, seconds searched, decisions) of one episode."""
    spec = get_domain(name)
    mdp = spec.factory()
    env = random.Random(ep)
    state = mdp.initial_state()
    score, seconds, n = 0.0, 0.0, 0
    for step in range(steps):
        if mdp.is_terminal(state):
            break
        t0 = time.perf_counter()
        res = StatefulSolver(mdp, root_state=state, chance=mode, discount_factor=spec.discount,
                             simulation_depth_limit=depth, seed=ep * 100_003 + step
                             ).run_tree_search(iterations=iterations)
        seconds += time.perf_counter() - t0
        n += 1
        nxt = mdp.transition(state, res.action, env)
        score += mdp.checked_reward(state, res.action, nxt)
        state = nxt
    return score, seconds, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--domain", choices=["twenty48", "push_your_luck"], required=True)
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--steps", type=int, default=50, help="moves per episode at most")
    ap.add_argument("--iterations", type=int, default=200, help="iterations per decision (both modes)")
    ap.add_argument("--depth", type=int, default=50, help="rollout depth limit")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows: dict[str, list[tuple[float, float, int]]] = {}
    for mode in ("sampled", "expected"):
        rows[mode] = [episode(a.domain, mode, ep, a.steps, a.iterations, a.depth) for ep in range(a.episodes)]
    out = {"domain": a.domain, "episodes": a.episodes, "steps": a.steps, "iterations": a.iterations,
           "depth": a.depth}
    for mode, rs in rows.items():
        m, h = interval([r[0] for r in rs])
        out[mode] = {"mean_score": m, "ci95": h,
                     "seconds_per_decision": sum(r[1] for r in rs) / max(1, sum(r[2] for r in rs))}
    d, hd = interval([e[0] - s[0] for e, s in zip(rows["expected"], rows["sampled"])])
    out["expected_minus_sampled"] = {"mean": d, "ci95": hd}
    if a.json:
        print(json.dumps(out))
        return
    print(f"{a.domain}: {a.episodes} episodes of <= {a.steps} moves, {a.iterations} iterations per decision, "
          f"rollout depth {a.depth}")
    for mode in ("sampled", "expected"):
        r = out[mode]
        print(f"  {mode:8s}: mean score {r['mean_score']:.2f} +- {r['ci95']:.2f} (95%), "
              f"{r['seconds_per_decision'] * 1000:.1f} ms per decision")
    print(f"  expected - sampled (paired): {d:+.2f} +- {hd:.2f} (95%)")


if __name__ == "__main__":
    main()
