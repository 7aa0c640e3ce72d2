"""One writer per results file: a sweep holds a lock on `.NAME.lock` beside its output while it runs.

The lock is a POSIX record lock (`fcntl.lockf`): the kernel drops it when the holder exits, however it
exits (SIGKILL included), and forked workers do not inherit it, so a killed sweep never leaves a lock
that blocks the next run. The lock file holds the writer's pid, start time and command line, which is
how a second writer's refusal names the first. The holder removes the file when it is done; a taker
checks that the file it locked is still the one at the path (a holder may have removed it meanwhile).
"""
from __future__ import annotations

import datetime
import errno
import os
import sys
from pathlib import Path

from simulator.errors import SimError

try:
    import fcntl
except ImportError:                  # Windows: no record locks; sweeps run unguarded there
    fcntl = None


class OutputBusy(SimError):
    """Another process holds the lock; the message names it."""


# Record locks belong to a process, so a second lock taken in the process that holds one succeeds:
# the paths this process holds are kept here to refuse a second writer in it (a notebook's thread).
_HELD: set[Path] = set()


def lock_path(out: Path) -> Path:
    return out.with_name(f".{out.name}.lock")


class OutputLock:
    """`with OutputLock(path):` one writer of `path` at a time; a second gets `OutputBusy` at once."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.path = lock_path(self.out)
        self.fd: int | None = None

    def __enter__(self) -> "OutputLock":
        key = self.path.resolve()
        if key in _HELD:
            raise OutputBusy(f"{self.out} is being written by another sweep in this process; wait for it to finish, "
                             f"or write to another --out")
        if fcntl is None:
            return self
        for _ in range(10):                  # the holder may remove the file between our open and lock
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                os.close(fd)
                if e.errno in (errno.EACCES, errno.EAGAIN):
                    raise OutputBusy(f"{self.out} is being written by another sweep ({self._holder()}); wait for "
                                     f"it to finish, or write to another --out") from None
                raise
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                _HELD.add(key)
                os.ftruncate(fd, 0)
                started = datetime.datetime.now().isoformat(timespec="seconds")
                os.write(fd, f"pid {os.getpid()}, started {started}: {' '.join(sys.argv)}\n".encode())
                return self
            os.close(fd)
        raise OutputBusy(f"{self.out}: its lock file {self.path} keeps being replaced by another process")

    def _holder(self) -> str:
        try:
            text = self.path.read_text(errors="replace").strip()
        except OSError:
            text = ""
        return text[:300] or "a process that has not written its name yet"

    def __exit__(self, *exc) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.path)             # while still locked: a waiting taker sees the file change
        except FileNotFoundError:
            pass
        os.close(self.fd)
        self.fd = None
        _HELD.discard(self.path.resolve())
