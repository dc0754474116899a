"""The LLM extractor against a local OpenAI-compatible HTTP stub (the only fake allowed)."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ai.config import LLMSettings
from ai.llm import LLMClient, LLMError
from ingest.extract.config import ExtractSettings
from ingest.extract.llm import LLMExtractor, chunk_turns
from ingest.extract.models import ExtractionResult, SessionInput, TurnInput
from knowledge.vocabulary import Slot, vocabulary
from tests.openai_stub import StubOpenAI, chat_completion, run_stub

T0 = datetime(2026, 2, 1, tzinfo=UTC)


def _session(n: int = 6, words: int = 5) -> SessionInput:
    texts = [
        "Let's set up the database layer.",
        "I'll use SQLite for the database.",
        "No, use PostgreSQL instead of SQLite.",
        "Switching to PostgreSQL. Running the tests.",
        "ImportError: no module named psycopg",
        "Installed psycopg; 12 passed.",
    ]
    turns = [
        TurnInput(
            id=f"t{i}",
            ordinal=i,
            role="user" if i % 2 == 0 else "assistant",
            text=(texts[i % len(texts)] + " filler" * words),
            timestamp=T0 + timedelta(minutes=i),
        )
        for i in range(n)
    ]
    return SessionInput(id="s1", project="demo", turns=tuple(turns))


OVERVIEW = {
    "summary": "Set up the database layer on PostgreSQL.",
    "intent": "Build the database layer",
    "topics": [
        {"title": "database layer", "keywords": ["postgresql", "sqlite"], "turns": [0, 1, 2, 99]}
    ],
    "outcome": "success",
    "complexity": 0.4,
}
KNOWLEDGE = {
    "decisions": [
        {"subject": "database", "predicate": "uses", "object": "PostgreSQL", "turns": [2, 3]},
        {"subject": "ghost", "predicate": "uses", "object": "nothing", "turns": [77]},
    ],
    "corrections": [
        {
            "type": "tool_usage",
            "original_behaviour": "use SQLite",
            "corrected_behaviour": "use PostgreSQL",
            "rule_text": "Use PostgreSQL instead of SQLite.",
            "turns": [2],
            "confidence": 0.8,
        }
    ],
    "repeated_instructions": [],
    "frustration_signals": [{"turn": 2, "quote": "No"}],
    "tool_stats": [{"tool": "Bash", "calls": 2, "failures": 1}],
    "new_knowledge": [
        {
            "title": "psycopg is needed for PostgreSQL",
            "content": "Problem: ImportError psycopg. Fix: install psycopg.",
            "applicable_when": "connecting to PostgreSQL from Python",
            "turns": [4, 5],
            "has_examples": True,
        }
    ],
    "rules": [],
}
QUALITY = {"quality": 0.8, "clarity": 0.9, "efficiency": 0.7, "knowledge_value": 0.6}


def _instructions(body: dict[str, Any]) -> str:
    """The instructions of a pass: what follows the last tagged block of its user message (the
    first one: a re-ask after an invalid reply appends the reply and a second user message)."""
    first = next(m for m in body["messages"] if m["role"] == "user")
    return str(first["content"]).rsplit("</", 1)[-1]


def _handler(path: str, body: dict[str, Any], knowledge: dict[str, Any] | None = None):
    asked = _instructions(body)
    if "reduce" in asked:
        payload: dict[str, Any] = OVERVIEW
    elif "PASS 1" in asked:
        payload = OVERVIEW
    elif "PASS 2" in asked:
        payload = knowledge or KNOWLEDGE
    else:
        payload = QUALITY
    return 200, chat_completion(json.dumps(payload), prompt_tokens=1000, completion_tokens=100)


def _client(url: str) -> LLMClient:
    return LLMClient(
        LLMSettings(base_url=url, model="stub", input_cost_per_mtok=0.15, output_cost_per_mtok=0.6),
        base_delay_s=0.01,
    )


async def test_single_pass_session_maps_to_candidates_with_provenance() -> None:
    with run_stub(_handler) as stub:
        llm = _client(stub.base_url)
        ex = LLMExtractor(llm, ExtractSettings())
        r = await ex.extract(_session())
        await llm.aclose()
    assert ex.last_mode == "single"
    prompts = [str(b["messages"][-1]["content"]) for _, b in stub.requests]
    asked = [_instructions(b) for _, b in stub.requests]
    assert [a.split("PASS ")[1][0] for a in asked] == ["1", "2", "3"]
    assert all(b["temperature"] <= 0.2 for _, b in stub.requests)
    # one system line, then one user message: the transcript first, every turn in order with
    # its UTC time, the instructions last
    assert [[m["role"] for m in b["messages"]] for _, b in stub.requests] == [
        ["system", "user"]
    ] * 3
    transcript = prompts[0].split("<transcript>\n", 1)[1].split("\n</transcript>", 1)[0]
    assert [line.split(" filler")[0] for line in transcript.splitlines()] == [
        "[0] 2026-02-01 00:00 user: Let's set up the database layer.",
        "[1] 2026-02-01 00:01 assistant: I'll use SQLite for the database.",
        "[2] 2026-02-01 00:02 user: No, use PostgreSQL instead of SQLite.",
        "[3] 2026-02-01 00:03 assistant: Switching to PostgreSQL. Running the tests.",
        "[4] 2026-02-01 00:04 user: ImportError: no module named psycopg",
        "[5] 2026-02-01 00:05 assistant: Installed psycopg; 12 passed.",
    ]
    assert prompts[0].startswith("<transcript>")
    assert prompts[0].index("</transcript>") < prompts[0].index("PASS 1")
    # pass 2 sees the same transcript, then pass 1's overview (as the model returned it), then
    # its instructions
    assert prompts[1].startswith(f"<transcript>\n{transcript}\n</transcript>")
    seen = json.loads(prompts[1].split("<overview>\n", 1)[1].split("\n</overview>", 1)[0])
    assert seen == OVERVIEW
    assert prompts[1].index("</transcript>") < prompts[1].index("<overview>")
    assert prompts[1].index("</overview>") < prompts[1].index("PASS 2")
    # pass 3 reads what passes 1-2 returned
    session = json.loads(prompts[2].split("<session>\n", 1)[1].split("\n</session>", 1)[0])
    assert session["overview"]["summary"] == OVERVIEW["summary"]
    assert session["knowledge"]["new_knowledge"][0]["title"] == "psycopg is needed for PostgreSQL"
    [topic] = r.topics
    assert topic.turn_ids == ("t0", "t1", "t2")  # ordinal 99 does not exist: dropped
    [fact] = r.facts  # the "ghost" decision cites no real turn: dropped
    assert (fact.subject, fact.object, fact.turn_ids) == ("database", "PostgreSQL", ("t2", "t3"))
    assert fact.valid_from == T0 + timedelta(minutes=2)
    [corr] = r.corrections
    assert corr.rule_text == "Use PostgreSQL instead of SQLite."
    assert corr.type == "tool_usage"
    assert corr.turn_ids == ("t2",)
    [lesson] = r.lessons
    assert lesson.turn_ids == ("t4", "t5")
    assert r.enrichment.quality == 0.8
    assert r.enrichment.outcome == "success"
    assert r.enrichment.frustration_signals == 1
    assert r.enrichment.tool_stats == {"Bash": {"calls": 2, "failures": 1}}
    # what passes 2-3 return beyond the candidates is kept
    assert r.enrichment.meta == {
        "llm_complexity": "0.40",
        "llm_clarity": "0.90",
        "llm_efficiency": "0.70",
        "llm_knowledge_value": "0.60",
        "llm_frustration": "[2] No",
        "llm_tool_stats": "Bash 2/1",
    }
    # every ordinal that does not exist is named, with the item that cites it
    assert r.issues == (
        "pass 1 topic 'database layer': cites turns [99] not in the session; kept [0, 1, 2]",
        "pass 2 decision 'ghost uses nothing' left out: cites turns [77], none in the session"
        " (ordinals 0–5) and no turn says it",
    )
    usage = llm.ledger.as_dict()
    assert usage["calls"] == 3
    assert usage["prompt_tokens"] == 3000
    assert usage["cost_usd"] == round(3000 * 0.15 / 1e6 + 300 * 0.6 / 1e6, 6)
    assert r.llm_usage["mode"] == "single"


async def test_long_session_is_chunked_and_merged() -> None:
    settings = ExtractSettings(llm_whole_session_tokens=1000, llm_chunk_tokens=500)
    session = _session(n=24, words=60)  # ~24 × 90 tokens ≈ 2,200 tokens
    with run_stub(_handler) as stub:
        llm = _client(stub.base_url)
        ex = LLMExtractor(llm, settings)
        r = await ex.extract(session)
        await llm.aclose()
    assert ex.last_mode == "chunked"
    chunks = chunk_turns(session.turns, 500, 0.15)
    assert len(chunks) >= 4
    purposes = llm.ledger.by_purpose
    assert purposes["extract.pass1"].calls == len(chunks)
    assert purposes["extract.pass2"].calls == len(chunks)
    assert purposes["extract.reduce"].calls >= 1
    assert purposes["extract.pass3"].calls == 1
    # Every chunk reported the same items: merged once, with confidence raised by support.
    assert len(r.facts) == 1
    assert len(r.corrections) == 1
    assert r.corrections[0].confidence > 0.8
    assert len(stub.requests) == llm.ledger.calls


async def test_retries_on_429_and_500_during_extraction() -> None:
    with run_stub(_handler) as stub:
        stub.reply(429, {"error": {"message": "slow down"}})
        stub.reply(500, {"error": {"message": "oops"}})
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm).extract(_session())
        await llm.aclose()
    assert llm.ledger.retries == 2
    assert llm.ledger.calls == 3
    assert r.facts


async def test_json_mode_fallback_when_schema_unsupported() -> None:
    with run_stub(_handler) as stub:
        stub.reply(400, {"error": {"message": "json_schema not supported by this server"}})
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm).extract(_session())
        await llm.aclose()
    assert r.corrections
    kinds = [b["response_format"]["type"] for _, b in stub.requests]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object"]


def test_chunk_turns_overlap_on_boundaries() -> None:
    s = _session(n=30, words=40)
    chunks = chunk_turns(s.turns, 300, 0.15)
    assert chunks[0][0].ordinal == 0
    assert chunks[-1][-1].ordinal == 29
    covered = {t.ordinal for c in chunks for t in c}
    assert covered == set(range(30))
    for a, b in itertools.pairwise(chunks):
        shared = {t.ordinal for t in a} & {t.ordinal for t in b}
        assert shared, "consecutive chunks overlap"
        assert b[0].ordinal > a[0].ordinal
    assert chunk_turns([], 100, 0.15) == []


async def test_items_citing_wrong_turns_are_tied_to_the_turn_that_says_them() -> None:
    knowledge = {
        **KNOWLEDGE,
        "decisions": [],
        "corrections": [],
        "repeated_instructions": ["Use PostgreSQL instead of SQLite"],
        "new_knowledge": [
            {
                "title": "Install psycopg before running the tests",
                "content": "ImportError: no module named psycopg; installed psycopg.",
                "turns": [42],
            }
        ],
    }
    with run_stub(lambda path, body: _handler(path, body, knowledge)) as stub:
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm).extract(_session())
        await llm.aclose()
    [lesson] = r.lessons
    assert lesson.turn_ids in {("t4",), ("t5",)}
    [rule] = r.corrections  # a repeated instruction is a standing rule, tied to the user's turn
    assert (rule.rule_text, rule.turn_ids) == ("Use PostgreSQL instead of SQLite", ("t2",))
    assert r.enrichment.meta["llm_repeated_instructions"] == "Use PostgreSQL instead of SQLite"


# What models answer instead of the schema's exact shape (seen from local models behind
# OpenAI-compatible servers): one such record used to reject the whole pass.
LOOSE_OVERVIEW = {**OVERVIEW, "outcome": "failure", "complexity": 7}
LOOSE_KNOWLEDGE = {
    "decisions": [
        {
            "subject": "database",
            "predicate": "uses",
            "object": "PostgreSQL",
            "kind": "architecture",
            "turns": ["[2]", "t3"],
            "confidence": "high",
        },
        {"subject": "orm", "predicate": "is", "turns": [3]},
    ],
    "corrections": [
        {"type": "workflow", "rule_text": "Use PostgreSQL instead of SQLite.", "turns": 2}
    ],
    "repeated_instructions": [{"instruction": "use PostgreSQL instead of SQLite", "turns": [2]}],
    "frustration_signals": [{"turn": "[2]", "quote": "No"}],
    "tool_stats": [{"tool": "Bash", "calls": "many"}],
    "new_knowledge": [
        {
            "title": "psycopg is needed for PostgreSQL",
            "content": "Problem: ImportError psycopg. Fix: install psycopg.",
            "category": "lesson",
            "turns": "4-5",
        }
    ],
}


async def test_loose_records_are_kept_and_bad_ones_named() -> None:
    def handler(path: str, body: dict[str, Any]):
        asked = _instructions(body)
        payload = (
            LOOSE_OVERVIEW
            if "PASS 1" in asked
            else LOOSE_KNOWLEDGE
            if "PASS 2" in asked
            else {"quality": "85%"}
        )
        return 200, chat_completion(json.dumps(payload))

    with run_stub(handler) as stub:
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm).extract(_session())
        await llm.aclose()
    assert len(stub.requests) == 3  # nothing re-asked: the reply was usable
    assert llm.ledger.fallbacks == 0
    assert (r.enrichment.outcome, r.enrichment.complexity, r.enrichment.quality) == (
        "failed",
        0.7,
        0.85,
    )
    [fact] = r.facts
    assert (fact.kind, fact.turn_ids, fact.confidence) == ("other", ("t2", "t3"), 0.8)
    [corr] = r.corrections  # the repeated instruction is the same rule: not a second one
    assert (corr.type, corr.turn_ids) == ("preference", ("t2",))
    [lesson] = r.lessons
    assert (lesson.category, lesson.turn_ids) == ("problem-solution", ("t4", "t5"))
    assert r.enrichment.frustration_signals == 1
    assert r.enrichment.meta["llm_repeated_instructions"] == "use PostgreSQL instead of SQLite"
    assert r.issues == (
        "pass 2 decisions[1] left out: object: Field required;"
        ' record {"subject": "orm", "predicate": "is", "turns": [3]}',
        "pass 2 tool_stats[0] left out: calls: Input should be a valid integer, unable to parse"
        ' string as an integer (got "many"); record {"tool": "Bash", "calls": "many"}',
        "pass 1 topic 'database layer': cites turns [99] not in the session; kept [0, 1, 2]",
    )


async def test_a_reply_that_is_not_json_fails_the_pass_with_its_name() -> None:
    def handler(path: str, body: dict[str, Any]):
        if "PASS 2" in _instructions(body):
            return 200, chat_completion("Sure! Here are the decisions: database = PostgreSQL")
        return _handler(path, body)

    with run_stub(handler) as stub:
        llm = _client(stub.base_url)
        with pytest.raises(LLMError) as e:
            await LLMExtractor(llm).extract(_session())
        await llm.aclose()
    assert str(e.value) == (
        "extract.pass2: the model's reply did not validate as SessionKnowledge:"
        " not JSON (Expecting value at line 1 column 1)"
    )
    # json_schema once, then JSON mode with one re-ask
    assert [b["response_format"]["type"] for _, b in stub.requests[1:]] == [
        "json_schema",
        "json_object",
        "json_object",
    ]


async def test_a_failed_pass_3_keeps_passes_1_and_2() -> None:
    def handler(path: str, body: dict[str, Any]):
        asked = _instructions(body)
        if "PASS 3" in asked:
            return 200, chat_completion(json.dumps({"clarity": 0.9}))  # no `quality`
        return _handler(path, body)

    with run_stub(handler) as stub:
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm).extract(_session())
        await llm.aclose()
    assert r.facts
    assert r.corrections
    assert r.enrichment.quality is None
    assert "llm_clarity" not in r.enrichment.meta
    assert (
        "pass 3 failed, quality left unset: extract.pass3: the model's reply did not validate"
        " as SessionQuality: quality: Field required"
    ) in r.issues


async def test_a_record_left_out_of_a_chunk_names_the_chunk() -> None:
    settings = ExtractSettings(llm_whole_session_tokens=1000, llm_chunk_tokens=500)
    session = _session(n=24, words=60)
    with run_stub(lambda path, body: _handler(path, body, LOOSE_KNOWLEDGE)) as stub:
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm, settings).extract(session)
        await llm.aclose()
    n = len(chunk_turns(session.turns, 500, 0.15))
    left_out = [i.split(" left out")[0] for i in r.issues if "decisions[1]" in i]
    assert left_out == [f"pass 2 (chunk {k}/{n}) decisions[1]" for k in range(1, n + 1)]
    [fact] = r.facts  # the good decision of every chunk, merged once
    assert fact.object == "PostgreSQL"


# --- the declared vocabulary in pass 2 ----------------------------------------------------------


def _slot(cardinality: str) -> Slot:
    """The vocabulary's first slot of `cardinality` (read from the file, never hard-coded)."""
    return next(s for s in vocabulary().slots if s.cardinality == cardinality)


