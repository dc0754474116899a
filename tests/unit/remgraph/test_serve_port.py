"""`serve` and `up` refuse a taken port on one line, before starting or ingesting anything."""

from __future__ import annotations

import socket

import pytest
from typer.testing import CliRunner

from remgraph.cli import app
from remgraph.serve import PortInUseError, check_port


@pytest.fixture
def taken():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_a_listening_port_is_refused_and_a_free_one_is_not(taken: int) -> None:
    with pytest.raises(PortInUseError, match=f"cannot listen on 127.0.0.1:{taken}"):
        check_port("127.0.0.1", taken)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    check_port("127.0.0.1", free)


@pytest.mark.parametrize("command", ["serve", "up"])
def test_serve_and_up_exit_2_with_one_line_on_a_taken_port(
    command: str, taken: int, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # nothing of the user's is touched
    r = CliRunner().invoke(app, [command, "--port", str(taken)])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(f"error: cannot listen on 127.0.0.1:{taken}")
    assert not (tmp_path / "data").exists()  # no engine was started, no data written
