"""Lock owners that name their process: only a gone process of this host is judged gone."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from core.process import owner_is_gone, pid_alive, process_owner


@pytest.fixture
def dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()  # reaped: the pid names no process now
    return p.pid


def test_an_owner_names_this_host_and_process():
    host, pid, tag = process_owner("run_1").split("/", 2)
    assert (host, int(pid), tag) == (socket.gethostname(), os.getpid(), "run_1")
    assert not owner_is_gone(process_owner("run_1"))


def test_only_a_gone_process_of_this_host_is_gone(dead_pid):
    host = socket.gethostname()
    assert not pid_alive(dead_pid)
    assert owner_is_gone(f"{host}/{dead_pid}/run_x")
    assert not owner_is_gone(f"another-host/{dead_pid}/run_x")
    assert not owner_is_gone(f"{host}/{os.getppid()}/run_x")  # alive
    for odd in ("", "run_x", "backlog:host:12:ab", f"{host}/notapid/x"):
        assert not owner_is_gone(odd)
