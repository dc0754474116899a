"""SIGKILL an ingest with pending extraction and embeddings at several points, re-run it: the
whole graph (every label, every edge type, every id) equals one clean run's.

The child process kills itself just before the Nth write of a chosen query, so each kill point is
exact: mid turn writes, mid queueing of the sessions' extractions, between a queued extraction and
its session's watermark, with every turn written and every extraction still pending, mid
embedding drain (some vectors written), mid queued extraction (some sessions' facts and topics
applied), and between an applied backlog item and its removal.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from graph.config import GraphSettings
from graph.cypher import Q
from graph.engines.falkordb import FalkorDBGraph
from graph.migrate import migrate
from graph.repositories.backlog import BacklogRepository
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from ingest.pipeline import ingest_paths
from tests.support.hash_embedder import HashEmbedder

ROOT = Path(__file__).resolve().parents[3]
TOTAL = 480
PER_SESSION = 40
_NODES = Q("admin.dump_nodes")
_EDGES = Q("admin.dump_relationships")
VOLATILE = frozenset(
    {
        "recorded_at",
        "updated_at",
        "taken_at",
        "created_at",
        "weight",
        "phase",
        "touched_at",
        "applied_at",
        "valid_to_until",
    }
)
"""Wall-clock properties (when something was written, and topic weights' recency from it;
`valid_to_until`: until when, in record time, an earlier valid_to was believed)."""
SNAPSHOT_TIMES = frozenset({"valid_from"})
SETTINGS: dict[str, Any] = {"batch_size": 16, "backlog_batch": 32}

LINES = [
    ("user", "I moved to {city} last spring and I work at {company} now."),
    ("assistant", "Noted: you live in {city}. Shall I set up the {tool} pipeline?"),
    ("user", "No, use {tool} instead of {other} for the builds."),
    ("assistant", "Running the {svc} deploy: error E{n}: connection refused on port 54{n}."),
    ("user", "I learned that restarting the {svc} pool fixes the connection refused error."),
    ("assistant", "Fixed by restarting the {svc} pool; all tests pass now."),
    ("user", "Let's use postgres for the {svc} storage from now on."),
    ("assistant", "We discussed kubernetes ingress, {tool} caching and {svc} latency budgets."),
]

CHILD = textwrap.dedent("""
    import asyncio, os, signal, sys
    from graph.engines.falkordb import FalkorDBGraph
    from ingest.config import IngestSettings
    from ingest.extract.service import ExtractionHook
    from ingest.pipeline import ingest_paths
    from tests.support.hash_embedder import HashEmbedder

    async def main(sock, graph, path, query, nth, settings_json):
        db = FalkorDBGraph(graph_name=graph, unix_socket=sock)
        seen = 0
        write = db.write

        async def dying_write(q, **params):
            nonlocal seen
            if q.name == query:
                seen += 1
                if seen == int(nth):
                    os.kill(os.getpid(), signal.SIGKILL)
            return await write(q, **params)

        db.write = dying_write
        settings = IngestSettings(ingest=__import__("json").loads(settings_json))
        emb = HashEmbedder()
        hook = ExtractionHook(settings, embedder=emb)
        await ingest_paths(db, settings, [path], hooks=[hook], embedder=emb)
        print("FINISHED", flush=True)

    asyncio.run(main(*sys.argv[1:]))
