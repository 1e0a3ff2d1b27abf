"""A GTP engine as a subprocess: :class:`GtpClient` talks GTP version 2 to a program
(``gnugo --mode gtp``, ``playout gtp``, ...) with a timeout on every answer; :class:`GtpError`
is its one-line error (an engine that answers ``? ...``, answers garbage, hangs or dies).
GTP v2 section 2.6: a response starts with ``=`` or ``?`` and ends with an empty line.
"""

from __future__ import annotations

import os
import select
import shlex
import shutil
import subprocess
import time
from pathlib import Path

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)


#: Seconds a GTP engine may take to answer one command (``genmove`` included) before it is
#: taken as hung; ``play_match``/``play_game``/``crosscheck_gnugo`` and ``playout go match
#: --timeout`` change it.
DEFAULT_TIMEOUT_S = 300.0


class GtpError(RuntimeError):
    """A GTP engine answered ``? ...``, answered garbage, did not answer in time, or died.

    The message is one line naming the engine and the command; ``moves`` (set by
    :func:`playout.go.match.play_game`) holds the game's moves up to the fault, ``seconds`` the time each took
    and ``programs`` the engines' GTP names.
    """

    moves: list | None = None
    seconds: list | None = None
    programs: tuple | None = None


class GtpClient:
    """A GTP engine in a subprocess.  ``send("genmove b") -> "D4"``; raises :class:`GtpError`.

    ``transcript`` (a list) receives every command and answer when given.  ``timeout``:
    seconds each answer may take (default :data:`DEFAULT_TIMEOUT_S`); past it, or on an answer
    that does not start with ``=`` or ``?`` (GTP v2 section 2.6, "Responses"), the engine is
    killed and :class:`GtpError` says ``engine NAME: no answer to genmove after 2 s`` or
    ``engine NAME: invalid GTP response to boardsize: 'boardsize 9'``.
    """

    def __init__(self, command: str | list[str], transcript: list | None = None, name: str = "",
                 timeout: float | None = None):
        args = shlex.split(command) if isinstance(command, str) else list(command)
        if not args:
            raise GtpError("empty engine command")
        self.name = name or args[0]
        self.timeout = DEFAULT_TIMEOUT_S if timeout is None else float(timeout)
        if args[0] == "gnugo" and GNUGO and not shutil.which("gnugo"):
            args[0] = GNUGO  # Debian installs it in /usr/games, often not on PATH
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, bufsize=0)
        except OSError as exc:
            raise GtpError(f"cannot start engine {args[0]!r}: {exc.strerror or exc}") from None
        self.transcript = transcript
        self._buf = b""
        self._broken = False

    def _fail(self, why: str) -> GtpError:
        """Kill the engine (it is hung or speaks no GTP) and return the error to raise."""
        self._broken = True
        self.proc.kill()
        self.proc.wait()
        return GtpError(f"engine {self.name}: {why}")

    def _readline(self, cmd: str) -> str | None:
        """One line of the answer to ``cmd`` (``None`` at end of file), within the timeout."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0.0))[0] if left > 0 else []
            if not ready:
                what = cmd.split()[0] if cmd.strip() else repr(cmd)
                raise self._fail(f"no answer to {what} after {self.timeout:g} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                if self._buf:
                    line, self._buf = self._buf, b""
                    return line.decode("utf-8", "replace")
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def send_many(self, commands: list[str]) -> list[tuple[bool, str]]:
        """Send several commands at once; return ``(ok, answer)`` for each, in order.

        Each answer may take :attr:`timeout` seconds from the one before."""
        assert self.proc.stdin is not None
        if self._broken:
            raise GtpError(f"engine {self.name}: no longer running")
        try:
            self.proc.stdin.write("".join(c + "\n" for c in commands).encode())
            self.proc.stdin.flush()
        except OSError:  # BrokenPipeError: it exited
            raise self._fail(f"exited before {commands[0].split()[0]!r}") from None
        out = []
        for cmd in commands:
            lines: list[str] = []
            while True:
                line = self._readline(cmd)
                if line is None:
                    raise self._fail(f"exited during {cmd!r}")
                line = line.rstrip("\r")
                if line.strip() == "":
                    if lines:
                        break
                    continue
                if not lines and line[0] not in "=?":
                    raise self._fail(f"invalid GTP response to {cmd.split()[0]}: {line[:60]!r}")
                lines.append(line)
            text = "\n".join(lines)
            ok = text.startswith("=")
            answer = text[1:].strip()
            if self.transcript is not None:
                self.transcript.append((self.name, cmd, text))
            out.append((ok, answer))
        return out

    def send(self, command: str) -> str:
        ok, answer = self.send_many([command])[0]
        if not ok:
            raise GtpError(f"engine {self.name}: {command!r} -> ? {answer}")
        return answer

    def close(self) -> None:
        """``quit`` (a few seconds at most), then kill the engine if it is still there."""
        if not self._broken:
            self.timeout = min(self.timeout, 5.0)
            try:
                self.send_many(["quit"])
            except (GtpError, OSError, ValueError):
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except (OSError, AttributeError):
                pass

    def __enter__(self) -> "GtpClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
