"""`RemService`: the REM cycle behind the API's `Consolidator` port, for the API to call.

The composition root builds one with the open `GraphDB` and settings and hands it to the API; all
results are JSON-able mappings, so the API never imports `consolidate`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from consolidate.actions import review_finding
from consolidate.config import ConsolidateSettings
from consolidate.runner import rem_status, run_job
from graph.db import GraphDB
from graph.errors import NotFoundError
from graph.models import FindingStatus
from graph.repositories.findings import FindingRepository

_STATUSES = {"open", "approved", "rejected", "skipped", "applied"}


class RemService:
    """Runs jobs and reviews findings; fits `api.ports.Consolidator` structurally."""

    def __init__(self, db: GraphDB, settings: ConsolidateSettings) -> None:
        self._db = db
        self._settings = settings

    async def run_job(self, *, name: str, project: str) -> Mapping[str, Any]:
        report = await run_job(name, db=self._db, settings=self._settings, project=project)
        return report.model_dump(mode="json")

    async def rem_status(self, *, project: str) -> Sequence[Mapping[str, Any]]:
        views = await rem_status(db=self._db, settings=self._settings, project=project)
        return [v.model_dump(mode="json") for v in views]

    async def findings(
        self, *, project: str, status: str | None = None
    ) -> Sequence[Mapping[str, Any]]:
        st = cast(FindingStatus, status) if status in _STATUSES else None
        if status is not None and st is None:
            return []
        found = await FindingRepository(self._db).list_findings(project, status=st, limit=500)
        return [f.model_dump(mode="json") for f in found]

    async def review_finding(
        self, *, project: str, finding_id: str, status: str
    ) -> Mapping[str, Any]:
        found = await FindingRepository(self._db).get(finding_id)
        if project not in (found.project, "*"):
            raise NotFoundError("finding", finding_id)  # never reveal another project's finding
        f = await review_finding(self._db, finding_id, status)
        return f.model_dump(mode="json")