async def _extract_with(
    knowledge: dict[str, Any], settings: ExtractSettings | None = None
) -> tuple[ExtractionResult, StubOpenAI]:
    """Extract `_session()` (a long one with `settings`) with `knowledge` as pass 2's answer."""
    with run_stub(lambda path, body: _handler(path, body, knowledge)) as stub:
        llm = _client(stub.base_url)
        r = await LLMExtractor(llm, settings).extract(
            _session(n=24, words=60) if settings else _session()
        )
        await llm.aclose()
    return r, stub


async def test_pass_2_carries_every_slot_of_the_vocabulary_one_line_each() -> None:
    _, stub = await _extract_with(KNOWLEDGE)
    [p2] = [
        str(b["messages"][-1]["content"]) for _, b in stub.requests if "PASS 2" in _instructions(b)
    ]
    block = p2.split("<vocabulary>\n", 1)[1].split("\n</vocabulary>", 1)[0]
    slots = vocabulary().slots
    lines = block.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == [s.name for s in slots]
    for s, line in zip(slots, lines, strict=True):
        assert line.startswith(f"{s.name} ({s.scope}, {s.cardinality})")
        assert all(json.dumps(e, ensure_ascii=False) in line for e in s.examples[:2])
    # material first (transcript, overview, vocabulary), the instructions last
    assert p2.index("</overview>") < p2.index("<vocabulary>") < p2.index("PASS 2")
    asked = " ".join(p2.rsplit("</", 1)[-1].split())
    for ask in (
        "slot it fills",
        "null when none fits",
        "the people they mention",
        "relatives",
        "versions",
        "schedules and dates",
        "contact details",
        "pets",
        "test command",
        "package manager",
        "the user's own complete sentence",
        "never a rewrite",
    ):
        assert ask in asked, ask
    # pass 1 and pass 3 are not about slots
    assert sum("<vocabulary>" in str(b["messages"][-1]["content"]) for _, b in stub.requests) == 1


