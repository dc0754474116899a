"""Record mappers: every model survives model -> row -> model; rows hold only storable values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from core.timeutil import OPEN, from_ms
from graph import records
from graph.models import (
    ApiKey,
    Community,
    CommunityRun,
    Correction,
    Edge,
    Entities,
    Fact,
    Finding,
    JobRun,
    Lesson,
    LessonVersion,
    Primer,
    Project,
    ProjectSnapshot,
    ReferenceLayer,
    RemState,
    Session,
    ToolStat,
    Topic,
    Turn,
)
from graph.rows import ExportEdge

T = datetime(2026, 11, 22, 3, 4, 5, 678000, tzinfo=UTC)
LATER = T + timedelta(days=3)
EMB = (0.25, -0.5, 1.0)
TIMES: dict[str, Any] = {"valid_from": T, "valid_to": LATER, "recorded_at": T, "expired_at": None}

SAMPLES: list[BaseModel] = [
    Project(id="remgraph", name="remgraph", description="memory", **TIMES),
    Session(
        id="ses_1", project="p", source="codex", source_file="/x.jsonl", source_key="abc",
        title="t", started_at=T, ended_at=LATER, duration_s=12.5, user_messages=1,
        assistant_messages=2, tool_messages=3, system_messages=4, tool_calls=5, tool_failures=1,
        tool_stats={"Bash": ToolStat(calls=5, failures=1)}, input_tokens=10, output_tokens=20,
        compactions=1, models=("m1", "m2"), turn_count=10, content_hash="h", summary="s",
        intent="i", outcome="o", quality=0.5, meta={"cwd": "/w", "branch": "main"}, **TIMES,
    ),
    Turn(
        id="trn_1", project="p", session_id="ses_1", ordinal=3, role="tool", speaker="bash",
        text="ok", token_estimate=1, content_hash="h", full_size=9000, truncated=True,
        tool_name="Bash", tool_ok=False, source_file="/x.jsonl", source_line=7, source_key="u1",
        parent_key="u0", is_sidechain=True, embedding=EMB, **TIMES,
    ),
    Topic(
        id="top_1", projects=("p", "q"), sessions=("s",), title="graphs", keywords=("k",),
        entities=Entities(people=("Ann",), projects=("remgraph",), technologies=("Neo4j",)),
        message_ids=("m",), first_seen=T, last_seen=LATER, message_count=2, weight=0.3,
        phase="dormant", embedding=EMB, **TIMES,
    ),
    Lesson(
        id="les_1", project="p", category="gotcha", title="t", content="c", summary="s",
        applicable_when="w", keywords=("k",), weight=2.0, quality=0.9, usage_count=1,
        helpful_count=2, harmful_count=3, effectiveness=0.4, version=2, source_turn_ids=("t",),
        embedding=EMB, **TIMES,
    ),
    LessonVersion(
        id="lev_1", project="p", lesson_id="les_1", version=2, title="t", content="c",
        summary="s", reason="r", session_id="ses_1", created_at=T, **TIMES,
    ),
    Correction(
        id="cor_1", project="p", type="tool_usage", original_behaviour="a",
        corrected_behaviour="b", rule_text="r", confidence=0.7, reinforcement=2.0,
        half_life_days=10.0, first_seen=T, last_seen=LATER, status="rule", sessions=("s",),
        confirmed=True, source_turn_ids=("t",), embedding=EMB, usage_count=1, helpful_count=1,
        harmful_count=0, **TIMES,
    ),
    Fact(
        id="fct_1", project="p", subject="we", predicate="use", object="FalkorDB",
        kind="tech_stack", statement="we use FalkorDB", confidence=0.8, source_turn_ids=("t",),
        embedding=EMB, **TIMES,
    ),
    Community(
        id="com_1", project="p", run_id="crn_1", title="t", keywords=("k",), size=2,
        member_ids=("a", "b"), summary="s", level=1, **TIMES,
    ),
    CommunityRun(
        id="crn_1", project="p", started_at=T, finished_at=LATER, status="succeeded",
        current=True, resolution=0.5, seed=42, quality=0.33, community_count=3, **TIMES,
    ),
    Primer(
        id="pri_1", project="p", period="weekly", period_key="2026-W47", text="x",
        size_bytes=1, source_ids=("a",), flagged=True, **TIMES,
    ),
    ReferenceLayer(
        id="ref_1", project="p", topic_id="top_1", title="t", text="x", token_count=1,
        source_ids=("a",), gaps=("why?",), turns_at_build=4, **TIMES,
    ),
    JobRun(
        id="job_1", project="p", job="dedupe", run_id="r1", started_at=T, finished_at=LATER,
        status="failed", attempt=2, summary={"merged": 3, "nested": {"a": [1, 2]}},
        error="boom", **TIMES,
    ),
    Finding(
        id="fnd_1", project="p", job="dedupe", run_id="r1", kind="duplicate", title="t",
        detail="d", target_ids=("a", "b"), proposed_action="merge", status="approved",
        created_at=T, **TIMES,
    ),
    RemState(
        id="rem_1", project="p", job="dedupe", last_run_at=T, last_status="succeeded",
        last_summary={"n": 1}, next_due_at=LATER, sessions_at_last_run=5, attempts=1, **TIMES,
    ),
    ApiKey(
        id="key_1", name="ci", projects=("p",), key_hash="h", created_at=T, revoked_at=LATER,
        **TIMES,
    ),
    ProjectSnapshot(
        id="snp_1", project="p", taken_at=T, hash="h", active_fact_ids=("f",), todo_ids=("t",),
        decision_ids=("d",), delta_added=("f",), delta_removed=("x",), **TIMES,
    ),
]  # fmt: skip

STORABLE = (str, int, float, bool, type(None))


def _ids(m: BaseModel) -> str:
    return type(m).__name__


def test_every_model_has_a_sample_and_mappers() -> None:
    assert {type(m) for m in SAMPLES} == set(records.TO_ROW) == set(records.FROM_RECORD)


@pytest.mark.parametrize("model", SAMPLES, ids=_ids)
def test_round_trip(model: BaseModel) -> None:
    row = records.TO_ROW[type(model)](model)
    back = records.FROM_RECORD[type(model)](row)
    has_vector = "embedding" in type(model).model_fields
    assert back == (model.model_copy(update={"embedding": None}) if has_vector else model)


@pytest.mark.parametrize("model", SAMPLES, ids=_ids)
def test_rows_hold_only_property_values(model: BaseModel) -> None:
    row = records.TO_ROW[type(model)](model)
    assert "embedding" not in row
    for key, value in row.items():
        if isinstance(value, list):
            assert all(isinstance(v, STORABLE) for v in value), key
        else:
            assert isinstance(value, STORABLE), key
    assert row["valid_from"] == 1795316645678
    assert row["valid_to"] == 1795575845678
    assert row["expired_at"] == OPEN


def test_record_with_embedding_and_unknown_or_missing_properties() -> None:
    t = next(m for m in SAMPLES if isinstance(m, Turn))
    row = records.turn_to_row(t) | {"embedding": list(EMB), "added_by_a_later_version": 1}
    del row["speaker"]
    back = records.turn_from_record(row)
    assert back == t.model_copy(update={"speaker": ""})
    assert back.embedding == EMB


def test_embedding_rows_only_for_models_with_vectors() -> None:
    t = next(m for m in SAMPLES if isinstance(m, Turn))
    bare = t.model_copy(update={"id": "trn_2", "embedding": None})
    assert records.embedding_rows([t, bare]) == [{"id": "trn_1", "embedding": list(EMB)}]


def test_json_and_flattened_properties() -> None:
    s = next(m for m in SAMPLES if isinstance(m, Session))
    row = records.session_to_row(s)
    assert row["tool_stats"] == '{"Bash":{"calls":5,"failures":1}}'
    assert row["meta"] == '{"branch":"main","cwd":"/w"}'
    topic = next(m for m in SAMPLES if isinstance(m, Topic))
    trow = records.topic_to_row(topic)
    assert (trow["entities_people"], trow["entities_technologies"]) == (["Ann"], ["Neo4j"])
    assert "entities" not in trow


def test_open_ends_and_null_optionals() -> None:
    s = Session(id="s", project="p", valid_from=T, recorded_at=T)
    row = records.session_to_row(s)
    assert (row["valid_to"], row["expired_at"], row["ended_at"]) == (OPEN, OPEN, None)
    assert records.session_from_record(row) == s
    # a record where an open end is missing entirely still reads as open
    del row["valid_to"]
    assert records.session_from_record(row).valid_to is None


def test_edge_rows() -> None:
    e = Edge(type="RELATED_TO", source_id="a", target_id="b", weight=0.5, **TIMES)
    row = records.edge_to_row(e)
    assert row == {
        "valid_from": 1795316645678, "valid_to": 1795575845678, "recorded_at": 1795316645678,
        "expired_at": OPEN, "source_id": "a", "target_id": "b", "weight": 0.5,
    }  # fmt: skip
    assert records.edge_from_record(row, "RELATED_TO") == e


def test_datetimes_are_aware_utc_milliseconds() -> None:
    plus2 = timezone(timedelta(hours=2))
    p = Project(id="x", valid_from=datetime(2026, 1, 1, 2, 0, 0, 123456, tzinfo=plus2))
    assert p.valid_from == datetime(2026, 1, 1, 0, 0, 0, 123000, tzinfo=UTC)
    assert p.valid_from.tzinfo is UTC
    with pytest.raises(ValidationError, match="timezone-aware"):
        Project(id="x", valid_from=datetime(2026, 1, 1))  # noqa: DTZ001 - the naive value under test


def test_models_are_frozen_and_strict() -> None:
    p = Project(id="x")
    with pytest.raises(ValidationError):
        p.id = "y"
    with pytest.raises(ValidationError):
        Project(id="x", colour="red")
    with pytest.raises(ValidationError):
        Lesson(id="l", project="p", quality=1.5)
    assert "embedding" not in repr(SAMPLES[2])
    assert Turn.model_fields["role"].description == "Who produced it."


def test_text_is_made_storable() -> None:
    assert records.storable_text("a\x00b") == "ab"
    assert records.storable_text("x\ud800y") == "x\ufffdy"
    assert records.storable_text("\ud83d\ude00") == "\U0001f600"  # a split pair is re-joined
    assert records.storable_text("café") == "café"
    t = Turn(id="t", project="p", session_id="s", ordinal=0, role="user", text="ok\x00\udc80",
             speaker="\x00", valid_from=T, recorded_at=T)  # fmt: skip
    row = records.turn_to_row(t)
    assert (row["text"], row["speaker"]) == ("ok\ufffd", "")
    row["text"].encode("utf-8")


def test_rem_rows_map_nulls_to_empty_values() -> None:
    from graph.records import (
        item_embedding_from_record,
        knowledge_link_from_record,
        open_fact_from_record,
        provenance_from_record,
        topic_summary_from_record,
    )
    from graph.rows import KnowledgeLink, OpenFact, Provenance, TopicSummary

    nulls = dict.fromkeys(
        ("title", "keywords", "message_count", "message_ids", "sessions", "projects"), None
    )
    assert topic_summary_from_record(
        {"id": "t", **nulls, "last_seen": None, "weight": None, "phase": None}
    ) == TopicSummary(id="t")
    assert topic_summary_from_record({"id": "t", "last_seen": 5, "sessions": ["a"]}) == (
        TopicSummary(id="t", last_seen_ms=5, sessions=("a",))
    )
    assert open_fact_from_record(
        {"id": "f", "kind": "todo", "statement": None, "valid_from": None, "turn_ids": None}
    ) == OpenFact(id="f", kind="todo")
    assert provenance_from_record({"item_id": "i", "turn_id": None, "session_id": ""}) == (
        Provenance("i")
    )
    assert knowledge_link_from_record(
        {"source_id": "a", "target_id": "b", "type": None, "weight": None}
    ) == KnowledgeLink("a", "b", "RELATED_TO", None)
    assert item_embedding_from_record({"id": "x", "embedding": None}) is None


def test_export_rows_map_to_models_and_edges() -> None:
    fact = records.export_node_from_record(
        {"kind": "fact", "props": {"id": "f", "project": "p", "kind": "decision", "valid_to": OPEN}}
    )
    assert isinstance(fact, Fact)
    assert (fact.kind, fact.valid_to) == ("decision", None)
    related = records.export_edge_from_record(
        {
            "source_id": "a",
            "type": "RELATED_TO",
            "target_id": "b",
            "props": {"weight": 0.5, "recorded_at": 1_700_000_000_000, "sessions": ["s"]},
        }
    )
    assert related == ExportEdge(
        "a", "RELATED_TO", "b", weight=0.5, recorded_at=from_ms(1_700_000_000_000)
    )
    folded = records.export_edge_from_record(
        {"source_id": "s", "type": "MENTIONS", "target_id": "t", "props": {"turns": 3}}
    )
    assert (folded.turns, folded.weight, folded.valid_from) == (3, None, None)
    closed = records.export_edge_from_record(
        {"source_id": "a", "type": "SUPERSEDES", "target_id": "b",
         "props": {"valid_from": 1_000, "valid_to": 2_000, "expired_at": OPEN}}
    )  # fmt: skip
    assert (closed.valid_to, closed.expired_at) == (from_ms(2_000), None)
