"""`ExportRepository`: one project's knowledge graph as `remgraph export` writes it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.cypher import Q
from graph.db import GraphDB
from graph.records import export_edge_from_record, export_node_from_record
from graph.repositories.base import window
from graph.rows import ExportEdge, ExportNode

_NODES = Q("export.nodes")
_LINKS = Q("export.links")
_SESSION_LINKS = Q("export.session_links")


@dataclass(frozen=True, slots=True)
class ExportGraph:
    """The nodes and the relationships between them (both ends always among `nodes`)."""

    nodes: tuple[ExportNode, ...]
    edges: tuple[ExportEdge, ...]


class ExportRepository:
    """A project's topics, lessons, corrections, facts, communities and sessions, scoped to it.

    Every query filters on `project = $project`, nodes and both ends of every relationship, so
    nothing of another project (nor a legacy global topic) can appear.
    """

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def project_graph(
        self,
        project: str,
        *,
        sessions: bool = False,
        all_history: bool = False,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> ExportGraph:
        """The project's graph as of `as_of` as known at `known_at` (both default to now).

        With `all_history`, every stored record instead: closed and expired items, and the
        communities of every stored run, each with its times. Lessons show their current text.
        """
        a, k = window(as_of, known_at)
        params = {"project": project, "as_of": a, "known_at": k, "with_history": all_history}
        rows = await self._db.read(_NODES, with_sessions=sessions, **params)
        nodes = tuple(export_node_from_record(r) for r in rows)
        links = await self._db.read(_LINKS, **params)
        if sessions:
            links += await self._db.read(_SESSION_LINKS, **params)
        ids = {n.id for n in nodes}
        edges = tuple(
            e
            for e in map(export_edge_from_record, links)
            if e.source_id in ids and e.target_id in ids
        )
        return ExportGraph(nodes, edges)
