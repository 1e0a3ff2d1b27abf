"""Share of Pons' Test_L3_R1 Connect 4 positions where compiled MCTS (10,000
iterations) picks a move that keeps the position's exact value, scored by the
exact solver (:mod:`playout.domains.connect4_solver`); target >= 95%.

Same as ``playout bench connect4-quality`` (see :mod:`playout.cli.bench`).

    python benchmarks/connect4_quality.py [--iterations 10000] [--limit N] [--json]
"""

from playout.cli.bench import bench

if __name__ == "__main__":
    bench.main(["connect4-quality", *__import__("sys").argv[1:]], prog_name="connect4_quality.py")
