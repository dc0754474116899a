"""The embedded FalkorDB server: lifecycle, safety defaults, clear errors, durability, backups."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import AuthenticationError

from graph.backup import backup, graph_keys, restore
from graph.config import EmbeddedSettings
from graph.cypher import Q
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
from graph.errors import EngineStartError, GraphError
from graph.migrate import migrate

pytestmark = pytest.mark.falkordb_only  # the embedded server, its files and DUMP

# SchemaMigration rows are the smallest real write the graph core owns; they go through the same
# adapter, parameter encoding and AOF as every other write.
_RECORD = Q("migration.record")
_APPLIED = Q("migration.applied")


@pytest.fixture
def server(tmp_path: Path):
    s = EmbeddedServer(EmbeddedSettings(data_dir=tmp_path / "data"))
    yield s
    s.stop()


def test_start_status_stop_lifecycle(server: EmbeddedServer) -> None:
    assert server.status().running is False
    assert server.start() is True
    st = server.status()
    assert st.running
    assert st.pid is not None
    assert server.start() is False  # already running: a second start is a no-op
    mode = stat.S_IMODE(server.socket_path.stat().st_mode)
    assert mode == 0o700  # only our user may connect
    r = Redis(unix_socket_path=str(server.socket_path))
    try:
        assert r.config_get("port")["port"] == "0"  # no TCP listener by default
        assert r.config_get("bind")["bind"] == "127.0.0.1"
        assert r.config_get("appendonly")["appendonly"] == "yes"
        assert r.config_get("appendfsync")["appendfsync"] == "everysec"
    finally:
        r.close()
    assert server.stop() is True
    assert server.status().running is False
    assert not server.pid_file.exists()
    assert server.stop() is False


def test_port_taken_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        server = EmbeddedServer(EmbeddedSettings(data_dir=tmp_path / "d", port=port))
        with pytest.raises(EngineStartError, match=f"127.0.0.1:{port} is taken"):
            server.start()


def test_unwritable_data_dir_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    server = EmbeddedServer(EmbeddedSettings(data_dir=blocker / "data"))
    with pytest.raises(EngineStartError, match=r"not writable.*REMGRAPH_EMBEDDED__DATA_DIR"):
        server.start()


def test_long_data_dir_gets_a_short_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    server = EmbeddedServer(EmbeddedSettings(data_dir=deep))
    assert len(str(server.socket_path)) <= 100
    try:
        server.start()
        assert server.status().running
    finally:
        server.stop()


async def test_sigkill_loses_no_acknowledged_write(server: EmbeddedServer) -> None:
    server.start()
    db = FalkorDBGraph(graph_name="durable", unix_socket=str(server.socket_path))
    for i in range(300):  # each write is acknowledged before the next is sent
        await db.write(_RECORD, id=f"w{i:04d}", checksum="c", applied_at=i)
    await db.close()
    server.kill()  # SIGKILL: no shutdown, no final flush
    assert not server.status().running
    assert server.start() is True
    db = FalkorDBGraph(graph_name="durable", unix_socket=str(server.socket_path))
    rows = await db.read(_APPLIED)
    await db.close()
    assert [r["id"] for r in rows] == [f"w{i:04d}" for i in range(300)]


async def test_backup_restore_round_trip(server: EmbeddedServer, tmp_path: Path) -> None:
    server.start()
    sock = str(server.socket_path)
    db = FalkorDBGraph(graph_name="g", unix_socket=sock)
    await migrate(db)
    await db.write(_RECORD, id="before", checksum="c", applied_at=1)
    info = await backup(tmp_path / "b.rgbak", unix_socket=sock)
    assert info.graphs == ("g",)
    await db.write(_RECORD, id="after", checksum="c", applied_at=2)
    with pytest.raises(GraphError, match="already exist"):
        await restore(tmp_path / "b.rgbak", unix_socket=sock)
    await restore(tmp_path / "b.rgbak", unix_socket=sock, replace=True)
    ids = [r["id"] for r in await db.read(_APPLIED)]
    await db.close()
    assert "before" in ids
    assert "after" not in ids


@pytest.mark.parametrize("decode", [False, True])
async def test_graph_keys_reads_bytes_and_str_replies(
    server: EmbeddedServer, tmp_path: Path, decode: bool
) -> None:
    server.start()
    sock = str(server.socket_path)
    db = FalkorDBGraph(graph_name="grafé", unix_socket=sock)
    await migrate(db)
    await db.close()
    r = AsyncRedis(unix_socket_path=sock, decode_responses=decode)
    try:
        await r.set("not-a-graph", "x")
        assert await graph_keys(r) == ["grafé"]
    finally:
        await r.aclose()
    info = await backup(tmp_path / "b.rgbak", unix_socket=sock)
    assert info.graphs == ("grafé",)


def _cli(args: list[str], data: Path, **env: str) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "REMGRAPH_EMBEDDED__DATA_DIR": str(data), **env}
    e.pop("REMGRAPH_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "remgraph", *args],
        capture_output=True,
        text=True,
        env=e,
        timeout=120,
    )


def test_cli_start_migrate_status_stop(tmp_path: Path) -> None:
    data = tmp_path / "cli"
    try:
        assert _cli(["db", "start"], data).returncode == 0
        mig = _cli(["db", "migrate"], data)
        assert mig.returncode == 0, mig.stderr
        st = _cli(["db", "status"], data)
        assert st.returncode == 0, st.stderr
        assert "running" in st.stdout
        assert "0001_constraints" in st.stdout
        assert "0 turns without vectors" in st.stdout  # the backlog
        again = _cli(["db", "migrate"], data)
        assert "applied: none" in again.stdout.replace("\n", " ")
    finally:
        _cli(["db", "stop"], data)
    down = _cli(["db", "status"], data)
    assert down.returncode == 1


def test_cli_bad_setting_is_one_line_without_traceback(tmp_path: Path) -> None:
    res = _cli(["db", "status"], tmp_path, REMGRAPH_ENGINE="oracle")
    assert res.returncode == 2
    assert "REMGRAPH_ENGINE" in res.stderr
    assert "Traceback" not in res.stderr


def test_cli_unreachable_engine_names_the_address(tmp_path: Path) -> None:
    res = _cli(
        ["db", "migrate"],
        tmp_path,
        REMGRAPH_ENGINE="falkordb",
        REMGRAPH_FALKORDB__PORT="1",
        REMGRAPH_FALKORDB__HOST="127.0.0.1",
    )
    assert res.returncode == 1
    assert "redis://127.0.0.1:1" in res.stderr
    assert "Traceback" not in res.stderr


async def test_changed_migration_is_a_clear_schema_mismatch(graph_db) -> None:
    from graph.errors import MigrationError

    await graph_db.write(_RECORD, id="0001_constraints", checksum="0123456789abcdef", applied_at=1)
    with pytest.raises(MigrationError, match="0001_constraints changed after it was applied"):
        await migrate(graph_db)


async def test_fulltext_query_survives_any_user_text(graph_db) -> None:
    from core.timeutil import now_ms
    from graph.models import Turn
    from graph.repositories.recall import RecallRepository
    from graph.repositories.turns import TurnRepository

    await TurnRepository(graph_db).upsert_many(
        [
            Turn(
                id="trn_q",
                project="p",
                session_id="s",
                ordinal=0,
                role="user",
                text="When did Caroline go to the support group",
            )
        ]
    )
    hostile = 'When did "Caroline" go? (support) group* -x | ~y @z {a} [b] `c` $d%'
    hits = await RecallRepository(graph_db).turn_fulltext(
        hostile, ["p"], k=10, cap=1000, as_of=now_ms(), known_at=now_ms()
    )
    assert [h.id for h in hits] == ["trn_q"]


def test_data_dir_and_files_are_owner_only(server: EmbeddedServer) -> None:
    server.start()
    r = Redis(unix_socket_path=str(server.socket_path))
    try:
        r.execute_command("GRAPH.QUERY", "perm", "CREATE (:N {v: 1})")
    finally:
        r.close()
    server.stop()
    server.start()  # a restart re-applies the modes to what an older release left 0644
    assert stat.S_IMODE(server.data_dir.stat().st_mode) == 0o700
    aof = list((server.data_dir / "appendonlydir").iterdir())
    assert aof
    for f in [*aof, server.log_file]:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f


def test_a_tcp_listener_requires_the_generated_password(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = EmbeddedServer(EmbeddedSettings(data_dir=tmp_path / "tcp", port=port))
    try:
        server.start()
        assert stat.S_IMODE(server.password_file.stat().st_mode) == 0o600
        password = server.password()
        assert password
        assert len(password) >= 32
        anonymous = Redis(host="127.0.0.1", port=port)
        with pytest.raises(AuthenticationError):
            anonymous.config_get("port")
        anonymous.close()
        authed = Redis(host="127.0.0.1", port=port, password=password)
        assert authed.ping()
        authed.close()
        assert server.status().running  # the manager authenticates on the socket too
        server.stop()
        assert server.start() is True  # a restart keeps the stored password
        assert server.password() == password
    finally:
        server.stop()


BATCHES = 120  # 1.2M nodes in the AOF: a replay of several seconds on 2 cores


def test_restart_waits_for_the_aof_replay_instead_of_timing_out(tmp_path: Path) -> None:
    """A replay longer than `startup_timeout_s` is waited for while the engine reports loading."""
    data = tmp_path / "big"
    first = EmbeddedServer(EmbeddedSettings(data_dir=data))
    first.start()
    r = Redis(unix_socket_path=str(first.socket_path))
    try:
        r.config_set("aof-use-rdb-preamble", "no")  # keep every write in the AOF to replay
        for i in range(BATCHES):
            r.execute_command(
                "GRAPH.QUERY", "big", f"UNWIND range(1, 10000) AS x CREATE (:N {{v: x, b: {i}}})"
            )
    finally:
        r.close()
    first.stop()
    lines: list[str] = []
    # 2 s without an answer would fail the start; the replay takes several seconds here
    again = EmbeddedServer(EmbeddedSettings(data_dir=data, startup_timeout_s=2.0))
    again.progress = lines.append
    try:
        started = time.monotonic()
        assert again.start() is True
        took = time.monotonic() - started
        r = Redis(unix_socket_path=str(again.socket_path))
        rows = r.execute_command("GRAPH.QUERY", "big", "MATCH (n:N) RETURN count(n)")
        r.close()
        assert rows[1][0][0] == BATCHES * 10_000
        # a start that outlasted the timeout did so because the engine reported its replay
        assert lines or took < 2.0, f"no progress line in a {took:.1f} s start"
    finally:
        again.stop()


def test_the_last_user_of_an_autostarted_server_stops_it(server: EmbeddedServer) -> None:
    first, started = server.acquire(autostart=True)
    assert started
    second, again = server.acquire(autostart=True)
    assert not again  # joined the running server
    assert server.release(first) is False  # another user is left: it keeps running
    assert server.status().running
    assert server.release(second) is True  # the last one leaves: stopped
    assert not server.status().running


def test_a_crashed_users_lease_does_not_keep_the_server_alive(server: EmbeddedServer) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    lease, _ = server.acquire(autostart=True)
    (lease.parent / f"{gone.stdout.strip()}-dead").touch()  # a holder killed before releasing
    assert server.release(lease) is True
    assert not server.status().running


def test_a_server_started_with_db_start_outlives_its_users(server: EmbeddedServer) -> None:
    server.start()
    server.keep_running()
    lease, started = server.acquire(autostart=True)
    assert not started
    assert server.release(lease) is False
    assert server.status().running


def test_another_process_leaving_does_not_stop_the_server_under_us(tmp_path: Path) -> None:
    """Two remgraph commands on one data dir: the one that started the engine ends first."""
    data = tmp_path / "data"
    server = EmbeddedServer(EmbeddedSettings(data_dir=data))
    lease, started = server.acquire(autostart=False)
    assert not started  # nothing runs yet: this process only holds a lease
    try:
        mig = _cli(["db", "migrate"], data)  # another process starts the engine, uses it, exits
        assert mig.returncode == 0, mig.stderr
        assert server.status().running  # it left the engine to the process still using it
    finally:
        stopped = server.release(lease)
    assert stopped  # the last user stops what a command started
    assert not server.status().running
