"""`AuditRepository`: label-agnostic reads of one project's nodes, for `remgraph eval knowledge`.

The knowledge evaluation scores whatever a project holds, including kinds of knowledge that later
issues add, so these reads return nodes of any label as plain property maps (`StoredNode`) rather
than domain models; the evaluation decides by rule which properties carry text and which carry
provenance ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB

_PROJECT_NODES = Q("audit.project_nodes")
_TURN_LINKS = Q("audit.turn_links")
_PROJECTS_PRESENT = Q("audit.projects_present")


@dataclass(frozen=True)
class StoredNode:
    """One node as stored: its labels, id and properties (embedding left out)."""

    labels: tuple[str, ...]
    id: str
    props: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The first label (remgraph gives every node exactly one)."""
        return self.labels[0] if self.labels else ""


class AuditRepository:
    """Reads a project's nodes of every label, and the turns they are linked to."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def project_nodes(self, project: str, now_ms: int) -> list[StoredNode]:
        """Every node of `project` but its turns (topics that list it included), live at `now`."""
        rows = await self._db.read(_PROJECT_NODES, project=project, now=now_ms)
        return [
            StoredNode(
                labels=tuple(r["labels"] or ()),
                id=str(r["id"]),
                props={k: v for k, v in dict(r["props"] or {}).items() if v is not None},
            )
            for r in rows
            if r["id"] is not None
        ]

    async def turn_links(self, project: str) -> list[tuple[str, str, str]]:
        """`(node id, turn id, relationship type)` for every edge between a turn and a non-turn.

        The session's `HAS_TURN` containment edge is left out.
        """
        rows = await self._db.read(_TURN_LINKS, project=project)
        return [(str(r["item_id"]), str(r["turn_id"]), str(r["type"])) for r in rows]

    async def projects_present(self, projects: Sequence[str]) -> dict[str, int]:
        """How many nodes each of `projects` already has (0: the project does not exist)."""
        if not projects:
            return {}
        rows = await self._db.read(_PROJECTS_PRESENT, projects=list(projects))
        return {str(r["project"]): int(r["nodes"]) for r in rows}
