"""Project context snapshots: the active facts, todos and decisions after each ingest run."""

from __future__ import annotations

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import ProjectSnapshot
from graph.records import project_snapshot_from_record, project_snapshot_to_row

_CREATE = Q("snapshot.create")
_LATEST = Q("snapshot.latest")
_LIST = Q("snapshot.list_by_project")


class SnapshotRepository:
    """Reads and writes `ProjectSnapshot` nodes."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def create(self, snapshot: ProjectSnapshot) -> None:
        """Store a snapshot (idempotent by id)."""
        await self._db.write(_CREATE, row=project_snapshot_to_row(snapshot))

    async def latest(self, project: str) -> ProjectSnapshot | None:
        """The most recent snapshot of `project`, or None."""
        rows = await self._db.read(_LATEST, project=project)
        return project_snapshot_from_record(rows[0]["props"]) if rows else None

    async def list_by_project(self, project: str) -> list[ProjectSnapshot]:
        """All snapshots of `project`, oldest first."""
        rows = await self._db.read(_LIST, project=project)
        return [project_snapshot_from_record(r["props"]) for r in rows]
