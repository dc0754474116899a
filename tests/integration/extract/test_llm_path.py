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
from graph.repositories.sessions import SessionRepository
from graph.repositories.topics import TopicRepository
from ingest.config import IngestSettings
from ingest.extract.llm import LLMExtractor
from ingest.extract.service import ExtractionHook, make_extractor
from knowledge.vocabulary import vocabulary
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
    usage = summary["llm_usage"]  # the client's own ledger: the failed attempts count
    assert (usage["calls"], usage["retries"], usage["failures"]) == (0, 1, 1)


OTHER = [
    ("user", "Deploy the worker to staging."),
    ("assistant", "Running npm install first."),
    ("user", "No, use pnpm not npm."),
    ("assistant", "Switched to pnpm; the worker is deployed."),
]


def loose_script(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Replies as local models write them; the `OTHER` session's pass 2 is not JSON at all."""
    prompt = str(next(m for m in body["messages"] if m["role"] == "user")["content"])
    asked = prompt.rsplit("</", 1)[-1]
    if "PASS 1" in asked:
        out: Any = {
            "summary": "Database layer moved to PostgreSQL.",
            "intent": "Set up the database layer",
            "topics": [{"title": "database layer", "keywords": ["postgresql"], "turns": "0, 2"}],
            "outcome": "completed",
            "complexity": 7,
        }
    elif "PASS 2" in asked and "Deploy the worker" in prompt:
        return 200, chat_completion("Sure! The user wants pnpm.")
    elif "PASS 2" in asked:
        out = {
            "decisions": [
                {
                    "subject": "database",
                    "predicate": "uses",
                    "object": "PostgreSQL",
                    "kind": "architecture",
                    "turns": ["[2]", "[3]"],
                    "confidence": "high",
                },
                {"subject": "orm", "predicate": "is", "turns": [1]},
            ],
            "corrections": [
                {
                    "type": "tooling",
                    "original_behaviour": "use SQLite",
                    "corrected_behaviour": "use PostgreSQL",
                    "rule_text": "Use PostgreSQL instead of SQLite.",
                    "turns": 2,
                }
            ],
            "repeated_instructions": [{"instruction": "Use PostgreSQL instead of SQLite"}],
            "frustration_signals": [{"turn": "[2]", "quote": "No, use PostgreSQL"}],
            "tool_stats": [{"tool": "Bash", "calls": 3, "failures": 1}],
            "new_knowledge": [
                {
                    "title": "psycopg is required for PostgreSQL",
                    "content": "Problem: ImportError psycopg. Fix: pip install psycopg.",
                    "category": "fix",
                    "turns": ["turn 3"],
                }
            ],
        }
    else:
        out = {"quality": "85%", "clarity": 9, "rationale": "Clear request, one correction."}
    return 200, chat_completion(json.dumps(out), prompt_tokens=300, completion_tokens=40)


async def test_what_the_model_returns_lands_and_a_bad_session_falls_back_alone(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    good = session("demo", "good", 0, LINES)
    other = session("demo", "other", 1, OTHER)
    with run_stub(loose_script) as stub:
        llm = LLMClient(LLMSettings(base_url=stub.base_url, model="stub"), base_delay_s=0.01)
        hook = ExtractionHook(IngestSettings(), embedder=embedder, extractor=LLMExtractor(llm))
        for s in (good, other):
            await store(graph_db, s)
            await hook.run(graph_db, s)
        report = await hook.finish(graph_db)
        await llm.aclose()
    t = [x.id for x in good.turns]
    # decisions, corrections and lessons, with their provenance edges to the cited turns
    facts = FactRepository(graph_db)
    [fact] = [f for f in await facts.list_active("demo") if f.subject == "database"]
    assert (fact.predicate, fact.object, fact.kind) == ("uses", "PostgreSQL", "other")
    assert await facts.sources(fact.id) == [t[2], t[3]]
    corrections = CorrectionRepository(graph_db)
    by_rule = {c.rule_text: c for c in await corrections.list_by_project("demo")}
    llm_rule = by_rule["Use PostgreSQL instead of SQLite."]
    assert llm_rule.type == "preference"  # "tooling" is not a correction type: the default
    assert await corrections.sources(llm_rule.id) == [t[2]]
    # the session whose pass 2 was not JSON got the offline rules' correction, nothing else
    offline = [c for c in by_rule.values() if "pnpm" in c.rule_text.lower()]
    assert [await corrections.sources(c.id) for c in offline] == [[other.turns[2].id]]
    [lesson] = await LessonRepository(graph_db).list_by_project("demo")
    assert (lesson.title, lesson.category) == (
        "psycopg is required for PostgreSQL",
        "problem-solution",
    )
    assert await LessonRepository(graph_db).sources(lesson.id) == [t[3]]
    topics = TopicRepository(graph_db)
    [topic] = [x for x in await topics.list_all() if x.title == "database layer"]
    assert await topics.mentioned_by(topic.id) == [t[0], t[2]]
    # what passes 1 and 3 said is on the session
    stored = await SessionRepository(graph_db).get(good.id)
    assert (stored.summary, stored.intent, stored.outcome, stored.quality) == (
        "Database layer moved to PostgreSQL.",
        "Set up the database layer",
        "success",
        0.85,
    )
    assert {k: v for k, v in stored.meta.items() if k.startswith("llm_")} == {
        "llm_complexity": "0.70",
        "llm_clarity": "0.90",
        "llm_efficiency": "0.50",
        "llm_knowledge_value": "0.50",
        "llm_rationale": "Clear request, one correction.",
        "llm_frustration": "[2] No, use PostgreSQL",
        "llm_repeated_instructions": "Use PostgreSQL instead of SQLite",
        "llm_tool_stats": "Bash 3/1",
    }
    assert not any(
        k.startswith("llm_") for k in (await SessionRepository(graph_db).get(other.id)).meta
    )
    # the record left out is named with its session, pass and field; the fallback with its reason
    assert report.issues == [
        f"demo/{good.id}: pass 2 decisions[1] left out: object: Field required;"
        ' record {"subject": "orm", "predicate": "is", "turns": [1]}'
    ]
    assert report.fallbacks == [
        f"demo/{other.id}: LLM failed (extract.pass2: the model's reply did not validate as"
        " SessionKnowledge: not JSON (Expecting value at line 1 column 1)); used offline rules"
    ]
    assert hook.ingest_summary()["llm_usage"]["calls"] == 3 + 4  # good: 3; other: 1 + 3 (pass 2)


async def test_a_newer_value_in_a_one_value_slot_ends_the_older(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    slot = next(s for s in vocabulary().slots if s.cardinality == "one")
    first = [("user", "Keep SQLite for the database."), ("assistant", "Keeping SQLite.")]
    later = [("user", "Switch the database to PostgreSQL."), ("assistant", "Switched.")]

    def script(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        prompt = str(next(m for m in body["messages"] if m["role"] == "user")["content"])
        asked = prompt.rsplit("</", 1)[-1]
        if "PASS 1" in asked:
            return 200, chat_completion(json.dumps({"summary": "Database choice."}))
        if "PASS 2" not in asked:
            return 200, chat_completion(json.dumps({"quality": 0.7}))
        new = "Switch the database" in prompt
        decisions = [
            {  # the model words the two differently; the slot makes them one key
                "subject": "database",
                "predicate": "switched to" if new else "uses",
                "object": "PostgreSQL" if new else "SQLite",
                "statement": later[0][1] if new else first[0][1],
                "turns": [0],
                "slot": slot.name,
            },
            {  # no slot: the model's predicates, which do not end each other
                "subject": "orm",
                "predicate": "prefers" if new else "uses",
                "object": "SQLAlchemy" if new else "Peewee",
                "turns": [0],
                "slot": None,
            },
        ]
        return 200, chat_completion(json.dumps({"decisions": decisions}))

    a, b = session("demo", "first", 0, first), session("demo", "later", 1, later)
    with run_stub(script) as stub:
        llm = LLMClient(LLMSettings(base_url=stub.base_url, model="stub"), base_delay_s=0.01)
        hook = ExtractionHook(IngestSettings(), embedder=embedder, extractor=LLMExtractor(llm))
        for s in (a, b):
            await store(graph_db, s)
            await hook.run(graph_db, s)
        report = await hook.finish(graph_db)
        await llm.aclose()
    facts = FactRepository(graph_db)
    live = sorted((f.subject, f.predicate, f.object) for f in await facts.list_active("demo"))
    assert live == [
        ("database", slot.name, "PostgreSQL"),
        ("orm", "prefers", "SQLAlchemy"),
        ("orm", "uses", "Peewee"),
    ]
    [old] = [f for f in await facts.list_by_project("demo") if f.object == "SQLite"]
    assert old.valid_to == b.turns[0].timestamp  # ended when the newer value was said
    assert old.statement == "Keep SQLite for the database."
    assert report.facts_invalidated == 1
    assert report.issues == []
