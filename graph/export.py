"""`remgraph export`: one project's knowledge graph as GraphML, GEXF or node-link JSON.

For people who would rather look: Gephi, yEd and Cytoscape open GraphML (Gephi also GEXF),
and networkx reads all three (`read_graphml`, `read_gexf`, `node_link_graph(..., edges="edges")`).
The graph comes from `ExportRepository` (scoped to the one project, bi-temporal); this module
only turns it into a `networkx.MultiDiGraph` and writes the file.

Node ids are the stored ids; every node has `kind` (`topic`, `lesson`, `correction`, `fact`,
`community`, `session`) and `label` (its title, rule or statement) besides its properties (a
property of the same name is prefixed with the kind: a fact's own `kind`, e.g. `decision`, is
`fact_kind`).
Times are ISO 8601 strings, embeddings are left out, and an open interval end is absent. GraphML
and GEXF only hold scalars, so lists and maps are JSON-encoded strings there and missing values
are left out; the JSON export keeps them as JSON. Edges are keyed by their relationship type,
which they also carry as `relationship` and `label` (GEXF reserves an edge's `type`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import networkx as nx

from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.models import Community, Correction, Fact, Lesson, Session, Topic
from graph.repositories.exports import ExportGraph, ExportRepository
from graph.repositories.jobs import JobRepository
from graph.rows import ExportEdge, ExportNode

_LEFT_OUT = frozenset({"id", "embedding"})


class ExportFormat(StrEnum):
    """File formats `remgraph export` writes; the value is also the default file extension."""

    GRAPHML = "graphml"
    GEXF = "gexf"
    JSON = "json"


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    path: Path
    nodes: dict[str, int]
    """Nodes per kind."""
    edges: dict[str, int]
    """Edges per relationship type."""


def kind_of(node: ExportNode) -> str:
    """The `kind` attribute of an exported node."""
    return {
        Topic: "topic",
        Lesson: "lesson",
        Correction: "correction",
        Fact: "fact",
        Community: "community",
        Session: "session",
    }[type(node)]


def label_of(node: ExportNode) -> str:
    """The human label of an exported node (falls back to its id)."""
    if isinstance(node, Lesson):
        text = node.title or node.summary
    elif isinstance(node, Correction):
        text = node.rule_text or node.corrected_behaviour
    elif isinstance(node, Fact):
        text = node.statement
    else:
        text = node.title or ""
    return text or node.id


def _scalar(v: Any) -> Any:
    return json.dumps(v, sort_keys=True, ensure_ascii=False) if isinstance(v, list | dict) else v


def _attrs(data: dict[str, Any], scalars: bool) -> dict[str, Any]:
    if not scalars:
        return data
    return {k: _scalar(v) for k, v in data.items() if v is not None}


def _iso(t: datetime) -> str:
    """ISO 8601 in UTC with `Z`, as pydantic writes the nodes' times."""
    return t.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _edge_data(e: ExportEdge) -> dict[str, Any]:
    times = {
        "valid_from": e.valid_from,
        "valid_to": e.valid_to,
        "recorded_at": e.recorded_at,
        "expired_at": e.expired_at,
    }
    data: dict[str, Any] = {"relationship": e.type, "label": e.type}
    data |= {"weight": e.weight, "turns": e.turns}
    data |= {k: None if t is None else _iso(t) for k, t in times.items()}
    return data


def to_networkx(
    graph: ExportGraph, *, project: str, scalars: bool, meta: dict[str, Any] | None = None
) -> nx.MultiDiGraph:
    """The export as a networkx graph; `scalars` JSON-encodes lists and maps and drops nulls."""
    g = nx.MultiDiGraph(project=project, **(meta or {}))
    for n in graph.nodes:
        kind = kind_of(n)
        props = n.model_dump(mode="json", exclude=set(_LEFT_OUT))
        data = {"kind": kind, "label": label_of(n)}
        data |= {(f"{kind}_{k}" if k in data else k): v for k, v in props.items()}
        g.add_node(n.id, **_attrs(data, scalars))
    for e in graph.edges:
        g.add_edge(e.source_id, e.target_id, key=e.type, **_attrs(_edge_data(e), scalars))
    return g


def write_graph(g: nx.MultiDiGraph, fmt: ExportFormat, out: Path) -> None:
    """Write `g` to `out` in `fmt` (GraphML and GEXF need `to_networkx(..., scalars=True)`)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt is ExportFormat.GRAPHML:
        nx.write_graphml(g, out, encoding="utf-8")
    elif fmt is ExportFormat.GEXF:
        nx.write_gexf(g, out, encoding="utf-8")
    else:
        data = nx.node_link_data(g, edges="edges")
        out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


async def export_project(
    db: GraphDB,
    project: str,
    fmt: ExportFormat,
    out: Path | None = None,
    *,
    sessions: bool = False,
    all_history: bool = False,
    now: datetime | None = None,
) -> ExportSummary:
    """Write `project`'s knowledge graph to `out` (default `<project>.<format>`).

    Current knowledge (as of now, known now) unless `all_history`; sessions only on request.
    """
    if not project or project == "*":
        raise InvalidInputError("project", "name one project to export (not empty, not '*')")
    now = now or datetime.now(UTC)
    graph = await ExportRepository(db).project_graph(
        project, sessions=sessions, all_history=all_history, as_of=now, known_at=now
    )
    if not graph.nodes:
        known = await JobRepository(db).projects()
        if project not in known:
            names = ", ".join(known[:20]) or "none yet"
            raise InvalidInputError("project", f"no project {project!r} here (projects: {names})")
    meta = {
        "exported_at": _iso(now),
        "as_of": "all history" if all_history else _iso(now),
        "sessions": sessions,
    }
    g = to_networkx(graph, project=project, scalars=fmt is not ExportFormat.JSON, meta=meta)
    path = out or Path(f"{project}.{fmt.value}")
    write_graph(g, fmt, path)
    return ExportSummary(
        path=path,
        nodes=dict(Counter(kind_of(n) for n in graph.nodes)),
        edges=dict(Counter(e.type for e in graph.edges)),
    )
