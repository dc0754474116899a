"""Record mappers: domain model ⇄ stored properties. The only module that knows property names.

Storage rules (both engines):

- every time is UTC epoch milliseconds (`int`); an open `valid_to` / `expired_at` is stored as
  `core.timeutil.OPEN`, never null, so as-of filters stay plain range comparisons; other optional
  times (`ended_at`, `revoked_at`, ...) are stored as null (the property is absent);
- tuples become lists; dicts and nested models become JSON strings (properties cannot be maps);
  `Topic.entities` is flattened into three list properties so Cypher can filter on them;
- embeddings are never part of the main row: `<noun>_to_row` leaves them out and
  `embedding_rows(models)` builds the `{id, embedding}` rows the dialect-specific
  `<aggregate>.set_embeddings` queries write (FalkorDB needs `vecf32(...)`).

`<noun>_from_record(r)` takes the node's property map (queries return `n {.*, embedding: null}` or
`properties(n)`), ignores properties the model does not know (forward compatibility) and lets a
missing property take the model's default.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from core.timeutil import OPEN, end_from_ms, end_to_ms, from_ms, to_ms
from graph.models import (
    ApiKey,
    Community,
    CommunityRun,
    Correction,
    Edge,
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
    Topic,
    TopicBrief,
    Turn,
)
from graph.rows import (
    CorrectionDecay,
    CorrectionRecord,
    CorrectionStatusChange,
    ExampleTurn,
    ExportEdge,
    ExportNode,
    ItemEmbedding,
    KnowledgeLink,
    KnowledgeNode,
    LessonRecord,
    OpenFact,
    Provenance,
    RemActionRecord,
    RollupSource,
    SessionTurn,
    TopicLink,
    TopicSummary,
)

__all__ = [
    "OPEN",
    "api_key_from_record",
    "api_key_to_row",
    "community_from_record",
    "community_run_from_record",
    "community_run_to_row",
    "community_to_row",
    "correction_decay_to_props",
    "correction_from_record",
    "correction_record_from_record",
    "correction_status_to_props",
    "correction_to_row",
    "edge_from_record",
    "edge_to_row",
    "embedding_rows",
    "example_turn_from_record",
    "export_edge_from_record",
    "export_node_from_record",
    "fact_from_record",
    "fact_to_row",
    "finding_from_record",
    "finding_to_row",
    "item_embedding_from_record",
    "job_run_from_record",
    "job_run_to_row",
    "knowledge_link_from_record",
    "knowledge_node_from_record",
    "lesson_from_record",
    "lesson_record_from_record",
    "lesson_to_row",
    "lesson_version_from_record",
    "lesson_version_to_row",
    "open_fact_from_record",
    "primer_from_record",
    "primer_to_row",
    "project_from_record",
    "project_snapshot_from_record",
    "project_snapshot_to_row",
    "project_to_row",
    "provenance_from_record",
    "reference_layer_from_record",
    "reference_layer_to_row",
    "rem_action_from_record",
    "rem_action_to_row",
    "rem_state_from_record",
    "rem_state_to_row",
    "rollup_source_from_record",
    "session_from_record",
    "session_to_row",
    "session_turn_from_record",
    "storable_text",
    "topic_brief_from_record",
    "topic_brief_to_row",
    "topic_from_record",
    "topic_link_from_record",
    "topic_summary_from_record",
    "topic_to_row",
    "turn_from_record",
    "turn_to_row",
]

M = TypeVar("M", bound=BaseModel)
Row = dict[str, Any]
Kind = Literal["time", "end", "tuple", "json", "embedding", "plain"]

_ENDS = frozenset({"valid_to", "expired_at"})
"""Interval ends: stored as `OPEN` when None."""


def _kind(name: str, annotation: Any) -> Kind:
    """Storage kind of one model field, from its name and type annotation."""
    if name == "embedding":
        return "embedding"
    if name in _ENDS:
        return "end"
    ann = annotation
    origin = typing.get_origin(ann)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        ann = args[0] if len(args) == 1 else ann
        origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        ann = typing.get_args(ann)[0]
        origin = typing.get_origin(ann)
    if ann is datetime:
        return "time"
    if origin is tuple:
        return "tuple"
    if origin is dict or (isinstance(ann, type) and issubclass(ann, BaseModel)):
        return "json"
    return "plain"


@dataclass(frozen=True)
class _Layout:
    """How each field of one model class is stored."""

    fields: tuple[tuple[str, Kind], ...]
    names: frozenset[str]


@cache
def _layout(cls: type[BaseModel]) -> _Layout:
    fields = tuple((n, _kind(n, f.annotation)) for n, f in cls.model_fields.items())
    return _Layout(fields, frozenset(n for n, _ in fields))


def storable_text(s: str) -> str:
    """`s` as both engines can store it: lone surrogates become U+FFFD, NUL characters are dropped.

    Transcripts carry both (broken JSON escapes, binary tool output); a lone surrogate cannot be
    encoded as UTF-8 at all and FalkorDB's parser ends a query at a NUL, so either would fail the
    whole batch.
    """
    if "\x00" in s:
        s = s.replace("\x00", "")
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        # utf-16 with surrogatepass re-pairs split surrogate pairs; what is left is replaced
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return s


def _to_row(m: BaseModel, skip: frozenset[str] = frozenset()) -> Row:
    row: Row = {}
    for name, kind in _layout(type(m)).fields:
        if kind == "embedding" or name in skip:
            continue
        v = getattr(m, name)
        if kind == "end":
            row[name] = end_to_ms(v)
        elif kind == "time":
            row[name] = None if v is None else to_ms(v)
        elif kind == "tuple":
            row[name] = [storable_text(x) if isinstance(x, str) else x for x in v]
        elif kind == "json":
            dumped = v.model_dump(mode="json") if isinstance(v, BaseModel) else _jsonable(v)
            row[name] = json.dumps(dumped, sort_keys=True, separators=(",", ":"))
        else:
            row[name] = storable_text(v) if isinstance(v, str) else v
    return row


def _jsonable(v: Any) -> Any:
    if isinstance(v, BaseModel):
        return v.model_dump(mode="json")
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, datetime):
        return v.isoformat()
    return v


def _from_record(cls: type[M], r: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> M:
    layout = _layout(cls)
    data: dict[str, Any] = {}
    for name, kind in layout.fields:
        if name not in r:
            continue
        v = r[name]
        if kind == "end":
            data[name] = end_from_ms(v)
        elif v is None:
            if kind == "tuple":
                continue  # a null list property: let the default (empty tuple) apply
            data[name] = None
        elif kind == "time":
            data[name] = from_ms(int(v))
        elif kind == "json":
            data[name] = json.loads(v) if isinstance(v, str) else v
        elif kind == "embedding":
            data[name] = tuple(float(x) for x in v)
        else:
            data[name] = v
    if extra:
        data.update(extra)
    return cls.model_validate(data)


def embedding_rows(models: Iterable[Any]) -> list[Row]:
    """`{id, embedding}` rows for the models that carry an embedding (for `*.set_embeddings`)."""
    return [{"id": m.id, "embedding": list(m.embedding)} for m in models if m.embedding is not None]


# --- one pair per model -------------------------------------------------------------------------


def project_to_row(m: Project) -> Row:
    """Properties of a `Project` node; `project` repeats the id so every node filters alike."""
    row = _to_row(m)
    row["project"] = m.id
    return row


def project_from_record(r: Mapping[str, Any]) -> Project:
    """`Project` from its node properties."""
    return _from_record(Project, r)


def session_to_row(m: Session) -> Row:
    """Properties of a `Session` node (`tool_stats` and `meta` as JSON strings)."""
    return _to_row(m)


def session_from_record(r: Mapping[str, Any]) -> Session:
    """`Session` from its node properties."""
    return _from_record(Session, r)


def turn_to_row(m: Turn) -> Row:
    """Properties of a `Turn` node, without the embedding."""
    return _to_row(m)


def turn_from_record(r: Mapping[str, Any]) -> Turn:
    """`Turn` from its node properties (the embedding when the record holds one)."""
    return _from_record(Turn, r)


_ENTITY_PROPS = {
    "people": "entities_people",
    "projects": "entities_projects",
    "technologies": "entities_technologies",
}


def topic_to_row(m: Topic) -> Row:
    """Properties of a `Topic` node; `entities` is flattened into `entities_<kind>` lists."""
    row = _to_row(m, skip=frozenset({"entities"}))
    for attr, prop in _ENTITY_PROPS.items():
        row[prop] = list(getattr(m.entities, attr))
    return row


def topic_from_record(r: Mapping[str, Any]) -> Topic:
    """`Topic` from its node properties."""
    entities = {attr: tuple(r.get(prop) or ()) for attr, prop in _ENTITY_PROPS.items()}
    return _from_record(Topic, r, extra={"entities": entities})


def lesson_to_row(m: Lesson) -> Row:
    """Properties of a `Lesson` node, without the embedding."""
    return _to_row(m)


def lesson_from_record(r: Mapping[str, Any]) -> Lesson:
    """`Lesson` from its node properties."""
    return _from_record(Lesson, r)


def lesson_version_to_row(m: LessonVersion) -> Row:
    """Properties of a `LessonVersion` node."""
    return _to_row(m)


def lesson_version_from_record(r: Mapping[str, Any]) -> LessonVersion:
    """`LessonVersion` from its node properties."""
    return _from_record(LessonVersion, r)


def correction_to_row(m: Correction) -> Row:
    """Properties of a `Correction` node, without the embedding."""
    return _to_row(m)


def correction_from_record(r: Mapping[str, Any]) -> Correction:
    """`Correction` from its node properties."""
    return _from_record(Correction, r)


def fact_to_row(m: Fact) -> Row:
    """Properties of a `Fact` node, without the embedding."""
    return _to_row(m)


def fact_from_record(r: Mapping[str, Any]) -> Fact:
    """`Fact` from its node properties."""
    return _from_record(Fact, r)


def community_to_row(m: Community) -> Row:
    """Properties of a `Community` node."""
    return _to_row(m)


def community_from_record(r: Mapping[str, Any]) -> Community:
    """`Community` from its node properties."""
    return _from_record(Community, r)


def community_run_to_row(m: CommunityRun) -> Row:
    """Properties of a `CommunityRun` node."""
    return _to_row(m)


def community_run_from_record(r: Mapping[str, Any]) -> CommunityRun:
    """`CommunityRun` from its node properties."""
    return _from_record(CommunityRun, r)


def primer_to_row(m: Primer) -> Row:
    """Properties of a `Primer` node."""
    return _to_row(m)


def primer_from_record(r: Mapping[str, Any]) -> Primer:
    """`Primer` from its node properties."""
    return _from_record(Primer, r)


def reference_layer_to_row(m: ReferenceLayer) -> Row:
    """Properties of a `ReferenceLayer` node."""
    return _to_row(m)


def reference_layer_from_record(r: Mapping[str, Any]) -> ReferenceLayer:
    """`ReferenceLayer` from its node properties."""
    return _from_record(ReferenceLayer, r)


def topic_brief_to_row(m: TopicBrief) -> Row:
    """Properties of a `TopicBrief` node."""
    return _to_row(m)


def topic_brief_from_record(r: Mapping[str, Any]) -> TopicBrief:
    """`TopicBrief` from its node properties."""
    return _from_record(TopicBrief, r)


def job_run_to_row(m: JobRun) -> Row:
    """Properties of a `JobRun` node (`summary` as a JSON string)."""
    return _to_row(m)


def job_run_from_record(r: Mapping[str, Any]) -> JobRun:
    """`JobRun` from its node properties."""
    return _from_record(JobRun, r)


def finding_to_row(m: Finding) -> Row:
    """Properties of a `Finding` node."""
    return _to_row(m)


def finding_from_record(r: Mapping[str, Any]) -> Finding:
    """`Finding` from its node properties."""
    return _from_record(Finding, r)


def rem_state_to_row(m: RemState) -> Row:
    """Properties of a `RemState` node (`last_summary` as a JSON string)."""
    return _to_row(m)


def rem_state_from_record(r: Mapping[str, Any]) -> RemState:
    """`RemState` from its node properties."""
    return _from_record(RemState, r)


def api_key_to_row(m: ApiKey) -> Row:
    """Properties of an `ApiKey` node."""
    return _to_row(m)


def api_key_from_record(r: Mapping[str, Any]) -> ApiKey:
    """`ApiKey` from its node properties."""
    return _from_record(ApiKey, r)


def project_snapshot_to_row(m: ProjectSnapshot) -> Row:
    """Properties of a `ProjectSnapshot` node."""
    return _to_row(m)


def project_snapshot_from_record(r: Mapping[str, Any]) -> ProjectSnapshot:
    """`ProjectSnapshot` from its node properties."""
    return _from_record(ProjectSnapshot, r)


def edge_to_row(m: Edge) -> Row:
    """A relationship write row: `source_id`, `target_id`, `weight` and the four times.

    `type` is not part of the row: a relationship type cannot be a parameter, so each type has
    its own query file.
    """
    return _to_row(m, skip=frozenset({"type"}))


def edge_from_record(r: Mapping[str, Any], rel_type: str) -> Edge:
    """`Edge` of type `rel_type` from a record with `source_id`, `target_id` and the times."""
    return _from_record(Edge, r, extra={"type": rel_type})


# --- read rows and computed updates of the REM cycle (`graph.rows`) ----------------------------


def _str(v: Any) -> str:
    return "" if v is None else str(v)


def _strs(v: Any) -> tuple[str, ...]:
    return tuple(v or ())


def _ms(v: Any) -> int | None:
    """An epoch-ms time, None when absent (0 counts as absent: no event happens at the epoch)."""
    return int(v) if v else None


def lesson_record_from_record(r: Mapping[str, Any]) -> LessonRecord:
    """`LessonRecord` from a `rem.lessons_for_review` row (`node`, `last_refined_at`)."""
    return LessonRecord(lesson_from_record(r["node"]), _ms(r.get("last_refined_at")))


def correction_record_from_record(r: Mapping[str, Any]) -> CorrectionRecord:
    """`CorrectionRecord` from a `rem.corrections_for_review` row (`node`, `contradictions`)."""
    node = r["node"]
    return CorrectionRecord(
        correction_from_record(node),
        tuple((str(c["id"]), c.get("last_seen")) for c in r.get("contradictions") or ()),
        _strs(node.get("demoted_for")),
    )


def correction_decay_to_props(u: CorrectionDecay) -> Row:
    """The properties the `staleness` job sets on a correction."""
    return {
        "effective_weight": u.effective_weight,
        "decayed_confidence": u.decayed_confidence,
        "decayed_at": u.decayed_at_ms,
    }


def correction_status_to_props(u: CorrectionStatusChange) -> Row:
    """The properties a graduation (or, with `demoted_for`, a demotion) sets on a correction."""
    props: Row = {"status": u.status}
    if u.demoted_for is not None:
        props["demoted_for"] = list(u.demoted_for)
    props["status_changed_at"] = u.changed_at_ms
    return props


def topic_summary_from_record(r: Mapping[str, Any]) -> TopicSummary:
    """`TopicSummary` from a `rem.topics_for_weights` row."""
    return TopicSummary(
        id=str(r["id"]),
        title=_str(r.get("title")),
        keywords=_strs(r.get("keywords")),
        message_count=int(r.get("message_count") or 0),
        message_ids=_strs(r.get("message_ids")),
        sessions=_strs(r.get("sessions")),
        projects=_strs(r.get("projects")),
        last_seen_ms=_ms(r.get("last_seen")),
        weight=float(r.get("weight") or 0.0),
        phase=_str(r.get("phase")) or "active",
    )


def topic_link_from_record(r: Mapping[str, Any]) -> TopicLink:
    """`TopicLink` from a `rem.topic_links` row."""
    return TopicLink(str(r["source_id"]), str(r["target_id"]), float(r.get("weight") or 0.0))


def open_fact_from_record(r: Mapping[str, Any]) -> OpenFact:
    """`OpenFact` from a `rem.open_facts` row."""
    return OpenFact(
        id=str(r["id"]),
        kind=_str(r.get("kind")),
        statement=_str(r.get("statement")),
        subject=_str(r.get("subject")),
        object=_str(r.get("object")),
        valid_from_ms=int(r.get("valid_from") or 0),
        turn_ids=_strs(r.get("turn_ids")),
    )


def knowledge_node_from_record(r: Mapping[str, Any]) -> KnowledgeNode:
    """`KnowledgeNode` from a `community.project_nodes` row."""
    return KnowledgeNode(
        id=str(r["id"]),
        kind=str(r["kind"]),
        title=_str(r.get("title")),
        text=_str(r.get("text")),
        keywords=_strs(r.get("keywords")),
        weight=float(r.get("weight") or 0.0),
        turn_ids=_strs(r.get("turn_ids")),
        session_ids=_strs(r.get("session_ids")),
        subkind=_str(r.get("subkind")),
    )


def provenance_from_record(r: Mapping[str, Any]) -> Provenance:
    """`Provenance` from a `community.project_provenance` row (empty ids become None)."""
    return Provenance(
        str(r["item_id"]), _str(r.get("turn_id")) or None, _str(r.get("session_id")) or None
    )


def knowledge_link_from_record(r: Mapping[str, Any]) -> KnowledgeLink:
    """`KnowledgeLink` from a `community.project_links` row."""
    w = r.get("weight")
    return KnowledgeLink(
        str(r["source_id"]),
        str(r["target_id"]),
        _str(r.get("type")) or "RELATED_TO",
        None if w is None else float(w),
    )


def item_embedding_from_record(r: Mapping[str, Any]) -> ItemEmbedding | None:
    """`ItemEmbedding` from a `community.project_embeddings` row; None when it has no vector."""
    v = r.get("embedding")
    return ItemEmbedding(str(r["id"]), v) if v else None


def example_turn_from_record(r: Mapping[str, Any]) -> ExampleTurn:
    """`ExampleTurn` from a `reference_layer.turns` row."""
    return ExampleTurn(
        id=str(r["id"]),
        text=_str(r.get("text")),
        role=_str(r.get("role")),
        session_id=_str(r.get("session_id")),
        at_ms=int(r.get("at") or 0),
        speaker=_str(r.get("speaker")),
        topic_id=_str(r.get("topic_id")),
    )


def session_turn_from_record(r: Mapping[str, Any]) -> SessionTurn:
    """`SessionTurn` from a `primer.turns` row."""
    return SessionTurn(
        session_id=str(r["session_id"]),
        id=_str(r.get("id")),
        ordinal=int(r.get("ordinal") or 0),
        role=_str(r.get("role")),
        speaker=_str(r.get("speaker")),
        text=_str(r.get("text")),
        at=int(r.get("at") or 0),
    )


def rollup_source_from_record(r: Mapping[str, Any]) -> RollupSource:
    """`RollupSource` from a `primer.sources` row."""
    return RollupSource(
        kind=str(r["kind"]),
        id=str(r["id"]),
        title=_str(r.get("title")),
        text=_str(r.get("text")),
        at=int(r.get("at") or 0),
        sub=_str(r.get("sub")),
    )


FROM_RECORD: dict[type[BaseModel], Callable[[Mapping[str, Any]], Any]] = {
    Project: project_from_record,
    Session: session_from_record,
    Turn: turn_from_record,
    Topic: topic_from_record,
    Lesson: lesson_from_record,
    LessonVersion: lesson_version_from_record,
    Correction: correction_from_record,
    Fact: fact_from_record,
    Community: community_from_record,
    CommunityRun: community_run_from_record,
    Primer: primer_from_record,
    ReferenceLayer: reference_layer_from_record,
    JobRun: job_run_from_record,
    Finding: finding_from_record,
    RemState: rem_state_from_record,
    ApiKey: api_key_from_record,
    ProjectSnapshot: project_snapshot_from_record,
}
"""Every node model's `from_record` mapper (used by the round-trip tests)."""

