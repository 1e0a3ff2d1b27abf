"""Cold-compile cost of the first command of each kind, per jitted entry point.

Each SCENARIO runs the real command line (``playout gtp`` / ``bg`` / ``solve``) in a child
process whose numba cache is an empty temporary folder (``NUMBA_CACHE_DIR``), so the shared
``__pycache__`` caches are neither used nor disturbed.  A listener on numba's
``numba:compile`` events (:mod:`numba.core.event`) records every function numba compiles:
its signature, the wall and CPU seconds of its compile (inclusive: a caller's compile contains its callees'), the
exclusive seconds (its own type inference, lowering and LLVM passes, callees' compiles
subtracted; listed by exclusive CPU seconds) and the functions it inlines at numba-IR level (``inline="always"``,
transitively: those are recompiled inside every caller).  Reported per scenario: wall and CPU
seconds of the child (``os.wait4`` resource usage: on a shared machine the CPU figure is the
one to compare), seconds spent compiling, and the entry points by exclusive seconds.

Usage::

    python benchmarks/compile_cost.py                 # all scenarios
    python benchmarks/compile_cost.py go bg-eval      # some
    python benchmarks/compile_cost.py --warm go       # the same run with the cache left warm
    python benchmarks/compile_cost.py --json          # one JSON object per scenario

Measured (child CPU seconds from an empty cache; 2-core VM shared with other jobs, so the wall
times were 3-5x these; compiling is single-threaded, so on an idle machine wall ~ CPU):

===============  ==========  =========  =============================================
scenario         before      after      what was cut
===============  ==========  =========  =============================================
go (genmove)     204 s       36 s       move_props / _complete_codes called, not
                                        inlined ~20 times (play_update 122 -> 9 s)
gtp warm-up      + ~25 s     + 0        final_score compiled a 2nd search signature
bg-eval          18.6 s      12.8 s     legal_moves_core calls _can_move/_do_h
bg-hint          21.5 s      13.8 s     (7 inlined copies each); 1 shot_stats
                                        specialisation instead of 3 literal ones
bg-rollout       116 s       54 s       _best_roll calls _new_leaf (8 inlined copies);
                                        no literal-argument specialisations (np.int64 /
                                        np.bool_ at call sites); _rank_roll's rare
                                        leaves call one copy (7 inlined -> 2)
solve-gridworld  3.8 s       3.8 s      (unchanged)
===============  ==========  =========  =============================================

Scenarios: ``go`` (``playout gtp --no-warm-up --playouts 100``, first ``genmove``),
``bg-eval``, ``bg-hint``, ``bg-cube-ply2`` (the cubeful n-ply search), ``bg-rollout`` (first
command of each), ``solve-DOMAIN`` for each
built-in domain (``--engine compiled``, 200 iterations), ``warm-up`` (``playout warm-up all``).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

BG_POS = "4HPwATDgc/ABMA"  # the starting position, gnubg ID
SCENARIOS: dict[str, tuple[list[str], str]] = {
    "go": (["gtp", "--no-warm-up", "--playouts", "100", "--seed", "1"],
           "boardsize 9\nclear_board\ngenmove b\nquit\n"),
    "bg-eval": (["bg", "eval", BG_POS], ""),
    "bg-hint": (["bg", "hint", BG_POS, "--dice", "31"], ""),
    "bg-cube-ply2": (["bg", "cube", BG_POS, "--ply", "2"], ""),
    "bg-rollout": (["bg", "rollout", BG_POS, "--trials", "36", "--workers", "0"], ""),
    "warm-up": (["warm-up", "all"], ""),
}
for _d in ("gridworld", "push_your_luck", "twenty48", "connect4", "reversi"):
    SCENARIOS[f"solve-{_d}"] = (["solve", _d, "--iterations", "200", "--engine", "compiled"], "")


def _inlined(py_func, seen=None) -> list[str]:
    """Names of the ``inline="always"`` jitted functions ``py_func`` calls, transitively."""
    from numba.core.registry import CPUDispatcher

    seen = set() if seen is None else seen
    out = []
    g = py_func.__globals__
    for name in py_func.__code__.co_names:
        obj = g.get(name)
        if isinstance(obj, CPUDispatcher) and obj.targetoptions.get("inline") == "always":
            q = f"{obj.py_func.__module__}.{obj.py_func.__name__}"
            if q not in seen:
                seen.add(q)
                out.append(q)
                out.extend(_inlined(obj.py_func, seen))
    return out


def child(scenario: str, out_file: str) -> None:
    """Run one scenario in this process with a compile-event listener; write JSON to out_file."""
    from numba.core import event

    records: list[dict] = []
    stacks: dict[int, list] = {}

    class Listener(event.Listener):
        def on_start(self, ev):
            stacks.setdefault(threading.get_ident(), []).append(
                [time.perf_counter(), time.thread_time(), 0.0, 0.0])

        def on_end(self, ev):
            st = stacks[threading.get_ident()]
            t0, c0, nested, cnested = st.pop()
            dt = time.perf_counter() - t0
            dc = time.thread_time() - c0
            if st:
                st[-1][2] += dt
                st[-1][3] += dc
            d = ev.data["dispatcher"]
            f = d.py_func
            records.append({
                "function": f"{f.__module__}.{f.__qualname__}",
                "args": str(ev.data["args"]),
                "seconds": dt,
                "exclusive": dt - nested,
                "cpu": dc,
                "cpu_exclusive": dc - cnested,
                "top_level": not st,
                "inlines": _inlined(f),
            })

    event.register("numba:compile", Listener())
    from playout.cli import main

    argv, stdin = SCENARIOS[scenario]
    sys.stdin = io.StringIO(stdin)
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # the command's own output is not the report
    t0 = time.perf_counter()
    c0 = time.process_time()
    status = 0
    try:
        main.main(argv, prog_name="playout", standalone_mode=False)
    except SystemExit as exc:
        status = exc.code or 0
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        status = f"{type(exc).__name__}: {exc}"
    finally:
        sys.stdout = real_stdout
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    with open(out_file, "w") as fh:
        json.dump({"scenario": scenario, "status": status, "command_wall": wall,
                   "command_cpu": cpu, "compiles": records}, fh)


def measure(scenario: str, cache_dir: str | None) -> dict:
    """Run ``scenario`` in a child process with numba's cache in ``cache_dir`` (a fresh empty
    folder when None); return the child's report plus its wall and CPU seconds."""
    tmp = tempfile.mkdtemp(prefix="compile-cost-")
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = cache_dir or os.path.join(tmp, "numba")
    out_file = os.path.join(tmp, "report.json")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", scenario, out_file], env=env,
                            stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read()
    proc.stderr.close()
    try:
        with open(out_file) as fh:
            rep = json.load(fh)
    except OSError:
        rep = {"scenario": scenario, "status": f"child failed: {stderr.strip()[-400:]}",
               "compiles": []}
    rep["wall"] = wall
    rep["cpu"] = usage.ru_utime + usage.ru_stime
    rep["stderr"] = stderr
    rep["compile_seconds"] = sum(r["seconds"] for r in rep["compiles"] if r["top_level"])
    rep["compile_cpu"] = sum(r["cpu"] for r in rep["compiles"] if r["top_level"])
    return rep


