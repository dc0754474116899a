"""`lower_priority`: the backlog drain gives way to a server on the same machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CHILD = """
import os, threading
from ingest.backlog import lower_priority
started = threading.Event()
# A thread that exists before the drain starts; a daemon, so a failure below cannot hang the child.
t = threading.Thread(target=started.wait, daemon=True)
t.start()
lower_priority(10)
niceness = []
for task in __import__("pathlib").Path("/proc/self/task").iterdir():
    try:
        niceness.append(os.getpriority(os.PRIO_PROCESS, int(task.name)))
    except OSError:  # a native thread that ended meanwhile
        pass
print(min(niceness))
print(open("/proc/self/autogroup").read().split()[-1])
started.set()
"""


# Runs CHILD in a session of the test's own and prints the session leader's group niceness last:
# the non-leader case never shares the session (or terminal) of whoever runs the tests.
IN_OWN_SESSION = """
import subprocess, sys
out = subprocess.run([sys.executable, "-c", sys.argv[1]], capture_output=True, text=True,
                     stdin=subprocess.DEVNULL, timeout=100)
sys.stdout.write(out.stdout)
sys.stderr.write(out.stderr)
print(open("/proc/self/autogroup").read().split()[-1])
sys.exit(out.returncode)
"""


def _run(*, leader: bool) -> list[str]:
    argv = (
        [sys.executable, "-c", CHILD] if leader else [sys.executable, "-c", IN_OWN_SESSION, CHILD]
    )
    out = subprocess.run(
        argv,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
        start_new_session=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="no autogroup scheduling")
def test_every_thread_and_an_own_sessions_group_are_niced() -> None:
    # A session leader (a service, a `setsid` child): its threads and its autogroup.
    assert _run(leader=True) == ["10", "10"]
    # Inside someone else's session (a shell's): its threads only, the group is left alone.
    threads, group, leaders_group = _run(leader=False)
    assert threads == "10"
    assert group == leaders_group == "0"
