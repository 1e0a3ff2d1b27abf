"""Time per 500-iteration decision, playout (numba) vs mctreesearch4j and OpenSpiel.

Same as ``playout bench decision-time`` (see :mod:`playout.cli.bench`): the five
built-in domains from the anchor's timing states and settings, 2048 under the
anchor's terminal rule and ours, OpenSpiel 2.0.2's C++ and Python MCTSBot on
connect_four and othello in the same run, the pure-Python solver's per-iteration
cost against OpenSpiel's Python bot, and the start-up time of
``playout solve connect4`` with a warm and a cold numba cache.

    python benchmarks/decision_time.py [--json] [--repeats 20]
"""

from playout.cli.bench import bench

if __name__ == "__main__":
    bench.main(["decision-time", *__import__("sys").argv[1:]], prog_name="decision_time.py")
