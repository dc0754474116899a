"""The backlog: turns searchable before their vectors and their knowledge, then one drain."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from graph.db import GraphDB
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.backlog import BacklogRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.jobs import JobRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.topics import TopicRepository
from ingest.backlog import LOCK_ID, drain_backlog
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from ingest.pipeline import ingest_paths
from recall.config import RankingSection
from recall.retrieval import RetrievalService
from tests.support.hash_embedder import HashEmbedder


def _transcript(path: Path, start: int = 1_700_000_000) -> Path:
    lines = [
        ("user", "The deploy of the billing service failed with error E42 on port 5432."),
        ("assistant", "Fixed by restarting the billing pool; all tests pass now."),
        ("user", "No, use podman instead of docker for the builds."),
        ("assistant", "We discussed kubernetes ingress and billing latency budgets."),
    ]
    with path.open("w") as f:
        for i in range(24):
            role, text = lines[i % 4]
            rec = {"session_id": f"s{i // 8}", "project": "bk", "id": f"m{i}", "role": role}
            f.write(json.dumps({**rec, "content": text, "timestamp": start + i}) + "\n")
    return path


async def test_no_wait_leaves_turns_searchable_then_one_drain_fills_them(
    graph_db: GraphDB, tmp_path: Path
) -> None:
    path = _transcript(tmp_path / "t.jsonl")
    settings = IngestSettings(ingest={"backlog_batch": 5})
    emb = HashEmbedder()
    hook = ExtractionHook(settings, embedder=emb)
    rep = await ingest_paths(
        graph_db, settings, [path], hooks=[hook], embedder=emb, wait_embeddings=False
    )
    assert rep.turns_new == 24
    backlog = BacklogRepository(graph_db)
    status = await backlog.status()
    assert status["turns"] == 24
    assert status["extract"] == 3  # one queued extraction per session
    assert status["extract_turns"] == 24
    # Knowledge comes with the drain: `ingest` only wrote the turns.
    assert await TopicRepository(graph_db).list_all() == []
    assert await CorrectionRepository(graph_db).list_by_project("bk") == []
    # `/readyz` says what is pending (and stays ready: the turns are searchable).
    app = create_app(ApiSettings(env="test"), ApiServices(db=graph_db, embedder=emb))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            _, secret = await ApiKeyRepository(graph_db).create("ops", ["*"])
            ready = await c.get("/readyz", headers={"X-API-Key": secret})
            bare = await c.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["embedding_backlog"] == status
    assert bare.json() == {"status": "ready"}  # without a key: nothing but that

    # Searchable by text now; `why` says the vector is missing.
    svc = RetrievalService(RecallRepository(graph_db), emb, RankingSection())
    res = await svc.context("billing deploy error", ("bk",), limit=5, token_budget=None)
    turns = [r for r in res.items if r.candidate.kind.value == "turn"]
    assert turns
    assert all(r.why.get("vector_pending") == 1.0 for r in turns)

    # Another holder of the lock: a non-waiting drain leaves the work to it.
    jobs = JobRepository(graph_db)
    assert await jobs.acquire_lock(LOCK_ID, "someone-else", now_ms=1, ttl_ms=10**13)
    skipped = await drain_backlog(graph_db, settings, emb, wait=False)
    assert not skipped.ran
    assert (await backlog.status())["turns"] == 24
    assert await jobs.release_lock(LOCK_ID, "someone-else")

    done = await drain_backlog(graph_db, settings, emb)
    assert done.turns_embedded == 24
    assert done.extractions == 3
    assert done.knowledge.sessions == 3
    assert done.knowledge.turns == 24
    assert await backlog.status() == {"turns": 0, "extract": 0, "extract_turns": 0}
    assert await TopicRepository(graph_db).list_all()
    [podman] = await CorrectionRepository(graph_db).list_by_project("bk")
    assert "podman" in podman.rule_text
    res = await svc.context("billing deploy error", ("bk",), limit=5, token_budget=None)
    assert not any("vector_pending" in r.why for r in res.items)
    assert all(
        "vector" in r.candidate.scores for r in res.items if r.candidate.kind.value == "turn"
    )


async def test_the_drain_runs_queued_extractions_with_the_runs_llm_and_reports_fallbacks(
    graph_db: GraphDB, tmp_path: Path
) -> None:
    from ai.config import LLMSettings
    from ai.llm import LLMClient
    from ingest.extract.llm import LLMExtractor
    from tests.openai_stub import run_stub

    def down(path, body):
        return 503, {"error": {"message": "model is loading"}}

    path = _transcript(tmp_path / "t.jsonl")
    settings = IngestSettings()
    emb = HashEmbedder()
    with run_stub(down) as stub:
        llm = LLMClient(
            LLMSettings(base_url=stub.base_url, model="stub", max_retries=0), base_delay_s=0.01
        )
        hook = ExtractionHook(settings, embedder=emb, extractor=LLMExtractor(llm))
        rep = await ingest_paths(graph_db, settings, [path], hooks=[hook], embedder=emb)
        await llm.aclose()
        asked = len(stub.requests)
    # The hook's extractor ran in the drain: it asked the LLM, fell back to the offline rules
    # for each of the three sessions, and the summary after the drain says so.
    assert asked >= 3
    assert rep.hook_errors == ()
    assert rep.extraction["sessions"] == 3
    assert len(rep.extraction["fallbacks"]) == 3
    assert rep.extraction_fell_back
    assert await BacklogRepository(graph_db).status() == {
        "turns": 0,
        "extract": 0,
        "extract_turns": 0,
    }
    [podman] = await CorrectionRepository(graph_db).list_by_project("bk")
    assert "podman" in podman.rule_text


async def test_a_transcript_dated_ahead_of_the_clock_is_extracted_too(
    graph_db: GraphDB, tmp_path: Path
) -> None:
    path = _transcript(tmp_path / "t.jsonl", start=4_102_444_800)  # 2100-01-01
    settings = IngestSettings()
    emb = HashEmbedder()
    hook = ExtractionHook(settings, embedder=emb)
    rep = await ingest_paths(graph_db, settings, [path], hooks=[hook], embedder=emb)
    assert rep.extraction["sessions"] == 3
    [podman] = await CorrectionRepository(graph_db).list_by_project("bk")
    assert "podman" in podman.rule_text
