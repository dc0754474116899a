"""`FindingRepository`: what REM jobs noticed and propose, and how reviewers decided."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher import Q
from graph.db import GraphDB
from graph.errors import NotFoundError
from graph.models import Finding, FindingStatus
from graph.records import finding_from_record, finding_to_row
from graph.repositories.api_keys import ALL_PROJECTS
from graph.repositories.base import last_per_key

_UPSERT = Q("finding.upsert_many")
_LIST = Q("finding.list")
_GET_MANY = Q("finding.get_many")
_SET_STATUS = Q("finding.set_status")


class FindingRepository:
    """`Finding` nodes: upserted by jobs (deterministic ids), reviewed by people or `--auto`."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def upsert_many(self, findings: Sequence[Finding]) -> dict[str, str]:
        """Store findings; an already reviewed finding keeps its status. Returns id → status.

        Findings sharing an id (the same job, kind and targets) are stored once, the last given.
        """
        if not findings:
            return {}
        unique = last_per_key(findings, lambda f: f.id)
        rows = await self._db.write(_UPSERT, rows=[finding_to_row(f) for f in unique])
        return {r["id"]: r["status"] for r in rows}

    async def list_findings(
        self,
        project: str,
        *,
        status: FindingStatus | None = None,
        job: str | None = None,
        limit: int = 100,
    ) -> list[Finding]:
        """Findings of `project` (`*`: every project), newest first, filtered by status and job."""
        rows = await self._db.read(
            _LIST,
            project=None if project == ALL_PROJECTS else project,
            status=status,
            job=job,
            limit=limit,
        )
        return [finding_from_record(r["node"]) for r in rows]

    async def get_many(self, ids: Sequence[str]) -> list[Finding | None]:
        """Findings in the order of `ids`; missing ids give None."""
        rows = await self._db.read(_GET_MANY, ids=list(ids))
        found = {f.id: f for f in (finding_from_record(r["node"]) for r in rows)}
        return [found.get(i) for i in ids]

    async def get(self, id: str) -> Finding:
        """One finding; raises `NotFoundError` when there is none."""
        (f,) = await self.get_many([id])
        if f is None:
            raise NotFoundError("finding", id)
        return f

    async def set_status(
        self, id: str, status: FindingStatus, *, note: str = "", now_ms: int
    ) -> Finding:
        """Record a review decision; raises `NotFoundError` for an unknown id."""
        rows = await self._db.write(_SET_STATUS, id=id, status=status, note=note, now=now_ms)
        if not rows:
            raise NotFoundError("finding", id)
        return finding_from_record(rows[0]["node"])
