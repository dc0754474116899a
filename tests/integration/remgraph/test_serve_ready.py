"""Ready means ready: `remgraph up` prints the API line and the curl only once they work.

A real `remgraph up` process on a free loopback port, against the test's graph: the moment the
"remgraph API on" line appears, `/readyz` must answer ready and the printed request must succeed.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from graph.models import Project
from graph.repositories.projects import ProjectRepository
from tests.engines import engine_env

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _curl_request(line: str) -> tuple[str, dict[str, str], str]:
    """URL, headers and body of the printed curl command."""
    argv = shlex.split(line)
    assert argv[:2] == ["curl", "-s"], argv
    url = argv[2]
    headers = dict(
        argv[i + 1].split(": ", 1) for i, a in enumerate(argv) if a == "-H" and i + 1 < len(argv)
    )
    body = argv[argv.index("-d") + 1]
    return url, headers, body


@pytest.fixture
async def with_project(graph_db) -> None:
    await ProjectRepository(graph_db).upsert_many([Project(id="alpha", name="alpha")])


def test_up_announces_the_api_only_when_a_pasted_curl_works(graph_settings, with_project):
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("PATH", "HOME", "HF_", "TRANS"))},
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "4000",  # no wrapping of the printed curl
        "TOKENIZERS_PARALLELISM": "false",
        "REMGRAPH_ENV": "test",
        **engine_env(graph_settings),
        "REMGRAPH_API__GC_FREEZE": "false",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "remgraph", "up", "--port", str(port)],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if "remgraph API on" in line:
                # the very moment it is printed: ready, and the request works
                ready = httpx.get(f"http://127.0.0.1:{port}/readyz", trust_env=False)
                assert ready.status_code == 200
                assert ready.json()["status"] == "ready"
                break
        else:
            raise AssertionError(f"no API line within 240 s: {lines}")
        assert any("remgraph API on" in x for x in lines), lines
        # the curl comes with (after) the API line; the key was printed before
        for _ in range(3):
            lines.append(proc.stdout.readline().rstrip("\n"))
        text = "\n".join(lines)
        api_at = text.index("remgraph API on")
        assert f"GraphiQL: open http://127.0.0.1:{port}/graphql" in text[api_at:]
        curl = next(x.strip() for x in lines if x.strip().startswith("curl "))
        assert text.index(curl) > api_at
        key = re.search(r"\brg_[A-Za-z0-9_\-]+", text)
        assert key is not None
        url, headers, body = _curl_request(curl)
        assert headers["Authorization"] == f"Bearer {key.group(0)}"
        r = httpx.post(url, headers=headers, content=body, trust_env=False)
        assert r.status_code == 200, r.text
        assert r.json()["data"]["context"] is not None
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
    assert proc.returncode == 0, lines
