"""Crash scenarios: SIGKILL of the engine during an ingest, of a worker mid-consolidation.

`snapshot` fingerprints what ingest wrote (a digest of every node's and edge's properties, the
embeddings apart) and `compare` says how two snapshots differ, so a crashed-and-resumed run can be
checked against a clean one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ai.embed import Embedder
from graph.config import Engine
from graph.cypher import Q
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
from graph.models import Lesson, Topic
from graph.repositories.lessons import LessonRepository
from graph.repositories.topics import TopicRepository
from tests.support.corpus import WORDS, write_corpus
from tests.support.engine import (
    GRAPH,
    engine,
    graph,
    label_counts,
    local_embedder,
    log_tail,
    open_db,
    reap,
    spawn,
)

_FP_NODES = Q("source_file.fingerprint_nodes")
_FP_EDGES = Q("source_file.fingerprint_edges")
_VOLATILE = frozenset({"recorded_at", "updated_at"})


@dataclass
class Snapshot:
    """What ingest wrote for some projects: property digests and embeddings per node and edge."""

    labels: dict[str, int]
    digests: dict[str, str] = field(default_factory=dict)
    embeddings: dict[str, list[float]] = field(default_factory=dict)
    edge_types: dict[str, int] = field(default_factory=dict)


def _digest(props: dict[str, Any]) -> str:
    clean = {k: v for k, v in sorted(props.items()) if k not in _VOLATILE and k != "embedding"}
    return hashlib.sha256(json.dumps(clean, sort_keys=True, default=str).encode()).hexdigest()


async def snapshot(db: FalkorDBGraph, projects: Sequence[str]) -> Snapshot:
    """Every ingest node and edge of `projects` with a digest of its properties.

    Embeddings are kept apart and compared with a tolerance: the same text embedded in a different
    batch (a resumed run batches differently) moves the last float bits.
    """
    snap = Snapshot(labels=await label_counts(db))
    for r in await db.read(_FP_NODES, projects=list(projects)):
        key = f"{r['label']}:{r['id']}"
        props = dict(r["props"])
        snap.digests[key] = _digest(props)
        if props.get("embedding") is not None:
            snap.embeddings[key] = [float(x) for x in props["embedding"]]
    for r in await db.read(_FP_EDGES, projects=list(projects)):
        snap.digests[f"{r['source']}-{r['type']}->{r['target']}"] = _digest(dict(r["props"]))
        snap.edge_types[str(r["type"])] = snap.edge_types.get(str(r["type"]), 0) + 1
    return snap


def compare(clean: Snapshot, other: Snapshot) -> dict[str, Any]:
    """How `other` differs from `clean` (all zeros and `equal: True` when they match)."""
    missing = sorted(set(clean.digests) - set(other.digests))
    extra = sorted(set(other.digests) - set(clean.digests))
    changed = sorted(
        k for k in set(clean.digests) & set(other.digests) if clean.digests[k] != other.digests[k]
    )
    emb_missing = sorted(set(clean.embeddings) ^ set(other.embeddings))
    dev = 0.0
    for k in set(clean.embeddings) & set(other.embeddings):
        a, b = np.asarray(clean.embeddings[k]), np.asarray(other.embeddings[k])
        dev = max(dev, float(np.abs(a - b).max()) if a.shape == b.shape else 1.0)
    equal = (
        not missing
        and not extra
        and not changed
        and not emb_missing
        and dev < 1e-4
        and clean.labels == other.labels
        and clean.edge_types == other.edge_types
    )
    return {
        "equal": equal,
        "items": len(clean.digests),
        "missing": len(missing),
        "extra": len(extra),
        "changed": len(changed),
        "examples": (missing + extra + changed)[:5],
        "embeddings_compared": len(clean.embeddings),
        "embeddings_missing": len(emb_missing),
        "max_embedding_deviation": dev,
        "labels_clean": clean.labels,
        "labels_other": other.labels,
        "edges_clean": clean.edge_types,
        "edges_other": other.edge_types,
    }


async def run_ingest(
    db: FalkorDBGraph,
    paths: Sequence[Path],
    embedder: Embedder | None,
    *,
    embed: bool = True,
    ingest: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Ingest `paths` without extraction (`ingest`: more `IngestSection` settings)."""
    from ingest.config import IngestSettings
    from ingest.pipeline import ingest_paths

    settings = IngestSettings(
        engine=Engine.FALKORDB,
        graph_name=db.graph_name,
        ingest={"batch_size": 64, "embed": embed, **(ingest or {})},
        _env_file=None,
    )
    rep = await ingest_paths(
        db, settings, list(paths), embedder=embedder, run_hooks=False, renice=True
    )
    return {
        "turns_new": rep.turns_new,
        "turns_unchanged": rep.turns_unchanged,
        "failed": rep.turns_failed,
        "files": len(rep.files),
        "seconds": rep.timings["total"],
    }


