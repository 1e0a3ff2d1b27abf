"""Where long jobs run: in-process, a local process pool, or a Ray cluster.

A long job (rollouts, benchmark references, matches, self-play) is a list of
independent *tasks*.  Each task is a JSON-serialisable ``dict`` with a unique
string ``"key"``; a top-level (picklable) function turns one task into a
JSON-serialisable result ``dict``.  :func:`run_tasks` runs them where asked and,
given ``out_path``, appends each result to a JSONL file the moment it finishes::

    {"setup": {...}}                      <- first line: what the job is
    {"key": "game-0", "result": {...}}
    {"key": "game-3", "result": {...}}

A rerun with the same file skips the keys already there, so a killed job resumes
where it stopped.  A torn last line (the writer was killed mid-line) is cut off
on resume; complete lines are never lost.  A file written for a different setup is
refused with a one-line :class:`ResultsFileError`.

Results depend only on the task (seed it from the job seed and the task's index),
never on which worker ran it, so in-process, process-pool and Ray runs agree.

Workers die with the job: a process-pool worker asks Linux to SIGKILL it when its
parent dies (``prctl(PR_SET_PDEATHSIG)``, see prctl(2)) and also watches its parent
pid (other systems; a parent gone before the ``prctl``), so a ``kill -9`` of the job
leaves no worker blocked on its pipe.  On Ray the task workers end with their driver
by Ray's own mechanism (ray 2.60, ``--ray local``: both gone within 15 s of a ``kill -9``
of the driver; two of its agent processes, DashboardAgent and RuntimeEnvAgent, took
about 40 s).

>>> run_tasks(_square, [{"key": "a", "x": 3}, {"key": "b", "x": 4}], workers=0)
[{'y': 9}, {'y': 16}]
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Iterable

Task = dict[str, Any]
Result = dict[str, Any]


class ResultsFileError(ValueError):
    """A results file that cannot be resumed (other setup, corrupt line)."""


class ExecutorError(RuntimeError):
    """The requested place to run cannot be used (e.g. Ray not installed)."""


def _square(task: Task) -> Result:  # used by the doctest
    return {"y": task["x"] ** 2}


def load_results(path: str | os.PathLike[str], setup: dict[str, Any] | None = None) -> dict[str, Result]:
    """Read finished results from a JSONL results file, repairing a torn last line.

    Args:
        path: the file (missing = nothing finished).
        setup: if given, the file's ``{"setup": ...}`` line must equal it.

    Returns:
        key -> result of every complete line.

    Raises:
        ResultsFileError: setup mismatch, or a corrupt line before the last.
    """
    p = Path(path)
    if not p.exists():
        return {}
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ResultsFileError(f"{p}: cannot read the results file ({exc.strerror or exc})") from None
    if raw and not raw.endswith(b"\n"):
        cut = raw.rfind(b"\n") + 1  # drop the torn tail (a killed writer)
        with open(p, "r+b") as fh:
            fh.truncate(cut)
        raw = raw[:cut]
    done: dict[str, Result] = {}
    for lineno, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ResultsFileError(f"{p}:{lineno}: not valid JSON ({exc.msg})") from None
        if "setup" in rec:
            if setup is not None and _normal(rec["setup"]) != _normal(setup):
                raise ResultsFileError(
                    f"{p}:{lineno}: results file is for a different setup "
                    f"({_setup_diff(_normal(rec['setup']), _normal(setup))}); use another --out file"
                )
            continue
        if "key" not in rec or "result" not in rec:
            raise ResultsFileError(f"{p}:{lineno}: a record needs 'key' and 'result'")
        done[str(rec["key"])] = rec["result"]
    return done


def _normal(obj: Any) -> Any:
    return json.loads(json.dumps(obj, sort_keys=True))


def _setup_diff(old: Any, new: Any) -> str:
    """The setup fields that differ, as ``name: file value -> this run's value`` (values cut short).

    >>> _setup_diff({"trials": 2592, "seed": 1}, {"trials": 2880, "seed": 1})
    'trials: 2592 -> 2880'
    """
    if not isinstance(old, dict) or not isinstance(new, dict):
        return "another kind of job"

    def short(v: Any) -> str:
        t = json.dumps(v, sort_keys=True)
        return t if len(t) <= 40 else t[:37] + "..."

    parts = [f"{k}: {short(old.get(k))} -> {short(new.get(k))}"
             for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return "; ".join(parts)


def run_tasks(
    fn: Callable[[Task], Result],
    tasks: Iterable[Task],
    *,
    out_path: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    ray_address: str | None = None,
    description: str | None = None,
    setup: dict[str, Any] | None = None,
    on_result: Callable[[Task, Result], None] | None = None,
    unit: str = "tasks",
) -> list[Result]:
    """Run ``fn`` on every task; return the results in task order.

    Args:
        fn: top-level function ``task -> result`` (both JSON-serialisable dicts).
        tasks: dicts, each with a unique string ``"key"``.
        out_path: JSONL file to append results to and resume from.
        workers: ``0`` in-process; ``None`` one process per core; ``k`` a pool of k.
        ray_address: run on Ray instead (``"auto"``, ``"local"`` or ``host:port``;
            needs the optional ``ray`` extra).
        description: label of the progress display: a bar on a terminal, else a line on stderr
            every :data:`LOG_EVERY_S` seconds and at the end of a job that wrote one.
        setup: what the job is; written as the file's first line and checked on resume.
        on_result: called in the parent as each new result arrives.
        unit: what a task is, plural (``"games"``, ``"chunks"``), for the line a resumed job
            with a ``description`` writes on stderr:
            ``"resuming: 9 of 18 chunks done, read from r.jsonl"``.

    Raises:
        ValueError: duplicate or missing task keys.
        ResultsFileError: see :func:`load_results`.
    """
    tasks = list(tasks)
    keys = [t.get("key") for t in tasks]
    if any(not isinstance(k, str) for k in keys):
        raise ValueError("every task needs a string 'key'")
    if len(set(keys)) != len(keys):
        raise ValueError("task keys must be unique")
    done = load_results(out_path, setup) if out_path is not None else {}
    todo = [t for t in tasks if t["key"] not in done]
    if description and len(todo) < len(tasks):
        print(f"resuming: {len(tasks) - len(todo)} of {len(tasks)} {unit} done, read from {out_path}",
              file=sys.stderr, flush=True)
    fresh = out_path is not None and (not Path(out_path).exists() or Path(out_path).stat().st_size == 0)
    sink = _Sink(out_path, setup, fresh=fresh)

    def finished(task: Task, result: Result) -> None:
        done[task["key"]] = result
        sink.write(task["key"], result)
        if on_result is not None:
            on_result(task, result)
        progress.advance()

    with _Progress(description, total=len(tasks), completed=len(tasks) - len(todo)) as progress:
        if not todo:
            pass
        elif ray_address is not None:
            _run_ray(fn, todo, ray_address, finished)
        elif workers == 0 or len(todo) == 1:
            for task in todo:
                finished(task, fn(task))
        else:
            _run_pool(fn, todo, workers or os.cpu_count() or 1, finished)
    sink.close()
    return [done[t["key"]] for t in tasks]


class _Sink:
    def __init__(self, out_path: str | os.PathLike[str] | None, setup: dict[str, Any] | None, fresh: bool):
        self.fh = None
        if out_path is not None:
            try:
                Path(out_path).parent.mkdir(parents=True, exist_ok=True)
                self.fh = open(out_path, "a", encoding="utf-8")
                if fresh and setup is not None:
                    self.fh.write(json.dumps({"setup": setup}, sort_keys=True) + "\n")
                    self.fh.flush()
            except OSError as exc:
                raise ResultsFileError(f"{out_path}: cannot write the results file "
                                       f"({exc.strerror or exc})") from None

    def write(self, key: str, result: Result) -> None:
        if self.fh is not None:
            self.fh.write(json.dumps({"key": key, "result": result}) + "\n")
            self.fh.flush()
            os.fsync(self.fh.fileno())

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()


class _Progress:
    """A rich progress bar on a terminal; elsewhere (a log file, a pipe) a plain line on stderr
    every :data:`LOG_EVERY_S` seconds as results arrive, and a last one at the end if any was
    written (a short job stays quiet):
    ``"<description>: 12/100 (12%), 0:01:02 elapsed, about 0:07:35 left"``."""

    def __init__(self, description: str | None, total: int, completed: int):
        self.bar = None
        self.task = None
        self.description = description
        self.total = total
        self.completed = completed
        self.start_done = completed
        self.console = None
        if description:
            from rich.console import Console

            console = Console(stderr=True)
            if console.is_terminal:
                from rich.progress import Progress

                self.bar = Progress(console=console, transient=False)
                self.task = self.bar.add_task(description, total=total, completed=completed)
            else:
                self.console = sys.stderr
        self.t0 = _clock()
        self.last_log = self.t0
        self.logged = False

    def _log(self) -> None:
        elapsed = _clock() - self.t0
        line = f"{self.description}: {self.completed}/{self.total}"
        if self.total:
            line += f" ({100 * self.completed / self.total:.0f}%)"
        line += f", {_hms(elapsed)} elapsed"
        new = self.completed - self.start_done
        if 0 < new and self.completed < self.total:
            line += f", about {_hms(elapsed / new * (self.total - self.completed))} left"
        print(line, file=self.console, flush=True)
        self.last_log = _clock()
        self.logged = True

    def __enter__(self) -> "_Progress":
        if self.bar is not None:
            self.bar.start()
        return self

    def advance(self) -> None:
        self.completed += 1
        if self.bar is not None:
            self.bar.advance(self.task)
        elif self.console is not None and _clock() - self.last_log >= LOG_EVERY_S:
            self._log()

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()
        elif self.console is not None and exc[0] is None and self.logged:
            self._log()


#: Seconds between progress lines when stderr is not a terminal.
LOG_EVERY_S = 30.0

#: The progress display's clock (seconds; tests replace it).
_clock = time.monotonic


def _hms(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


#: Seconds between a worker's checks that its parent is still there (the fallback to
#: ``PR_SET_PDEATHSIG``).
PARENT_POLL_S = 1.0


def _die_with_parent(owner: int) -> None:
    """Pool initializer: end this worker when its parent process dies.

    ``owner`` is the pid of the process running the job.  On Linux the kernel sends SIGKILL
    when the parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, prctl(2); the pool creates its
    workers from the job's own thread, whose exit is what the kernel watches).  A daemon
    thread also checks every :data:`PARENT_POLL_S` seconds that the parent (``getppid``) is
    unchanged and ``owner`` alive: other systems, and a parent that died before the ``prctl``.
    It runs between bytecodes, so the kernel signal is the one that stops a compiled loop.
    """
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def orphaned() -> bool:
        return os.getppid() != parent or not alive(owner)

    if orphaned():
        os._exit(1)

    def watch() -> None:
        while not orphaned():
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _run_pool(fn: Callable[[Task], Result], todo: list[Task], workers: int,
              finished: Callable[[Task, Result], None]) -> None:
    with ProcessPoolExecutor(max_workers=workers, initializer=_die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        pending = {pool.submit(fn, t): t for t in todo}
        while pending:
            ready, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in ready:
                finished(pending.pop(fut), fut.result())


def _run_ray(fn: Callable[[Task], Result], todo: list[Task], address: str,
             finished: Callable[[Task, Result], None]) -> None:
    try:
        import ray
    except ImportError:
        raise ExecutorError("Ray is not installed: pip install 'playout[ray]' (in a clone: "
                             "pip install -e '.[ray]')") from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
            except ConnectionError as exc:
                raise ExecutorError(f"Ray at {address!r}: {exc}") from None
    remote = ray.remote(fn)
    refs = {remote.remote(t): t for t in todo}
    while refs:
        ready, _ = ray.wait(list(refs), num_returns=1)
        for ref in ready:
            finished(refs.pop(ref), ray.get(ref))