def report(rep: dict, top: int) -> str:
    lines = [f"== {rep['scenario']}: {rep['wall']:.1f} s wall, {rep['cpu']:.1f} s CPU "
             f"(child process); compiling {rep['compile_seconds']:.1f} s wall, "
             f"{rep['compile_cpu']:.1f} s CPU in "
             f"{len(rep['compiles'])} compiles; status {rep['status']}"]
    by = sorted(rep["compiles"], key=lambda r: -r["cpu_exclusive"])
    for r in by[:top]:
        inl = f"  inlines {len(r['inlines'])}: {', '.join(x.rsplit('.', 1)[1] for x in r['inlines'])}" \
            if r["inlines"] else ""
        lines.append(f"  {r['cpu_exclusive']:6.2f} s CPU excl {r['cpu']:6.2f} s incl  {r['function']}"
                     f"{r['args'] if len(r['args']) < 120 else r['args'][:117] + '...'}{inl}")
    dup: dict[str, int] = {}
    for r in rep["compiles"]:
        dup[r["function"]] = dup.get(r["function"], 0) + 1
    many = {k: v for k, v in dup.items() if v > 1}
    if many:
        lines.append("  compiled more than once (several signatures): "
                     + ", ".join(f"{k.rsplit('.', 1)[1]} x{v}" for k, v in sorted(many.items())))
    announced = [ln for ln in rep.get("stderr", "").splitlines() if "compil" in ln.lower()]
    if announced:
        lines.append("  stderr: " + " | ".join(announced[:3]))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", help=f"of {', '.join(SCENARIOS)} (default: all "
                    "but warm-up)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--top", type=int, default=12, help="entry points listed per scenario")
    ap.add_argument("--warm", action="store_true",
                    help="run each scenario twice in one cache folder; report the second run")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    names = a.scenarios or [s for s in SCENARIOS if s != "warm-up"]
    bad = [s for s in names if s not in SCENARIOS]
    if bad:
        ap.error(f"unknown scenario {bad[0]!r} (choose from {', '.join(SCENARIOS)})")
    for s in names:
        cache = tempfile.mkdtemp(prefix="compile-cost-cache-") if a.warm else None
        if a.warm:
            measure(s, cache)
        rep = measure(s, cache)
        if a.json:
            rep.pop("stderr", None)
            print(json.dumps(rep), flush=True)
        else:
            print(report(rep, a.top), flush=True)


if __name__ == "__main__":
    main()
