"""Processes on this host: whether one is alive, and lock owners that name their process.

A lock held in the graph by a process that was killed (`kill -9`, OOM, power) would otherwise
block its job until the lock's time-to-live ends. An owner made by `process_owner` names its
host and process id, so another process on the same host can tell at once that the holder is
gone (`owner_is_gone`) and take the lock over; an owner from another host, or in another form,
is never judged gone.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

__all__ = ["owner_is_gone", "pid_alive", "process_owner"]

_SEP = "/"


def pid_alive(pid: int) -> bool:
    """Whether process `pid` runs on this host (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat.split(")")[-1].split()[0] == "Z":
            return False
    return True


def process_owner(tag: str) -> str:
    """A lock owner naming this host and process: `host/pid/tag`."""
    return _SEP.join((socket.gethostname(), str(os.getpid()), tag))


def owner_is_gone(owner: str) -> bool:
    """Whether `owner` (from `process_owner`) names a process of this host that is not alive."""
    parts = owner.split(_SEP, 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return False
    host, pid = parts[0], int(parts[1])
    return host == socket.gethostname() and pid != os.getpid() and not pid_alive(pid)
