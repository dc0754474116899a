"""Reliability scenarios shared by `tests/integration/reliability/` and `bench/bench_faults.py`.

Each scenario is self-contained: it starts its own embedded FalkorDB in a folder it is given (Unix
socket only, never the test session's server, since it kills it), drives the real pipeline, API or
REM runner, and returns a plain dict of what it observed. The tests assert on those dicts; the
benchmark writes them to `bench/results/reliability.json`. Nothing here fakes the engine: faults are
real SIGKILLs of real processes.

Subprocess entry points (`python -m bench.scenarios ingest|consolidate ...`) run an ingest or a REM
job against a socket so that the caller can kill the process or the engine underneath it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/bench_faults.py` from anywhere
    sys.path.insert(0, str(ROOT))

from ai.embed import CachedEmbedder, Embedder, LocalEmbedder  # noqa: E402
from graph.config import EmbeddedSettings, Engine  # noqa: E402
from graph.cypher import Q  # noqa: E402
from graph.embedded import EmbeddedServer  # noqa: E402
from graph.engines.falkordb import FalkorDBGraph  # noqa: E402
from graph.migrate import migrate  # noqa: E402
from graph.models import Lesson, Session, Topic, Turn  # noqa: E402
from graph.repositories.api_keys import ApiKeyRepository  # noqa: E402
from graph.repositories.lessons import LessonRepository  # noqa: E402
from graph.repositories.projects import ProjectRepository  # noqa: E402
from graph.repositories.sessions import SessionRepository  # noqa: E402
from graph.repositories.topics import TopicRepository  # noqa: E402
from graph.repositories.turns import TurnRepository  # noqa: E402

GRAPH = "reliability"
_STATS = Q("admin.stats")
_FP_NODES = Q("source_file.fingerprint_nodes")
_FP_EDGES = Q("source_file.fingerprint_edges")
_VOLATILE = frozenset({"recorded_at", "updated_at"})

_VOCABULARY = (
    "graph database memory agent session lesson vector index fulltext python cypher engine "
    "embedding ranking context primer community leiden topic fact correction decision deploy "
    "release migration schema socket worker queue latency budget cache retry timeout backup "
    "restore snapshot consolidate dedupe staleness graduation rollup weekly monthly pytest"
)
WORDS = tuple(_VOCABULARY.split())

CONTEXT_QUERY = """
query($q: String!, $p: String, $budget: Int, $limit: Int!) {
  context(query: $q, project: $p, tokenBudget: $budget, limit: $limit) {
    __typename
    ... on ContextPayload { totalTokens candidates items { id kind text score tokens } }
    ... on Forbidden { project message }
    ... on InvalidInput { field message }
  }
}"""

CONTEXT_FULL_QUERY = """
query($q: String!, $p: String, $budget: Int, $limit: Int!) {
  context(query: $q, project: $p, tokenBudget: $budget, limit: $limit) {
    __typename
    ... on ContextPayload {
      totalTokens candidates terms speakers
      items { id kind text score tokens why { name value }
              provenance { project sessionId turnIds timestamp speaker } }
    }
    ... on Forbidden { project message }
    ... on InvalidInput { field message }
  }
}"""
"""`CONTEXT_QUERY` selecting every field of the payload (why, provenance, query understanding)."""

# Two projects for the API scenarios: keys scoped to `alpha` must never see `beta`'s data.
CONVERSATIONS: dict[str, list[tuple[str, str]]] = {
    "alpha": [
        ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
        ("Melanie", "That sounds amazing! What happened there?"),
        ("Caroline", "The transgender stories were inspiring and I felt accepted."),
        ("Melanie", "I painted a lake sunrise last week, it calms me down."),
        ("Caroline", "I am researching adoption agencies because I want to be a mother."),
    ],
    "beta": [
        ("Jon", "The secret launch code for the beta project is tangerine."),
        ("Gina", "Our dance studio opens in June with a big party."),
        ("Jon", "I lost my banking job so I am starting a dance studio."),
    ],
}
BETA_SECRETS = ("tangerine", "dance studio", "banking job", "beta chat")
"""Strings only project `beta`'s data contains: an `alpha` key must never get them back."""

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


# --------------------------------------------------------------------------------------------
# engine and data helpers


def local_embedder() -> CachedEmbedder:
    """The real all-MiniLM-L6-v2 embedder behind a content cache."""
    return CachedEmbedder(LocalEmbedder(batch_size=64), size=100_000)