async def test_every_chunk_of_a_long_session_gets_the_vocabulary() -> None:
    settings = ExtractSettings(llm_whole_session_tokens=1000, llm_chunk_tokens=500)
    _, stub = await _extract_with(KNOWLEDGE, settings)
    pass2 = [
        str(b["messages"][-1]["content"]) for _, b in stub.requests if "PASS 2" in _instructions(b)
    ]
    assert len(pass2) > 1
    assert all(all(s.name in p for s in vocabulary().slots) for p in pass2)


async def test_a_decision_in_a_one_value_slot_takes_the_slot_as_its_predicate() -> None:
    one, many = _slot("one"), _slot("many")
    knowledge = {
        **KNOWLEDGE,
        "decisions": [
            # the model's spelling of the name is read leniently
            {
                "subject": "database",
                "predicate": "uses",
                "object": "PostgreSQL",
                "turns": [2, 3],
                "slot": one.name.replace("_", " ").title(),
            },
            {
                "subject": "database",
                "predicate": "runs on",
                "object": "Fly.io",
                "turns": [3],
                "slot": many.name,
            },
            {
                "subject": "database",
                "predicate": "uses",
                "object": "SQLite",
                "turns": [1],
                "slot": None,
            },
        ],
    }
    r, _ = await _extract_with(knowledge)
    assert [(f.predicate, f.object, f.statement) for f in r.facts] == [
        (one.name, "PostgreSQL", "database uses PostgreSQL"),  # the model's words stay its text
        ("runs on", "Fly.io", "database runs on Fly.io"),  # many values: the model's predicate
        ("uses", "SQLite", "database uses SQLite"),
    ]
    assert [f.kind for f in r.facts] == ["decision"] * 3  # kinds are the model's, as before
    assert not [i for i in r.issues if "slot" in i]


