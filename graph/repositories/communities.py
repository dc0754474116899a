"""`CommunityRepository`: the communities job's projection reads and run/community writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Community, CommunityRun
from graph.records import (
    community_from_record,
    community_run_from_record,
    community_run_to_row,
    community_to_row,
    item_embedding_from_record,
    knowledge_link_from_record,
    knowledge_node_from_record,
    provenance_from_record,
)
from graph.rows import ItemEmbedding, KnowledgeLink, KnowledgeNode, Provenance

_NODES = Q("community.project_nodes")
_PROVENANCE = Q("community.project_provenance")
_LINKS = Q("community.project_links")
_EMBEDDINGS = Q("community.project_embeddings")
_UPSERT_RUNS = Q("community.upsert_runs")
_WRITE = Q("community.write_communities")
_MEMBERS = Q("community.write_members")
_PROMOTE = Q("community.promote_run")
_CURRENT = Q("community.current_run")
_RUNS = Q("community.list_runs")
_LIST = Q("community.list_communities")
_PURGE = Q("community.purge_run")
_OF = Q("community.of_members")

BATCH = 5_000
"""Rows per write statement."""


def _chunks(rows: Sequence[Any], size: int = BATCH) -> Iterator[Sequence[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


class CommunityRepository:
    """Reads the knowledge projection; writes runs, communities and memberships."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def project_nodes(self, project: str | None, now_ms: int) -> list[KnowledgeNode]:
        """Live topics, lessons, corrections and facts of `project` (None: all), by id."""
        rows = await self._db.read(_NODES, project=project, now=now_ms)
        return sorted(map(knowledge_node_from_record, rows), key=lambda x: (x.id, x.kind))

    async def project_provenance(self, project: str | None, now_ms: int) -> list[Provenance]:
        """The turn (and session) behind every `DERIVED_FROM` and `MENTIONS` edge."""
        rows = await self._db.read(_PROVENANCE, project=project, now=now_ms)
        out = map(provenance_from_record, rows)
        return sorted(out, key=lambda x: (x.item_id, x.turn_id or "", x.session_id or ""))

    async def project_links(self, now_ms: int) -> list[KnowledgeLink]:
        """Explicit links between live knowledge items."""
        rows = await self._db.read(_LINKS, now=now_ms)
        out = map(knowledge_link_from_record, rows)
        return sorted(out, key=lambda x: (x.source_id, x.target_id, x.type))

    async def project_embeddings(self, project: str | None, now_ms: int) -> list[ItemEmbedding]:
        """Embeddings of the live knowledge items that have one."""
        rows = await self._db.read(_EMBEDDINGS, project=project, now=now_ms)
        found = [e for e in map(item_embedding_from_record, rows) if e is not None]
        return sorted(found, key=lambda x: x.id)

    async def save_run(self, run: CommunityRun) -> None:
        """Create or update a `CommunityRun`."""
        await self._db.write(_UPSERT_RUNS, rows=[community_run_to_row(run)])

    async def write_communities(self, communities: Sequence[Community]) -> int:
        """Write communities (linked to their run) and `IN_COMMUNITY` memberships."""
        written = 0
        for chunk in _chunks(list(communities), 1_000):
            rows = await self._db.write(_WRITE, rows=[community_to_row(c) for c in chunk])
            written += int(rows[0]["n"]) if rows else 0
        members = [
            {"community_id": c.id, "member_id": m} for c in communities for m in c.member_ids
        ]
        for chunk in _chunks(members):
            await self._db.write(_MEMBERS, rows=list(chunk))
        return written

    async def promote(self, project: str, run_id: str, now_ms: int) -> bool:
        """Make `run_id` the current run of `project` in one statement; False if it is unknown."""
        rows = await self._db.write(_PROMOTE, project=project, run_id=run_id, now=now_ms)
        return bool(rows and rows[0]["promoted"])

    async def current_run(self, project: str) -> CommunityRun | None:
        """The current run of `project`, if any."""
        rows = await self._db.read(_CURRENT, project=project)
        return community_run_from_record(rows[0]["node"]) if rows else None

    async def list_runs(self, project: str) -> list[CommunityRun]:
        """Every stored run of `project`, newest first."""
        return [
            community_run_from_record(r["node"])
            for r in await self._db.read(_RUNS, project=project)
        ]

    async def list_communities(self, run_id: str) -> list[Community]:
        """Communities of one run, largest first."""
        return [community_from_record(r["node"]) for r in await self._db.read(_LIST, run_id=run_id)]

    async def purge_run(self, run_id: str) -> int:
        """Delete a non-current run and its communities; returns how many communities went."""
        rows = await self._db.autocommit(_PURGE, run_id=run_id)
        return int(rows[0]["deleted"]) if rows else 0

    async def of_members(self, project: str, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Member id → (community id, title) in the current run of `project`."""
        rows = await self._db.read(_OF, project=project, ids=list(ids))
        return {r["member_id"]: (r["community_id"], r["title"]) for r in rows}