""")

KILL_POINTS = [
    ("turn.upsert_many", 12),  # turns half written, nothing queued
    ("backlog.put", 4),  # some sessions' extractions queued, the rest not yet
    ("session.set_extracted_through", 6),  # a session's extraction queued, its watermark not
    ("turn.set_embeddings", 1),  # every turn written, every extraction still pending
    ("turn.set_embeddings", 5),  # embedding drain: some vectors written
    ("fact.upsert_many", 4),  # queued extraction: some sessions' facts applied
    ("topic.upsert_many", 5),  # queued extraction: topics of some sessions applied
    ("backlog.delete", 3),  # an item applied, not yet removed from the backlog
]


def write_transcript(path: Path) -> None:
    with path.open("w") as f:
        for i in range(TOTAL):
            role, tmpl = LINES[i % len(LINES)]
            s = i // PER_SESSION
            text = tmpl.format(
                city=f"city{s % 5}",
                company=f"acme{s % 3}",
                tool=f"tool{s % 4}",
                other=f"tool{(s + 1) % 4}",
                svc=f"svc{s % 6}",
                n=s % 9,
            )
            record = {
                "session_id": f"s{s}",
                "project": "crash",
                "id": f"m{i}",
                "role": role,
                "content": text,
                "timestamp": 1_700_000_000 + 600 * s + i,
            }
            f.write(json.dumps(record) + "\n")


def _clean(label: str, props: dict[str, Any]) -> dict[str, Any]:
    drop = VOLATILE | (SNAPSHOT_TIMES if label == "ProjectSnapshot" else frozenset())
    return {k: v for k, v in props.items() if k not in drop}


async def dump(db: FalkorDBGraph) -> tuple[dict[str, Any], list[Any]]:
    nodes = {
        f"{'/'.join(r['labels'])}:{r['id']}": _clean(r["labels"][0], dict(r["props"]))
        for r in await db.read(_NODES)
        if "JobLock" not in r["labels"]  # the lock's owner and expiry are process bookkeeping
    }
    edges = sorted(
        (
            r["source"],
            r["type"],
            r["target"],
            json.dumps(_clean("", dict(r["props"])), sort_keys=True),
        )
        for r in await db.read(_EDGES)
    )
    return nodes, edges


async def _clean_run(sock: str, path: Path) -> tuple[dict[str, Any], list[Any]]:
    clean = FalkorDBGraph(graph_name=f"t{uuid.uuid4().hex[:12]}", unix_socket=sock)
    await migrate(clean)
    try:
        await _ingest(clean, path)
        return await dump(clean)
    finally:
        await clean.drop()
        await clean.close()


async def _ingest(db: FalkorDBGraph, path: Path) -> None:
    settings = IngestSettings(ingest=SETTINGS)
    emb = HashEmbedder()
    hook = ExtractionHook(settings, embedder=emb)
    rep = await ingest_paths(db, settings, [path], hooks=[hook], embedder=emb)
    assert not rep.failed
    assert rep.hook_errors == ()


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("crash") / "extract.jsonl"
    write_transcript(path)
    return path


async def _killed_run(sock: str, graph: str, path: Path, query: str, nth: int) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        sock,
        graph,
        str(path),
        query,
        str(nth),
        json.dumps(SETTINGS),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert b"FINISHED" not in out, f"the child passed {nth} writes of {query} without dying"
    assert proc.returncode == -9


# The embedded engine's durability (AOF, SIGKILL) is what is proven: the child process drives
# FalkorDB over its socket. Neo4j's own transaction log is Neo4j's to prove.
@pytest.mark.falkordb_only
async def test_kill_anywhere_in_ingest_extraction_and_embedding_then_rerun(
    graph_settings: GraphSettings, transcript: Path
) -> None:
    sock = str(graph_settings.falkordb.unix_socket)
    want_nodes, want_edges = await _clean_run(sock, transcript)
    labels = {k.split(":")[0] for k in want_nodes}
    assert {"Turn", "Session", "Topic", "Fact", "Correction", "Lesson"} <= labels
    assert {"ProjectSnapshot"} <= labels
    assert not any(k.startswith("Backlog") for k in want_nodes)
    for query, nth in KILL_POINTS:
        db = FalkorDBGraph(graph_name=f"t{uuid.uuid4().hex[:12]}", unix_socket=sock)
        await migrate(db)
        try:
            await _killed_run(sock, db.graph_name, transcript, query, nth)
            await _ingest(db, transcript)
            assert await BacklogRepository(db).pending_turn_count() == 0
            got_nodes, got_edges = await dump(db)
            assert sorted(got_nodes) == sorted(want_nodes), query
            diff = [k for k in want_nodes if got_nodes[k] != want_nodes[k]]
            detail = [
                (
                    k,
                    {
                        p
                        for p in {**got_nodes[k], **want_nodes[k]}
                        if got_nodes[k].get(p) != want_nodes[k].get(p)
                    },
                )
                for k in diff[:3]
            ]
            assert not diff, (query, detail)
            assert got_edges == want_edges, query
        finally:
            await db.drop()
            await db.close()