TO_ROW: dict[type[BaseModel], Callable[[Any], Row]] = {
    Project: project_to_row,
    Session: session_to_row,
    Turn: turn_to_row,
    Topic: topic_to_row,
    Lesson: lesson_to_row,
    LessonVersion: lesson_version_to_row,
    Correction: correction_to_row,
    Fact: fact_to_row,
    Community: community_to_row,
    CommunityRun: community_run_to_row,
    Primer: primer_to_row,
    ReferenceLayer: reference_layer_to_row,
    JobRun: job_run_to_row,
    Finding: finding_to_row,
    RemState: rem_state_to_row,
    ApiKey: api_key_to_row,
    ProjectSnapshot: project_snapshot_to_row,
}
"""Every node model's `to_row` mapper."""


def rem_action_to_row(a: RemActionRecord) -> Row:
    """Properties of a `RemAction` node: the before-image and edges as JSON strings."""
    return {
        "id": a.id,
        "run_id": a.run_id,
        "project": a.project,
        "finding_id": a.finding_id,
        "action": a.action,
        "note": a.note,
        "before": json.dumps(a.before, sort_keys=True, separators=(",", ":")),
        "edges": json.dumps([list(e) for e in a.edges], separators=(",", ":")),
        "applied_at": a.applied_at,
        "seq": a.seq,
    }