async def engine_kill_during_ingest(
    workdir: Path,
    *,
    sessions: int = 24,
    turns_per_session: int = 60,
    kill_at: Sequence[float] = (0.35,),
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Ingest a corpus cleanly; then, once per fraction in `kill_at`, ingest it in a subprocess on a
    fresh engine, SIGKILL the engine when that share of the turns is written, restart it on the
    same data dir, re-run the ingest, and compare the graph with the clean one."""
    emb = embedder or local_embedder()
    corpus = workdir / "corpus"
    total = write_corpus(corpus, sessions=sessions, turns_per_session=turns_per_session)
    with engine(workdir / "clean") as server:
        async with graph(server) as db:
            clean_run = await run_ingest(db, [corpus], emb)
            clean = await snapshot(db, ["synth"])
    out: dict[str, Any] = {"corpus_turns": total, "clean_run": clean_run, "trials": []}
    for n, fraction in enumerate(kill_at):
        trial: dict[str, Any] = {"kill_at_fraction": fraction}
        with engine(workdir / f"faulty-{n}") as server:
            async with graph(server) as db:
                pass  # migrated before the subprocess starts
            log = workdir / f"ingest-subprocess-{n}.log"
            proc = spawn(
                "ingest",
                "--socket",
                str(server.socket_path),
                "--graph",
                GRAPH,
                str(corpus),
                log=log,
            )
            probe = open_db(server)
            want = max(1, int(total * fraction))
            seen = 0
            deadline = time.monotonic() + 600
            try:
                while time.monotonic() < deadline and proc.poll() is None:
                    seen = (await label_counts(probe)).get("Turn", 0)
                    if seen >= want:
                        break
                    await asyncio.sleep(0.05)
            finally:
                await probe.close()
            if proc.poll() is not None:
                raise RuntimeError(f"the ingest ended before the kill ({log_tail(log)})")
            server.kill()
            trial["turns_when_killed"] = seen
            trial["ingest_exit_code"] = reap(proc, timeout=120)
            trial["ingest_error"] = log_tail(log, 1)
            server.start()  # same data dir, same socket: AOF replay
            async with graph(server) as db:
                trial["turns_after_restart"] = (await label_counts(db)).get("Turn", 0)
                trial["rerun"] = await run_ingest(db, [corpus], emb)
                resumed = await snapshot(db, ["synth"])
                trial["second_rerun"] = await run_ingest(db, [corpus], emb)
                again = await snapshot(db, ["synth"])
        trial["comparison"] = compare(clean, resumed)
        trial["idempotent_rerun_equal"] = compare(clean, again)["equal"]
        trial["data_lost"] = trial["comparison"]["missing"]
        out["trials"].append(trial)
    out["all_equal"] = all(
        t["comparison"]["equal"] and t["idempotent_rerun_equal"] for t in out["trials"]
    )
    out["data_lost"] = sum(t["data_lost"] for t in out["trials"])
    return out


def _unit(direction: int, rng: np.random.Generator, noise: float = 0.05) -> tuple[float, ...]:
    v = rng.normal(0, noise, 384)
    v[direction] += 1.0
    v /= np.linalg.norm(v)
    return tuple(float(x) for x in v)


SEEDED = "p"
"""The project `seed_knowledge` writes; a REM run over every project runs it on its own."""


async def seed_knowledge(
    db: FalkorDBGraph, *, clusters: int = 6, per_cluster: int = 300, seed: int = 11
) -> int:
    """Topics and lessons in `clusters` planted groups (embeddings near one basis direction each,
    lessons sharing source turns within a group); returns the node count."""
    rng = np.random.default_rng(seed)
    when = datetime(2026, 11, 1, tzinfo=UTC)
    topics: list[Topic] = []
    lessons: list[Lesson] = []
    for c in range(clusters):
        kw = (WORDS[(2 * c) % len(WORDS)], WORDS[(2 * c + 1) % len(WORDS)])
        for i in range(per_cluster):
            turns = (f"t-{c}-{i % 17}", f"t-{c}-{(i + 5) % 17}")
            if i % 2:
                topics.append(
                    Topic(
                        id=f"top_{c}_{i}",
                        title=f"{kw[0]} {kw[1]} topic {i}",
                        keywords=kw,
                        projects=(SEEDED,),
                        sessions=(f"s-{c}",),
                        message_ids=turns,
                        embedding=_unit(c, rng),
                        valid_from=when,
                        recorded_at=when,
                    )
                )
            else:
                lessons.append(
                    Lesson(
                        id=f"les_{c}_{i}",
                        project=SEEDED,
                        title=f"prefer {kw[0]} over {kw[1]} {i}",
                        keywords=kw,
                        source_turn_ids=turns,
                        embedding=_unit(c, rng),
                        valid_from=when,
                        recorded_at=when,
                    )
                )
    for i in range(0, len(topics), 500):
        await TopicRepository(db).upsert_many(topics[i : i + 500])
    for i in range(0, len(lessons), 500):
        await LessonRepository(db).upsert_many(lessons[i : i + 500])
    return len(topics) + len(lessons)


def rem_settings(server: EmbeddedServer, workdir: Path, *, lock_ttl_s: float) -> Any:
    """`ConsolidateSettings` for the graph on `server`."""
    from consolidate.config import ConsolidateSection, ConsolidateSettings

    return ConsolidateSettings(
        engine=Engine.FALKORDB,
        graph_name=GRAPH,
        falkordb={"unix_socket": server.socket_path},
        consolidate=ConsolidateSection(report_dir=workdir / "reports", lock_ttl_s=lock_ttl_s),
        _env_file=None,
    )


async def worker_kill_mid_consolidation(
    workdir: Path,
    *,
    per_cluster: int = 300,
    lock_ttl_s: float = 3.0,
    kill_delays_s: Sequence[float] = (0.15,),
) -> dict[str, Any]:
    """Run `communities` once; then, per delay in `kill_delays_s`, start it again in a subprocess
    and SIGKILL that process the delay after its run starts. The run current before must stay
    current with its communities intact, and the next run, right after the kill, must take the
    dead worker's lock over (no waiting for its expiry), complete and become current."""
    from consolidate.runner import run_job
    from graph.repositories.communities import CommunityRepository
    from graph.repositories.jobs import JobRepository

    out: dict[str, Any] = {"trials": []}
    with engine(workdir / "rem") as server:
        settings = rem_settings(server, workdir, lock_ttl_s=lock_ttl_s)
        async with graph(server) as db:
            out["knowledge_nodes"] = await seed_knowledge(db, per_cluster=per_cluster)
            first = await run_job("communities", db=db, settings=settings)
            out["first_run"] = {
                "status": first.status,
                "ms": round(first.duration_ms, 1),
                "communities": first.summary.get("communities"),
            }
            repo = CommunityRepository(db)
            jobs = JobRepository(db)
            for n, delay in enumerate(kill_delays_s):
                trial: dict[str, Any] = {"kill_delay_s": delay}
                cur = await repo.current_run(SEEDED)
                before = (
                    sorted((c.id, c.member_ids) for c in await repo.list_communities(cur.id))
                    if cur
                    else []
                )
                log = workdir / f"worker-subprocess-{n}.log"
                known = {r.id for r in await jobs.list_runs("*", "communities")}
                proc = spawn(
                    "consolidate",
                    "--socket",
                    str(server.socket_path),
                    "--graph",
                    GRAPH,
                    "--lock-ttl",
                    str(lock_ttl_s),
                    "--report-dir",
                    str(workdir / "reports"),
                    log=log,
                )
                stage = "not started"
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline and proc.poll() is None:
                    if [r for r in await jobs.list_runs("*", "communities") if r.id not in known]:
                        stage = "job started"
                        await asyncio.sleep(delay)
                        written = [
                            r for r in await repo.list_runs(SEEDED) if cur is None or r.id != cur.id
                        ]
                        if written:
                            stage = "new run written, not promoted"
                        break
                    await asyncio.sleep(0.02)
                if proc.poll() is not None:
                    raise RuntimeError(f"the worker ended before the kill ({log_tail(log)})")
                os.killpg(proc.pid, signal.SIGKILL)
                trial["worker_exit_code"] = reap(proc)
                trial["killed_at"] = stage
                after = await repo.current_run(SEEDED)
                trial["current_unchanged"] = bool(cur and after and after.id == cur.id)
                now_members = (
                    sorted((c.id, c.member_ids) for c in await repo.list_communities(after.id))
                    if after
                    else []
                )
                trial["communities_unchanged"] = now_members == before
                # the dead worker's lock is taken over at once (its process is gone), no expiry
                nxt = await run_job("communities", db=db, settings=settings)
                trial["lock_taken_over"] = nxt.status == "succeeded"
                final = await repo.current_run(SEEDED)
                trial["next_run"] = {
                    "status": nxt.status,
                    "ms": round(nxt.duration_ms, 1),
                    "communities": nxt.summary.get("communities"),
                    # the community run it wrote (a job run writes one per project)
                    "is_current": bool(final and final.id == nxt.summary.get("run_id")),
                }
                out["trials"].append(trial)
    out["all_survived"] = all(
        t["current_unchanged"]
        and t["communities_unchanged"]
        and t["lock_taken_over"]
        and t["next_run"]["status"] == "succeeded"
        and t["next_run"]["is_current"]
        for t in out["trials"]
    )
    return out
