"""The executor: same results wherever tasks run; resume after a kill."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from playout.executor import ResultsFileError, load_results, run_tasks
from procs import gone


def noisy_sum(task):
    rng = random.Random(task["seed"])
    return {"sum": sum(rng.random() for _ in range(100))}


TASKS = [{"key": f"t{i}", "seed": 1000 + i} for i in range(6)]


def test_in_process_and_pool_agree(tmp_path):
    a = run_tasks(noisy_sum, TASKS, workers=0)
    b = run_tasks(noisy_sum, TASKS, workers=2)
    assert a == b
    assert a[0] == noisy_sum(TASKS[0])


def test_results_stream_to_file_and_resume(tmp_path):
    out = tmp_path / "r.jsonl"
    setup = {"job": "noisy", "n": 6}
    run_tasks(noisy_sum, TASKS[:3], out_path=out, workers=0, setup=setup)
    lines = out.read_text().splitlines()
    assert json.loads(lines[0]) == {"setup": setup}
    assert len(lines) == 4
    calls = []

    def counting(task):
        calls.append(task["key"])
        return noisy_sum(task)

    res = run_tasks(counting, TASKS, out_path=out, workers=0, setup=setup)
    assert calls == ["t3", "t4", "t5"]  # the first three were not run again
    assert res == run_tasks(noisy_sum, TASKS, workers=0)


def test_torn_last_line_is_repaired(tmp_path):
    out = tmp_path / "r.jsonl"
    run_tasks(noisy_sum, TASKS[:2], out_path=out, workers=0)
    with open(out, "a") as fh:
        fh.write('{"key": "t2", "resu')  # killed mid-write
    assert set(load_results(out)) == {"t0", "t1"}
    assert out.read_text().endswith("\n")
    res = run_tasks(noisy_sum, TASKS, out_path=out, workers=0)
    assert len(res) == 6 and len(load_results(out)) == 6


def test_other_setup_refused(tmp_path):
    out = tmp_path / "r.jsonl"
    run_tasks(noisy_sum, TASKS[:1], out_path=out, workers=0, setup={"seed": 1})
    with pytest.raises(ResultsFileError, match=r"r\.jsonl:1: results file is for a different setup"):
        run_tasks(noisy_sum, TASKS, out_path=out, workers=0, setup={"seed": 2})


def test_keys_must_be_unique():
    with pytest.raises(ValueError, match="unique"):
        run_tasks(noisy_sum, [TASKS[0], TASKS[0]], workers=0)


def test_ray_gives_the_same_results(tmp_path):
    ray = pytest.importorskip("ray")
    from playout.arena import play_game

    setup = {"game": "connect4", "a": "mcts:iterations=20,engine=python", "b": "random", "seed": 3,
             "max_moves": 100}
    tasks = [dict(setup, key=f"game-{i}", index=i) for i in range(4)]
    try:
        out = tmp_path / "ray.jsonl"
        res = run_tasks(play_game, tasks, ray_address="local", out_path=out)
        strip = lambda rs: [{k: v for k, v in r.items() if not k.endswith("seconds")} for r in rs]
        assert strip(res) == strip(run_tasks(play_game, tasks, workers=0))
        assert len(load_results(out)) == len(tasks)
    finally:
        ray.shutdown()


class _FakeClock:
    """The progress display's clock, advanced by the tasks themselves (no wall time read)."""

    now = 1000.0

    def __call__(self):
        return self.now


_CLOCK = _FakeClock()


def _minute_square(task):
    """A task that takes one minute of the fake clock (none when ``x`` is 0)."""
    if task["x"]:
        _CLOCK.now += 60.0
    return {"y": task["x"] ** 2}


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path, capsys, monkeypatch):
    """A job run into a log file (no terminal) reports progress as plain lines on stderr: as
    results arrive every LOG_EVERY_S seconds (counting what a resumed run already had), and once
    more at the end; a job shorter than that writes nothing.  A resumed job first says what it
    kept.  The clock is the tasks' own: each takes 60 s of it."""
    from playout import executor

    monkeypatch.setattr(executor, "_clock", _CLOCK)
    out = tmp_path / "r.jsonl"
    tasks = [{"key": f"t{i}", "x": i} for i in range(4)]
    run_tasks(_minute_square, tasks[:1], out_path=out, workers=0, description="squares")
    assert capsys.readouterr().err == ""  # quick (0 s): quiet
    run_tasks(_minute_square, tasks, out_path=out, workers=0, description="squares", unit="squares")
    err = capsys.readouterr().err.splitlines()
    assert err == [f"resuming: 1 of 4 squares done, read from {out}",
                   "squares: 2/4 (50%), 0:01:00 elapsed, about 0:02:00 left",
                   "squares: 3/4 (75%), 0:02:00 elapsed, about 0:01:00 left",
                   "squares: 4/4 (100%), 0:03:00 elapsed",
                   "squares: 4/4 (100%), 0:03:00 elapsed"]
    run_tasks(_minute_square, tasks, out_path=out, workers=0, description="squares")
    assert capsys.readouterr().err == f"resuming: 4 of 4 tasks done, read from {out}\n"


def test_no_progress_lines_without_a_description(capsys):
    run_tasks(_square, [{"key": "a", "x": 2}], workers=0)
    assert capsys.readouterr().err == ""


def _square(task):
    return {"y": task["x"] ** 2}


_ORPHAN_JOB = """
import os, sys, time
from playout.executor import run_tasks

def slow(task):
    open(os.path.join(sys.argv[1], f"worker-{os.getpid()}"), "w").close()
    time.sleep(120)
    return {}

run_tasks(slow, [{"key": f"k{i}"} for i in range(4)], workers=2)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_parent(tmp_path):
    """``kill -9`` of a job with a process pool: no worker outlives it (before the fix the two
    workers slept on, then blocked on their task pipe forever)."""
    proc = subprocess.Popen([sys.executable, "-c", _ORPHAN_JOB, str(tmp_path)])
    deadline = time.monotonic() + 20
    while len(list(tmp_path.glob("worker-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
    proc.kill()
    proc.wait()
    assert len(pids) == 2, "the workers did not start"
    deadline = time.monotonic() + 10
    while not all(gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [p for p in pids if not gone(p)]
    for p in alive:  # do not leave them behind if the test fails
        os.kill(p, signal.SIGKILL)
    assert alive == []
