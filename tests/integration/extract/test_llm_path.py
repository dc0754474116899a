"""The LLM extractor end to end: stub endpoint → candidates → graph, with the LLM's AUDN calls."""

from __future__ import annotations

import json
from typing import Any

from ai.config import LLMSettings
from ai.embed import Embedder
from ai.llm import LLMClient
from graph.db import GraphDB
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from ingest.config import IngestSettings
from ingest.extract.llm import LLMExtractor
from ingest.extract.service import ExtractionHook, make_extractor
from tests.integration.extract.transcripts import session, store
from tests.openai_stub import chat_completion, run_stub

LINES = [
    ("user", "Set up the database layer."),
    ("assistant", "Using SQLite for now."),
    ("user", "No, use PostgreSQL instead of SQLite."),
    ("assistant", "Switched to PostgreSQL; ImportError psycopg, installed it, tests pass."),
]


class Script:
    """Pass 2 answers per session, keyed by a word of the session's first line."""

    def __init__(self) -> None:
        self.corrections: list[dict[str, Any]] = []

    def __call__(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        # a pass's instructions come last, after the transcript
        system = str(body["messages"][-1]["content"]).rsplit("</", 1)[-1]
        if "PASS 1" in system:
            out: dict[str, Any] = {
                "summary": "Database layer moved to PostgreSQL.",
                "intent": "Set up the database layer",
                "topics": [
                    {"title": "database layer", "keywords": ["postgresql"], "turns": [0, 2]}
                ],
                "outcome": "success",
                "complexity": 0.3,
            }
        elif "PASS 2" in system:
            out = {
                "decisions": [
                    {
                        "subject": "database",
                        "predicate": "uses",
                        "object": "PostgreSQL",
                        "turns": [2],
                        "confidence": 0.9,
                    }
                ],
                "corrections": self.corrections,
                "new_knowledge": [
                    {
                        "title": "psycopg is required for PostgreSQL",
                        "content": "Problem: ImportError psycopg. Fix: pip install psycopg.",
                        "applicable_when": "using PostgreSQL from Python",
                        "turns": [3],
                    }
                ],
            }
        else:
            out = {"quality": 0.75}
        return 200, chat_completion(json.dumps(out), prompt_tokens=200, completion_tokens=50)


async def test_llm_extraction_lands_in_the_graph(graph_db: GraphDB, embedder: Embedder) -> None:
    script = Script()
    rule = {
        "type": "tool_usage",
        "original_behaviour": "use SQLite",
        "corrected_behaviour": "use PostgreSQL",
        "rule_text": "Use PostgreSQL instead of SQLite.",
        "turns": [2],
    }
    with run_stub(script) as stub:
        llm = LLMClient(LLMSettings(base_url=stub.base_url, model="stub"), base_delay_s=0.01)
        hook = ExtractionHook(IngestSettings(), embedder=embedder, extractor=LLMExtractor(llm))
        corrections = CorrectionRepository(graph_db)
        # Session 1: the LLM proposes the correction without an AUDN call → ADD.
        script.corrections = [rule]
        s1 = session("demo", "one", 0, LINES)
        await store(graph_db, s1)
        await hook.run(graph_db, s1)
        [c] = await corrections.list_by_project("demo")
        assert c.reinforcement == 1
        assert c.source_turn_ids == (s1.turns[2].id,)
        # Session 2: the LLM says NOOP, so nothing is reinforced (offline rules would UPDATE).
        script.corrections = [{**rule, "action": "NOOP"}]
        s2 = session("demo", "two", 1, LINES)
        await store(graph_db, s2)
        await hook.run(graph_db, s2)
        [c2] = await corrections.list_by_project("demo")
        assert c2.reinforcement == 1
        # Session 3: the LLM decides the new wording INVALIDATEs the stored correction.
        script.corrections = [
            {**rule, "rule_text": "Use PostgreSQL 16 instead of SQLite.", "action": "INVALIDATE"}
        ]
        s3 = session("demo", "three", 2, LINES)
        await store(graph_db, s3)
        await hook.run(graph_db, s3)
        report = await hook.finish(graph_db)
        await llm.aclose()
    [live] = await corrections.list_by_project("demo")
    assert live.rule_text == "Use PostgreSQL 16 instead of SQLite."
    assert ("SUPERSEDES", live.id, c.id) in await corrections.links(live.id)
    assert report.corrections_added == 2
    assert report.corrections_noop == 1
    assert report.corrections_invalidated == 1
    facts = await FactRepository(graph_db).list_active("demo")
    assert [(f.subject, f.object) for f in facts] == [("database", "PostgreSQL")]
    [lesson] = await LessonRepository(graph_db).list_by_project("demo")
    assert await LessonRepository(graph_db).sources(lesson.id) == [
        s1.turns[3].id,
        s2.turns[3].id,
        s3.turns[3].id,
    ]
    assert report.llm_usage["calls"] == 9
    assert report.llm_usage["prompt_tokens"] == 1800


def test_make_extractor_picks_llm_only_when_enabled() -> None:
    assert make_extractor(IngestSettings()).name == "offline"
    on = IngestSettings(extract={"use_llm": True}, llm={"base_url": "http://127.0.0.1:9/v1"})
    assert make_extractor(on).name == "llm"
    no_endpoint = IngestSettings(extract={"use_llm": True})
    assert make_extractor(no_endpoint).name == "offline"


async def test_unreachable_llm_falls_back_to_offline(graph_db: GraphDB, embedder: Embedder) -> None:
    def down(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 503, {"error": {"message": "model is loading"}}

    with run_stub(down) as stub:
        llm = LLMClient(
            LLMSettings(base_url=stub.base_url, model="stub", max_retries=1), base_delay_s=0.01
        )
        hook = ExtractionHook(IngestSettings(), embedder=embedder, extractor=LLMExtractor(llm))
        s = session("demo", "down", 0, LINES)
        await store(graph_db, s)
        rep = await hook.run(graph_db, s)
        await llm.aclose()
    assert len(stub.requests) == 2  # one try plus one retry, then the fallback
    assert rep.corrections_added == 1  # the offline rules found "use PostgreSQL instead of SQLite"
    assert rep.failures == []
    assert len(rep.fallbacks) == 1
    assert "used offline rules" in rep.fallbacks[0]
    summary = hook.ingest_summary()
    assert summary["fallbacks"] == rep.fallbacks
    assert summary["llm_usage"] == {} or summary["llm_usage"]["calls"] >= 1