def rem_action_from_record(r: Mapping[str, Any]) -> RemActionRecord:
    """`RemActionRecord` from a `RemAction` node's properties."""
    before = json.loads(r.get("before") or "{}")
    edges = json.loads(r.get("edges") or "[]")
    return RemActionRecord(
        id=str(r["id"]),
        run_id=_str(r.get("run_id")),
        project=_str(r.get("project")),
        finding_id=_str(r.get("finding_id")),
        action=_str(r.get("action")),
        note=_str(r.get("note")),
        before={str(k): dict(v) for k, v in before.items()},
        edges=tuple((str(t), str(s), str(d)) for t, s, d in edges),
        applied_at=int(r.get("applied_at") or 0),
        seq=int(r.get("seq") or 0),
        undone_at=None if r.get("undone_at") is None else int(r["undone_at"]),
    )


# --- `remgraph export` (`export.*`) -------------------------------------------------------------

_EXPORT_MODELS: dict[str, type[ExportNode]] = {
    "topic": Topic,
    "lesson": Lesson,
    "correction": Correction,
    "fact": Fact,
    "community": Community,
    "session": Session,
}


def export_node_from_record(r: Mapping[str, Any]) -> ExportNode:
    """The domain model of an `export.nodes` row (`kind`, `props`)."""
    return _from_record(_EXPORT_MODELS[r["kind"]], r["props"])


def export_edge_from_record(r: Mapping[str, Any]) -> ExportEdge:
    """An `export.links` / `export.session_links` row (the relationship's `props`)."""
    p: Mapping[str, Any] = r["props"] or {}
    start, recorded = p.get("valid_from"), p.get("recorded_at")
    turns = p.get("turns")
    return ExportEdge(
        source_id=r["source_id"],
        type=r["type"],
        target_id=r["target_id"],
        weight=None if p.get("weight") is None else float(p["weight"]),
        turns=None if turns is None else int(turns),
        valid_from=None if start is None else from_ms(int(start)),
        valid_to=end_from_ms(_ms(p.get("valid_to"))),
        recorded_at=None if recorded is None else from_ms(int(recorded)),
        expired_at=end_from_ms(_ms(p.get("expired_at"))),
    )
