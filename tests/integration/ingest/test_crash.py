"""SIGKILL an ingest mid-run, re-run it: the graph equals one clean run's, node for node."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from graph.config import GraphSettings
from graph.cypher import Q
from graph.engines.falkordb import FalkorDBGraph
from graph.migrate import migrate
from graph.repositories.source_files import SourceFileRepository
from ingest.config import IngestSettings
from ingest.pipeline import ingest_paths

ROOT = Path(__file__).resolve().parents[3]
_STATS = Q("admin.stats")
TOTAL = 1200

CHILD = textwrap.dedent("""
    import asyncio, sys
    from graph.engines.falkordb import FalkorDBGraph
    from ingest.config import IngestSettings
    from ingest.pipeline import ingest_paths

    async def main(sock, graph, path):
        db = FalkorDBGraph(graph_name=graph, unix_socket=sock)
        settings = IngestSettings(ingest={"embed": False, "batch_size": 4})
        await ingest_paths(db, settings, [path])
        print("FINISHED", flush=True)

    asyncio.run(main(*sys.argv[1:]))
""")


def write_transcript(path: Path) -> None:
    with path.open("w") as f:
        for i in range(TOTAL):
            f.write(
                json.dumps(
                    {
                        "session_id": f"s{i // 150}",
                        "project": "crash",
                        "id": f"m{i}",
                        "role": "user" if i % 2 == 0 else "assistant",
                        "content": f"turn {i}: " + "lorem ipsum " * (i % 7 + 1),
                        "timestamp": 1_700_000_000 + i,
                    }
                )
                + "\n"
            )


async def turn_count(db: FalkorDBGraph) -> int:
    rows = await db.read(_STATS)
    return sum(int(r["count"]) for r in rows if r["label"] == "Turn")


# The embedded engine's durability (AOF, SIGKILL) is what is proven: the child process drives
# FalkorDB over its socket. Neo4j's own transaction log is Neo4j's to prove.
@pytest.mark.falkordb_only
async def test_sigkill_then_rerun_equals_a_clean_run(
    graph_db: FalkorDBGraph, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    path = tmp_path / "big.jsonl"
    write_transcript(path)
    sock = str(graph_settings.falkordb.unix_socket)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        sock,
        graph_settings.graph_name,
        str(path),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        for _ in range(3000):  # up to ~60 s, mostly waiting for the child's imports
            if await turn_count(graph_db) >= 200 or proc.returncode is not None:
                break
            await asyncio.sleep(0.02)
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
    finally:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout=30)
    assert b"FINISHED" not in out, "the child finished before it could be killed"
    assert proc.returncode == -signal.SIGKILL
    partial = await turn_count(graph_db)
    assert 0 < partial < TOTAL
    assert await SourceFileRepository(graph_db).get(str(path)) is None  # state comes last

    settings = IngestSettings(ingest={"embed": False, "batch_size": 64})
    rerun = await ingest_paths(graph_db, settings, [path])
    assert rerun.turns_new == TOTAL - partial  # what the killed run wrote is kept
    assert rerun.turns_unchanged == partial
    assert not rerun.failed

    clean = FalkorDBGraph(graph_name=f"t{uuid.uuid4().hex[:12]}", unix_socket=sock)
    await migrate(clean)
    try:
        await ingest_paths(clean, settings, [path])
        got = await SourceFileRepository(graph_db).fingerprint(["crash"])
        want = await SourceFileRepository(clean).fingerprint(["crash"])
        assert sum(k.startswith("Turn:") for k in want) == TOTAL
        assert got == want
        assert await graph_db.read(_STATS) == await clean.read(_STATS)
        a = await SourceFileRepository(graph_db).get(str(path))
        b = await SourceFileRepository(clean).get(str(path))
        assert a is not None
        assert b is not None
        assert a.model_dump(exclude={"updated_at"}) == b.model_dump(exclude={"updated_at"})
    finally:
        await clean.drop()
        await clean.close()