async def test_a_slot_not_in_the_vocabulary_is_named_and_ignored() -> None:
    names = {s.name for s in vocabulary().slots}
    bogus = next(f"no_such_slot_{i}" for i in itertools.count() if f"no_such_slot_{i}" not in names)
    knowledge = {
        **KNOWLEDGE,
        "decisions": [
            {
                "subject": "database",
                "predicate": "uses",
                "object": "PostgreSQL",
                "turns": [2, 3],
                "slot": bogus,
            },
        ],
        "corrections": [{**KNOWLEDGE["corrections"][0], "slot": bogus}],
        "rules": [
            {"text": "Let's set up the database layer.", "slot": bogus},
            "Never push to main.",
        ],
    }
    r, _ = await _extract_with(knowledge)
    [fact] = r.facts  # kept, with the model's own predicate
    assert (fact.predicate, fact.object) == ("uses", "PostgreSQL")
    assert [c.rule_text for c in r.corrections] == [
        "Use PostgreSQL instead of SQLite.",
        "Let's set up the database layer.",  # a rule with an unknown slot is kept too
    ]
    assert [i for i in r.issues if "slot" in i] == [
        f"pass 2 correction 'Use PostgreSQL instead of SQLite.': slot '{bogus}' is not in the"
        " vocabulary; slot ignored",
        f"pass 2 rule 'Let's set up the database layer.': slot '{bogus}' is not in the vocabulary;"
        " slot ignored",
        f"pass 2 decision 'database uses PostgreSQL': slot '{bogus}' is not in the vocabulary;"
        " slot ignored",
    ]
