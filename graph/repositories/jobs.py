"""`JobRepository`: REM bookkeeping: single-flight locks, job runs and scheduler state."""

from __future__ import annotations

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import JobRun, RemState
from graph.records import (
    job_run_from_record,
    job_run_to_row,
    rem_state_from_record,
    rem_state_to_row,
)

_ACQUIRE = Q("job.acquire_lock")
_RELEASE = Q("job.release_lock")
_TAKE_OVER = Q("job.take_over_lock")
_DROP = Q("job.drop_lock")
_PROJECTS = Q("job.projects")
_UPSERT_RUNS = Q("job.upsert_runs")
_LIST_RUNS = Q("job.list_runs")
_STATES = Q("rem_state.list")
_UPSERT_STATE = Q("rem_state.upsert")
_SESSIONS = Q("rem.session_count")


class JobRepository:
    """Locks, `JobRun` history and `RemState` per job, stored in the graph."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def acquire_lock(self, lock_id: str, owner: str, *, now_ms: int, ttl_ms: int) -> bool:
        """Take the lock `lock_id` for `owner` unless another owner holds an unexpired one."""
        rows = await self._db.write(
            _ACQUIRE, lock_id=lock_id, owner=owner, now=now_ms, expires_at=now_ms + ttl_ms
        )
        return bool(rows and rows[0]["acquired"])

    async def try_lock(
        self, lock_id: str, owner: str, *, now_ms: int, ttl_ms: int
    ) -> tuple[bool, str]:
        """Like `acquire_lock`, also returning who holds the lock now."""
        rows = await self._db.write(
            _ACQUIRE, lock_id=lock_id, owner=owner, now=now_ms, expires_at=now_ms + ttl_ms
        )
        if not rows:
            return False, ""
        return bool(rows[0]["acquired"]), str(rows[0]["owner"] or "")

    async def take_over_lock(
        self, lock_id: str, stale: str, owner: str, *, now_ms: int, ttl_ms: int
    ) -> bool:
        """Take `lock_id` for `owner` from `stale`, a holder known to be gone, if it holds it."""
        rows = await self._db.write(
            _TAKE_OVER,
            lock_id=lock_id,
            stale=stale,
            owner=owner,
            now=now_ms,
            expires_at=now_ms + ttl_ms,
        )
        return bool(rows and rows[0]["acquired"])

    async def release_lock(self, lock_id: str, owner: str) -> bool:
        """Release `lock_id` if `owner` still holds it; False when it did not."""
        rows = await self._db.write(_RELEASE, lock_id=lock_id, owner=owner)
        return bool(rows and rows[0]["released"])

    async def drop_lock(self, lock_id: str, owner: str) -> bool:
        """Release `lock_id` if `owner` holds it by deleting the lock node."""
        rows = await self._db.write(_DROP, lock_id=lock_id, owner=owner)
        return bool(rows and rows[0]["released"])

    async def save_run(self, run: JobRun) -> None:
        """Create or update one `JobRun`."""
        await self._db.write(_UPSERT_RUNS, rows=[job_run_to_row(run)])

    async def list_runs(
        self, project: str, job: str | None = None, limit: int = 50
    ) -> list[JobRun]:
        """Runs of `project` (optionally one job), newest first."""
        rows = await self._db.read(_LIST_RUNS, project=project, job=job, limit=limit)
        return [job_run_from_record(r["node"]) for r in rows]

    async def states(self, project: str) -> list[RemState]:
        """Scheduler state of every job that ever ran for `project`."""
        rows = await self._db.read(_STATES, project=project)
        return [rem_state_from_record(r["node"]) for r in rows]

    async def save_state(self, state: RemState) -> None:
        """Create or replace one job's `RemState`."""
        await self._db.write(_UPSERT_STATE, rows=[rem_state_to_row(state)])

    async def projects(self) -> list[str]:
        """Every project owning sessions or knowledge, sorted."""
        rows = await self._db.read(_PROJECTS)
        return sorted({r["project"] for r in rows if r["project"]})

    async def session_count(self, project: str | None) -> int:
        """Sessions stored for `project` (None: all projects)."""
        rows = await self._db.read(_SESSIONS, project=project)
        return int(rows[0]["sessions"]) if rows else 0