@contextlib.contextmanager
def engine(data_dir: Path) -> Iterator[EmbeddedServer]:
    """An embedded FalkorDB on a Unix socket in `data_dir`, stopped (or already dead) on exit."""
    server = EmbeddedServer(EmbeddedSettings(data_dir=data_dir, appendfsync="everysec"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def open_db(server: EmbeddedServer, graph: str = GRAPH) -> FalkorDBGraph:
    """A `GraphDB` on the server's socket (no I/O until first use)."""
    return FalkorDBGraph(graph_name=graph, unix_socket=str(server.socket_path))


@contextlib.asynccontextmanager
async def graph(server: EmbeddedServer, graph_name: str = GRAPH) -> AsyncIterator[FalkorDBGraph]:
    """A migrated graph on `server`, closed on exit."""
    db = open_db(server, graph_name)
    try:
        await migrate(db)
        yield db
    finally:
        await db.close()


def write_corpus(
    folder: Path, *, sessions: int, turns_per_session: int, project: str = "synth", seed: int = 7
) -> int:
    """Write a deterministic generic-JSONL corpus, one file per session; return the turn count."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    for s in range(sessions):
        lines = []
        for t in range(turns_per_session):
            words = rng.choice(WORDS, size=int(rng.integers(12, 40)))
            ts = base + timedelta(days=s, seconds=30 * t)
            lines.append(
                json.dumps(
                    {
                        "session_id": f"{project}-s{s:04d}",
                        "project": project,
                        "id": f"m{t}",
                        "role": "user" if t % 2 == 0 else "assistant",
                        "content": f"turn {t} of session {s}: " + " ".join(words),
                        "timestamp": ts.isoformat().replace("+00:00", "Z"),
                    }
                )
            )
        (folder / f"{project}-s{s:04d}.jsonl").write_text("\n".join(lines) + "\n")
    return sessions * turns_per_session


async def label_counts(db: FalkorDBGraph) -> dict[str, int]:
    """Nodes per label."""
    return {str(r["label"]): int(r["count"]) for r in await db.read(_STATS)}


@dataclass
class Snapshot:
    """What ingest wrote for some projects: property digests and embeddings per node and edge."""

    labels: dict[str, int]
    digests: dict[str, str] = field(default_factory=dict)
    embeddings: dict[str, list[float]] = field(default_factory=dict)
    edge_types: dict[str, int] = field(default_factory=dict)


def _digest(props: dict[str, Any]) -> str:
    import hashlib

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


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    return env


def spawn(*args: str, log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`python -m bench.scenarios ARGS` in its own process group, output to `log`."""
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [sys.executable, "-m", "bench.scenarios", *args],
            cwd=ROOT,
            env=env or _env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def reap(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> int:
    """Wait for `proc`; SIGKILL its process group if it does not end in time."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait(timeout=10)


def _tail(path: Path, n: int = 3) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(lines[-n:])


# --------------------------------------------------------------------------------------------
# scenario 1: SIGKILL of the engine during an ingest


async def _ingest(
    db: FalkorDBGraph, paths: Sequence[Path], embedder: Embedder | None, *, embed: bool = True
) -> dict[str, Any]:
    from ingest.config import IngestSettings
    from ingest.pipeline import ingest_paths

    settings = IngestSettings(
        engine=Engine.FALKORDB,
        graph_name=db.graph_name,
        ingest={"batch_size": 64, "embed": embed},
        _env_file=None,
    )
    rep = await ingest_paths(db, settings, list(paths), embedder=embedder, run_hooks=False)
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
            clean_run = await _ingest(db, [corpus], emb)
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
                raise RuntimeError(f"the ingest ended before the kill ({_tail(log)})")
            server.kill()
            trial["turns_when_killed"] = seen
            trial["ingest_exit_code"] = reap(proc, timeout=120)
            trial["ingest_error"] = _tail(log, 1)
            server.start()  # same data dir, same socket: AOF replay
            async with graph(server) as db:
                trial["turns_after_restart"] = (await label_counts(db)).get("Turn", 0)
                trial["rerun"] = await _ingest(db, [corpus], emb)
                resumed = await snapshot(db, ["synth"])
                trial["second_rerun"] = await _ingest(db, [corpus], emb)
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


# --------------------------------------------------------------------------------------------
# scenario 2: the engine goes down under the API and comes back


async def seed_projects(db: FalkorDBGraph, embedder: Embedder) -> dict[str, list[str]]:
    """Sessions and embedded turns of `alpha` and `beta`; returns each project's ids."""
    sessions_repo, turns_repo = SessionRepository(db), TurnRepository(db)
    ids: dict[str, list[str]] = {}
    for project, lines in CONVERSATIONS.items():
        sid = f"ses_{project}"
        s = Session(
            id=sid,
            project=project,
            source="api",
            title=f"{project} chat",
            source_key=sid,
            started_at=T0,
            valid_from=T0,
            turn_count=len(lines),
        )
        await sessions_repo.upsert_many([s])
        await ProjectRepository(db).link_sessions([s])
        turns = [
            Turn(
                id=f"trn_{project}_{i}",
                project=project,
                session_id=sid,
                ordinal=i,
                role="user",
                speaker=spk,
                text=text,
                token_estimate=len(text) // 4 + 1,
                valid_from=T0 + timedelta(minutes=i),
            )
            for i, (spk, text) in enumerate(lines)
        ]
        await turns_repo.upsert_many(turns)
        vecs = await embedder.embed([t.text for t in turns])
        await turns_repo.set_embeddings(zip([t.id for t in turns], vecs, strict=True))
        await sessions_repo.link_turns(turns)
        ids[project] = [sid, *(t.id for t in turns)]
    return ids


async def make_keys(db: FalkorDBGraph, scopes: dict[str, list[str]]) -> dict[str, str]:
    """API key secrets by name, for the given project scopes."""
    repo = ApiKeyRepository(db)
    return {name: (await repo.create(name, projects))[1] for name, projects in scopes.items()}


def api_settings(server: EmbeddedServer, **api: Any) -> Any:
    """`ApiSettings` for the graph on `server` (test env; limits overridable)."""
    from api.config import ApiSettings

    return ApiSettings(
        env="test",
        engine=Engine.FALKORDB,
        graph_name=GRAPH,
        falkordb={"unix_socket": server.socket_path, "query_timeout_s": 10.0},
        api=api,
        _env_file=None,
    )


def _gql_error(body: Any) -> str:
    if isinstance(body, dict):
        errs = body.get("errors") or []
        if errs and isinstance(errs[0], dict):
            return str(errs[0].get("message", ""))
        if "detail" in body:
            return str(body["detail"])
    return ""


async def engine_down_api(
    workdir: Path, *, embedder: Embedder | None = None, recover_timeout_s: float = 20.0
) -> dict[str, Any]:
    """Kill the engine under a running API app: `/readyz` must answer 503 and GraphQL a clear
    error (never a 500), then both must recover without restarting the app."""
    import httpx

    from api.app import create_app
    from api.services import ApiServices

    emb = embedder or local_embedder()
    out: dict[str, Any] = {}
    with engine(workdir / "api") as server:
        async with graph(server) as db:
            await seed_projects(db, emb)
            keys = await make_keys(db, {"alpha": ["alpha"], "fresh": ["alpha"]})
        app = create_app(api_settings(server), ApiServices(embedder=emb))
        variables = {
            "q": "When did Caroline go to the support group?",
            "p": "alpha",
            "budget": 500,
            "limit": 3,
        }

        async def context(c: httpx.AsyncClient, key: str) -> httpx.Response:
            return await c.post(
                "/graphql",
                json={"query": CONTEXT_QUERY, "variables": variables},
                headers={"Authorization": f"Bearer {key}"},
            )

        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://api") as c:
                r = await c.get("/readyz")
                out["ready_before"] = r.status_code
                r = await context(c, keys["alpha"])
                data = r.json().get("data") or {}
                out["context_before"] = {
                    "status": r.status_code,
                    "typename": (data.get("context") or {}).get("__typename"),
                    "top": [i["id"] for i in (data.get("context") or {}).get("items", [])][:1],
                }
                server.kill()
                r = await c.get("/readyz")
                out["ready_down"] = {"status": r.status_code, "body": r.json()}
                r = await context(c, keys["alpha"])  # key cached: the resolver hits the engine
                out["graphql_down"] = {
                    "status": r.status_code,
                    "error": _gql_error(r.json()),
                    "code": _code(r.json()),
                }
                r = await context(c, keys["fresh"])  # key not cached: auth hits the engine
                out["graphql_down_new_key"] = {
                    "status": r.status_code,
                    "error": _gql_error(r.json()),
                    "code": _code(r.json()),
                }
                t = time.perf_counter()
                server.start()
                out["engine_restart_s"] = round(time.perf_counter() - t, 3)
                t = time.perf_counter()
                ready = 0
                deadline = time.monotonic() + recover_timeout_s
                while time.monotonic() < deadline:
                    ready = (await c.get("/readyz")).status_code
                    if ready == 200:
                        break
                    await asyncio.sleep(0.1)
                out["ready_after"] = ready
                r = await context(c, keys["alpha"])
                data = r.json().get("data") or {}
                out["context_after"] = {
                    "status": r.status_code,
                    "typename": (data.get("context") or {}).get("__typename"),
                    "top": [i["id"] for i in (data.get("context") or {}).get("items", [])][:1],
                }
                out["recovered_in_s"] = round(time.perf_counter() - t, 3)
    return out


def _code(body: Any) -> str | None:
    if isinstance(body, dict):
        errs = body.get("errors") or []
        if errs and isinstance(errs[0], dict):
            return (errs[0].get("extensions") or {}).get("code")
    return None


# --------------------------------------------------------------------------------------------
# scenario 3: SIGKILL of a worker mid-consolidation


def _unit(direction: int, rng: np.random.Generator, noise: float = 0.05) -> tuple[float, ...]:
    v = rng.normal(0, noise, 384)
    v[direction] += 1.0
    v /= np.linalg.norm(v)
    return tuple(float(x) for x in v)


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
                        projects=("p",),
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
                        project="p",
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
    current with its communities intact, a run while the dead worker's lock holds is skipped, and
    the next run after the lock expires must complete and become current."""
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
                cur = await repo.current_run("*")
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
                            r for r in await repo.list_runs("*") if cur is None or r.id != cur.id
                        ]
                        if written:
                            stage = "new run written, not promoted"
                        break
                    await asyncio.sleep(0.02)
                if proc.poll() is not None:
                    raise RuntimeError(f"the worker ended before the kill ({_tail(log)})")
                os.killpg(proc.pid, signal.SIGKILL)
                trial["worker_exit_code"] = reap(proc)
                trial["killed_at"] = stage
                after = await repo.current_run("*")
                trial["current_unchanged"] = bool(cur and after and after.id == cur.id)
                now_members = (
                    sorted((c.id, c.member_ids) for c in await repo.list_communities(after.id))
                    if after
                    else []
                )
                trial["communities_unchanged"] = now_members == before
                trial["skipped_while_locked"] = (
                    await run_job("communities", db=db, settings=settings)
                ).status == "skipped"
                await asyncio.sleep(lock_ttl_s + 0.2)  # the dead worker's lock expires
                nxt = await run_job("communities", db=db, settings=settings)
                final = await repo.current_run("*")
                trial["next_run"] = {
                    "status": nxt.status,
                    "ms": round(nxt.duration_ms, 1),
                    "communities": nxt.summary.get("communities"),
                    "is_current": bool(final and final.id == nxt.run_id),
                }
                out["trials"].append(trial)
    out["all_survived"] = all(
        t["current_unchanged"]
        and t["communities_unchanged"]
        and t["skipped_while_locked"]
        and t["next_run"]["status"] == "succeeded"
        and t["next_run"]["is_current"]
        for t in out["trials"]
    )
    return out


# --------------------------------------------------------------------------------------------
# scenario 4: concurrent GraphQL clients against a real uvicorn while an ingest runs


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def app_from_env() -> Any:
    """uvicorn `--factory` target: the API app configured from `REMGRAPH_*` variables."""
    from api.app import create_app
    from api.config import ApiSettings

    return create_app(ApiSettings())


def rss_mib(pid: int) -> float:
    """Resident set size of a process in MiB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


@contextlib.contextmanager
def api_server(
    server: EmbeddedServer, workdir: Path, graph_name: str = GRAPH, timeout_s: float = 120.0
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`uvicorn` serving the API on 127.0.0.1 in a subprocess; yields its base URL and process."""
    import httpx

    port = free_port()
    env = _env() | {
        "REMGRAPH_ENV": "test",
        "REMGRAPH_ENGINE": "falkordb",
        "REMGRAPH_GRAPH_NAME": graph_name,
        "REMGRAPH_FALKORDB__UNIX_SOCKET": str(server.socket_path),
    }
    out = (workdir / "uvicorn.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "bench.scenarios:app_from_env",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited: {_tail(workdir / 'uvicorn.log', 5)}")
            try:
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not become ready")
            time.sleep(0.2)
        yield url, proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        reap(proc, timeout=15)
        out.close()


QUERIES = (
    "When did Caroline go to the support group?",
    "adoption agencies",
    "lake sunrise painting",
    "graph index latency",
    "deploy the migration schema",
    "retry timeout budget",
    "weekly rollup of the worker queue",
    "which embedding model do we use",
)


async def load(
    workdir: Path,
    *,
    clients: int = 16,
    duration_s: float = 60.0,
    embedder: Embedder | None = None,
    ingest_turns: int = 0,
) -> dict[str, Any]:
    """`clients` concurrent GraphQL clients query `context` against uvicorn for `duration_s`
    while an ingest subprocess writes a corpus into the same graph."""
    import httpx

    emb = embedder or local_embedder()
    from bench.common import percentiles

    sessions = 40
    per = max(10, (ingest_turns or int(duration_s * 250)) // sessions)
    corpus = workdir / "corpus"
    total = write_corpus(corpus, sessions=sessions, turns_per_session=per, project="loadtest")
    out: dict[str, Any] = {"clients": clients, "duration_s": duration_s, "corpus_turns": total}
    with engine(workdir / "load") as server:
        async with graph(server) as db:
            await seed_projects(db, emb)
            keys = await make_keys(db, {"all": ["*"]})
        with api_server(server, workdir) as (url, api_proc):
            ingest_proc = spawn(
                "ingest",
                "--socket",
                str(server.socket_path),
                "--graph",
                GRAPH,
                str(corpus),
                log=workdir / "ingest-subprocess.log",
            )
            probe = open_db(server)
            # wait until the ingest writes (its model load is not part of the window)
            start_wait = time.monotonic()
            while time.monotonic() - start_wait < 180 and ingest_proc.poll() is None:
                if (await label_counts(probe)).get("Turn", 0) > 8:
                    break
                await asyncio.sleep(0.1)
            async with httpx.AsyncClient(base_url=url, timeout=120) as c:
                # warm-up: the API process loads its query embedder on the first `context` call
                await c.post(
                    "/graphql",
                    headers={"Authorization": f"Bearer {keys['all']}"},
                    json={
                        "query": CONTEXT_QUERY,
                        "variables": {"q": "warm up", "p": "alpha", "limit": 1},
                    },
                )
            turns_start = (await label_counts(probe)).get("Turn", 0)
            latencies: list[float] = []
            attempts = [0]
            errors: list[str] = []
            statuses: dict[str, int] = {}
            rss: list[float] = []
            stop = time.monotonic() + duration_s

            async def client(i: int) -> None:
                headers = {"Authorization": f"Bearer {keys['all']}"}
                async with httpx.AsyncClient(base_url=url, timeout=30) as c:
                    n = 0
                    while time.monotonic() < stop:
                        q = QUERIES[(i + n) % len(QUERIES)]
                        project = "alpha" if n % 2 == 0 else "loadtest"
                        body = {
                            "query": CONTEXT_QUERY,
                            "variables": {"q": q, "p": project, "budget": 1000, "limit": 10},
                        }
                        t = time.perf_counter()
                        n += 1
                        attempts[0] += 1
                        try:
                            r = await c.post("/graphql", json=body, headers=headers)
                        except httpx.HTTPError as e:
                            errors.append(f"{type(e).__name__}: {e}")
                            continue
                        latencies.append((time.perf_counter() - t) * 1000)
                        statuses[str(r.status_code)] = statuses.get(str(r.status_code), 0) + 1
                        payload = r.json() if r.status_code == 200 else {}
                        ctx = (payload.get("data") or {}).get("context") or {}
                        if (
                            r.status_code != 200
                            or payload.get("errors")
                            or (ctx.get("__typename") != "ContextPayload")
                        ):
                            errors.append(f"{r.status_code}: {r.text[:200]}")

            async def sample_rss() -> None:
                while time.monotonic() < stop:
                    rss.append(rss_mib(api_proc.pid))
                    await asyncio.sleep(1.0)

            t0 = time.perf_counter()
            await asyncio.gather(*(client(i) for i in range(clients)), sample_rss())
            elapsed = time.perf_counter() - t0
            turns_end = (await label_counts(probe)).get("Turn", 0)
            ingest_running = ingest_proc.poll() is None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(ingest_proc.pid, signal.SIGTERM)
            reap(ingest_proc, timeout=15)
            await probe.close()
            st = server.status()
            out.update(
                {
                    "requests": attempts[0],
                    "errors": len(errors),
                    "error_examples": errors[:3],
                    "status_codes": statuses,
                    "elapsed_s": round(elapsed, 2),
                    "requests_per_s": round(len(latencies) / elapsed, 1) if elapsed else 0.0,
                    "latency_ms": percentiles(latencies),
                    "turns_ingested_during_window": turns_end - turns_start,
                    "ingest_ran_whole_window": ingest_running,
                    "api_rss_mib_max": max(rss) if rss else 0.0,
                    "engine_rss_mib": rss_mib(st.pid) if st.pid else 0.0,
                }
            )
    return out


# --------------------------------------------------------------------------------------------
# scenario 5: fuzzing the GraphQL API

_TEMPLATES: dict[str, str] = {
    "context": CONTEXT_QUERY,
    "context_kinds": """query($q: String!, $asOf: DateTime, $knownAt: DateTime,
      $kinds: [ContextKind!], $limit: Int!) {
      context(query: $q, asOf: $asOf, knownAt: $knownAt, kinds: $kinds, limit: $limit) {
      __typename ... on ContextPayload { items { id kind text } }
      ... on InvalidInput { field message } } }""",
    "search": """query($q: String!, $mode: SearchMode!, $p: String, $first: Int!, $after: String) {
      search(query: $q, mode: $mode, project: $p, first: $first, after: $after) { __typename
      ... on SearchHitConnection { pageInfo { endCursor } edges { node { id score
        turn { __typename id text project } } } }
      ... on InvalidInput { field message } ... on Forbidden { project message } } }""",
    "session": """query($id: String!, $first: Int!, $after: String) { session(id: $id) {
      __typename ... on Session { id title project turns(first: $first, after: $after) {
        nodes { __typename id text project } } } ... on NotFound { id message } } }""",
    "turn": """query($id: String!) { turn(id: $id) { __typename
      ... on Turn { id text project session { __typename id title project } }
      ... on NotFound { id message } } }""",
    "project": """query($id: String!, $first: Int!) { project(id: $id) { __typename
      ... on Project { id name sessions(first: $first) { nodes { __typename id title project } } }
      ... on NotFound { id message } } }""",
    "sessions": """query($p: String, $first: Int!, $after: String, $asOf: DateTime) {
      sessions(project: $p, first: $first, after: $after, asOf: $asOf) { __typename
      ... on SessionConnection { nodes { __typename id title project } }
      ... on InvalidInput { field message } ... on Forbidden { project message } } }""",
    "projects": """query($first: Int!, $after: String) { projects(first: $first, after: $after) {
      __typename ... on ProjectConnection { nodes { __typename id name } }
      ... on InvalidInput { field message } } }""",
    "ingest": """mutation($input: IngestTurnsInput!) { ingestTurns(input: $input) { __typename
      ... on InvalidInput { field message } ... on Forbidden { project message }
      ... on Unavailable { capability message } } }""",
}
_FIELDS = (
    "context",
    "search",
    "session",
    "turn",
    "project",
    "projects",
    "sessions",
    "ingestTurns",
    "__schema",
    "__type",
    "nope",
)
_ALLOWED_STATUS = frozenset({200, 400, 401, 405, 413, 415, 422})


def _json_values() -> Any:
    from hypothesis import strategies as st

    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=40)
    )
    return st.recursive(
        scalars,
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=8,
    )


def _strategies(ids: dict[str, list[str]]) -> Any:
    """Hypothesis strategy of `(kind, payload)` requests: templates with good, wrong-typed, huge
    or unknown variables; documents built from field names with random arguments; random text
    as a document; random bytes as a body."""
    from hypothesis import strategies as st

    clean = st.text(max_size=120).filter(lambda t: not any(s in t.lower() for s in BETA_SECRETS))
    huge = st.integers(4_001, 6_000).map(lambda n: "graph " * (n // 6 + 1))
    ints = st.sampled_from([0, -1, 1, 3, 200, 201, 10**6, 2**31, 2**53, -(2**63)]) | st.integers()
    known = ids["alpha"] + ids["beta"]
    all_values = {
        "q": clean | huge | st.sampled_from(list(QUERIES)),
        "p": st.none() | st.sampled_from(["alpha", "beta", "*", "", "ALPHA", "../beta"]) | clean,
        "budget": st.none() | ints,
        "limit": ints,
        "first": ints,
        "after": st.none() | clean | st.sampled_from(["MA==", "LTE=", "OTk5OTk5OTk5", "nope"]),
        "id": st.sampled_from(known) | clean | st.sampled_from(["", "ses_", "*"]),
        "mode": st.sampled_from(["FULLTEXT", "VECTOR", "HYBRID", "hybrid", "BOGUS"]),
        "asOf": st.none()
        | st.sampled_from(
            ["2023-05-08T14:00:00Z", "1999-01-01T00:00:00", "not a date", "9999-12-31T23:59:59Z"]
        )
        | clean,
        "knownAt": st.none() | st.sampled_from(["2023-05-08T14:00:00Z", "0000-00-00"]),
        "kinds": st.none()
        | st.lists(st.sampled_from(["TURN", "LESSON", "FACT", "BAD"]), max_size=3),
        "input": st.fixed_dictionaries(
            {
                "project": st.sampled_from(["alpha", "beta", ""]),
                "sessionKey": clean,
                "turns": st.lists(
                    st.fixed_dictionaries({"role": clean, "text": clean}), max_size=3
                ),
            }
        ),
    }
    anything = _json_values()

    @st.composite
    def template(draw: Any) -> tuple[str, Any]:
        name = draw(st.sampled_from(sorted(_TEMPLATES)))
        doc = _TEMPLATES[name]
        variables: dict[str, Any] = {}
        for var, strat in all_values.items():
            if f"${var}" not in doc or draw(st.integers(0, 9)) == 0:
                continue  # sometimes leave a (maybe required) variable out
            variables[var] = draw(anything if draw(st.integers(0, 5)) == 0 else strat)
        return "template:" + name, {"query": doc, "variables": variables}

    @st.composite
    def built(draw: Any) -> tuple[str, Any]:
        field_name = draw(st.sampled_from(_FIELDS))
        args = draw(
            st.dictionaries(
                st.sampled_from(
                    [
                        "id",
                        "query",
                        "first",
                        "limit",
                        "after",
                        "project",
                        "mode",
                        "tokenBudget",
                        "asOf",
                        "x",
                    ]
                ),
                st.sampled_from(
                    [
                        '"alpha"',
                        '"beta"',
                        "-1",
                        "99999999999999999999",
                        "null",
                        "true",
                        "[1,2]",
                        "{a: 1}",
                        "HYBRID",
                        '""',
                        "1.5",
                        '"ses_beta"',
                    ]
                ),
                max_size=4,
            )
        )
        arg_text = f"({', '.join(f'{k}: {v}' for k, v in args.items())})" if args else ""
        sel = draw(
            st.sampled_from(
                [
                    "{ __typename }",
                    "",
                    "{ __typename ... on NotFound { id } }",
                    "{ __typename { x } }",
                    "{ id }",
                ]
            )
        )
        op = "mutation" if field_name == "ingestTurns" else draw(st.sampled_from(["query", ""]))
        return "built:" + field_name, {"query": f"{op} {{ {field_name}{arg_text} {sel} }}"}

    raw_doc = clean.map(lambda t: ("raw-document", {"query": t}))
    raw_body = st.binary(max_size=200).map(lambda b: ("raw-body", b))
    deep = st.integers(5, 40).map(
        lambda n: (
            "deep",
            {
                "query": "query { projects { ... on ProjectConnection { nodes { sessions { nodes { "
                + "turns { nodes { session { " * n
                + "id"
                + " } } }" * n
                + " } } } } } }"
            },
        )
    )
    return st.one_of(template(), template(), template(), built(), raw_doc, raw_body, deep)


def _leaks(data: Any, beta_ids: frozenset[str]) -> list[str]:
    """Places in `data` where `beta` items appear (NotFound/Forbidden echoes excepted)."""
    found: list[str] = []

    def walk(x: Any, path: str) -> None:
        if isinstance(x, dict):
            if x.get("__typename") in ("NotFound", "Forbidden"):
                return
            if (
                x.get("id") in beta_ids
                or x.get("project") == "beta"
                or x.get("sessionId") in beta_ids
            ):
                found.append(path)
            for k, v in x.items():
                walk(v, f"{path}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{path}[{i}]")

    walk(data, "data")
    return found


def _check(status: int, text: str, beta_ids: frozenset[str]) -> str | None:
    """None when a response is acceptable, else why not."""
    if status >= 500 or status not in _ALLOWED_STATUS:
        return f"HTTP {status}: {text[:300]}"
    low = text.lower()
    if "traceback" in low or "internal error" in low:
        return f"unexpected error: {text[:300]}"
    if any(s in low for s in BETA_SECRETS):
        return f"beta text leaked: {text[:300]}"
    try:
        body = json.loads(text)
    except ValueError:
        return None if status in (400, 405, 415, 422) else f"not JSON: {text[:200]}"
    if not isinstance(body, dict):
        return f"unexpected body: {text[:200]}"
    for e in body.get("errors") or []:
        if not isinstance(e, dict) or not str(e.get("message", "")).strip():
            return f"error without a message: {text[:200]}"
    if status == 200 and "data" not in body and "errors" not in body:
        return f"neither data nor errors: {text[:200]}"
    leaks = _leaks(body.get("data"), beta_ids)
    if leaks:
        return f"beta ids leaked at {leaks[:3]}: {text[:300]}"
    return None


def fuzz_api(
    workdir: Path,
    *,
    max_examples: int = 150,
    embedder: Embedder | None = None,
    max_body_bytes: int = 50_000,
) -> dict[str, Any]:
    """Fuzz `/graphql` through `httpx.ASGITransport` with an `alpha`-only key (sync: runs its own
    event loop, so hypothesis drives one request per example). Failures are collected, not raised:
    no 5xx, every error has a message, nothing of project `beta` comes back; oversize bodies get
    413 naming the limit."""
    import httpx
    from hypothesis import HealthCheck, Phase, given
    from hypothesis import settings as hsettings

    from api.app import create_app
    from api.services import ApiServices

    emb = embedder or local_embedder()
    loop = asyncio.new_event_loop()
    server = EmbeddedServer(EmbeddedSettings(data_dir=workdir / "fuzz"))
    server.start()
    out: dict[str, Any] = {"max_examples": max_examples}
    try:

        async def setup() -> tuple[dict[str, list[str]], dict[str, str]]:
            async with graph(server) as db:
                ids = await seed_projects(db, emb)
                keys = await make_keys(db, {"alpha": ["alpha"]})
            return ids, keys

        ids, keys = loop.run_until_complete(setup())
        beta_ids = frozenset(ids["beta"])
        app = create_app(
            api_settings(server, max_body_bytes=max_body_bytes), ApiServices(embedder=emb)
        )
        lifespan = app.router.lifespan_context(app)
        loop.run_until_complete(lifespan.__aenter__())
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://api", timeout=60
        )
        headers = {"Authorization": f"Bearer {keys['alpha']}"}
        failures: list[dict[str, Any]] = []
        kinds: dict[str, int] = {}
        statuses: dict[str, int] = {}
        resolved = [0]

        async def send(kind: str, payload: Any, hdrs: dict[str, str]) -> tuple[int, str]:
            # Encode here, not in httpx: it refuses NaN/Infinity, which a client may still send.
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            try:
                r = await client.post(
                    "/graphql", content=body, headers=hdrs | {"content-type": "application/json"}
                )
            except Exception as e:  # an exception escaping the app is what a 500 would be
                return 599, f"{type(e).__name__}: {e}"
            return r.status_code, r.text

        def record(kind: str, payload: Any, status: int, text: str) -> None:
            kinds[kind.split(":")[0]] = kinds.get(kind.split(":")[0], 0) + 1
            statuses[str(status)] = statuses.get(str(status), 0) + 1
            with contextlib.suppress(ValueError):
                body = json.loads(text)
                if (
                    isinstance(body, dict)
                    and isinstance(body.get("data"), dict)
                    and any(v is not None for v in body["data"].values())
                ):
                    resolved[0] += 1
            why = _check(status, text, beta_ids)
            if why is not None:
                shown = payload if isinstance(payload, dict) else repr(payload)[:200]
                failures.append(
                    {
                        "kind": kind,
                        "why": why,
                        "request": json.loads(json.dumps(shown, default=repr)),
                    }
                )

        @hsettings(
            max_examples=max_examples,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(_strategies(ids))
        def one(req: tuple[str, Any]) -> None:
            kind, payload = req
            status, text = loop.run_until_complete(send(kind, payload, headers))
            record(kind, payload, status, text)

        t = time.perf_counter()
        one()
        # Fixed cases: no key, a wrong key, oversize bodies with and without a length header.
        fixed: list[tuple[str, int, str]] = []
        q = {"query": "{ projects { __typename } }"}
        for name, hdrs in (("no-key", {}), ("bad-key", {"X-API-Key": "rg_wrong"})):
            status, text = loop.run_until_complete(send(name, q, hdrs))
            record(name, q, status, text)
            fixed.append((name, status, text))
        for raw in (b"7", b"null", b'"x"', b"[7]", b"true", b"\xff\xfe"):
            status, text = loop.run_until_complete(send("raw-json", raw, headers))
            record("raw-json", raw, status, text)
            fixed.append((f"raw-json {raw!r}", status, text))
        big = {"query": CONTEXT_QUERY, "variables": {"q": "x" * (max_body_bytes + 10), "limit": 3}}
        status, text = loop.run_until_complete(send("oversize", big, headers))
        fixed.append(("oversize", status, text))

        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"query": "{ projects { __typename } }", "pad": "'
            for _ in range(max_body_bytes // 1000 + 2):
                yield b"y" * 1000
            yield b'"}'

        async def streamed() -> tuple[int, str]:
            r = await client.post(
                "/graphql", content=chunks(), headers=headers | {"content-type": "application/json"}
            )
            return r.status_code, r.text

        status, text = loop.run_until_complete(streamed())
        fixed.append(("oversize-streamed", status, text))
        out["seconds"] = round(time.perf_counter() - t, 2)
        out["fixed_cases"] = {n: {"status": s, "body": txt[:300]} for n, s, txt in fixed}
        out["oversize_rejected"] = all(
            s == 413 and str(max_body_bytes) in txt
            for n, s, txt in fixed
            if n.startswith("oversize")
        )
        out["inputs_tried"] = sum(kinds.values()) + 2  # + the two oversize bodies
        out["by_kind"] = kinds
        out["answered_with_data"] = resolved[0]
        out["status_codes"] = statuses
        out["failures"] = failures[:20]
        out["failure_count"] = len(failures)
        loop.run_until_complete(client.aclose())
        loop.run_until_complete(lifespan.__aexit__(None, None, None))
    finally:
        server.stop()
        loop.close()
    return out


# --------------------------------------------------------------------------------------------
# subprocess entry points


async def _ingest_main(args: argparse.Namespace) -> int:
    db = FalkorDBGraph(graph_name=args.graph, unix_socket=args.socket)
    try:
        rep = await _ingest(db, [Path(p) for p in args.paths], local_embedder())
    finally:
        await db.close()
    print(json.dumps(rep))
    return 0


async def _consolidate_main(args: argparse.Namespace) -> int:
    from consolidate.config import ConsolidateSection, ConsolidateSettings
    from consolidate.runner import run_job

    settings = ConsolidateSettings(
        engine=Engine.FALKORDB,
        graph_name=args.graph,
        falkordb={"unix_socket": args.socket},
        consolidate=ConsolidateSection(report_dir=Path(args.report_dir), lock_ttl_s=args.lock_ttl),
        _env_file=None,
    )
    db = FalkorDBGraph(graph_name=args.graph, unix_socket=args.socket)
    try:
        rep = await run_job("communities", db=db, settings=settings)
    finally:
        await db.close()
    print(json.dumps({"status": rep.status, "ms": rep.duration_ms}))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bench.scenarios ingest|consolidate ...` (driven by the scenarios above)."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("ingest")
    i.add_argument("--socket", required=True)
    i.add_argument("--graph", default=GRAPH)
    i.add_argument("paths", nargs="+")
    c = sub.add_parser("consolidate")
    c.add_argument("--socket", required=True)
    c.add_argument("--graph", default=GRAPH)
    c.add_argument("--lock-ttl", type=float, default=3.0)
    c.add_argument("--report-dir", default=".")
    args = p.parse_args(argv)
    if args.cmd == "ingest":
        return asyncio.run(_ingest_main(args))
    return asyncio.run(_consolidate_main(args))


if __name__ == "__main__":
    sys.exit(main())
