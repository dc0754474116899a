"""Apply `cypher/schema/NNNN_*.cypher` in order and record each on a `SchemaMigration` node."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from core.timeutil import now_ms
from graph.cypher import Q, registry
from graph.db import GraphDB
from graph.errors import MigrationError

log = logging.getLogger("remgraph.graph.migrate")

_APPLIED = Q("migration.applied")
_RECORD = Q("migration.record")


@dataclass(frozen=True)
class MigrationReport:
    """What `migrate` did."""

    applied: tuple[str, ...]
    skipped: tuple[str, ...]


def _migration_id(name: str) -> str:
    return name.removeprefix("schema.")


async def migrate(db: GraphDB, *, wait_s: float = 120.0) -> MigrationReport:
    """Apply pending migrations for the engine's dialect; running it twice changes nothing."""
    files = registry().migrations(db.dialect)
    known = {_migration_id(f.name) for f in files}
    applied_rows = await db.read(_APPLIED)
    done = {r["id"]: r["checksum"] for r in applied_rows}
    unknown = sorted(set(done) - known)
    if unknown:
        raise MigrationError(
            f"the graph has migrations this remgraph does not know: {unknown}; upgrade remgraph"
        )
    applied: list[str] = []
    skipped: list[str] = []
    for f in files:
        mid = _migration_id(f.name)
        checksum = hashlib.sha256(f.text.encode()).hexdigest()[:16]
        if mid in done:
            if done[mid] and done[mid] != checksum:
                raise MigrationError(
                    f"migration {mid} changed after it was applied to this graph "
                    f"({f.path.name}); schema files are append-only: add a new numbered file, or "
                    "start from an empty graph (`remgraph db reset --yes` deletes the data)"
                )
            skipped.append(mid)
            continue
        for stmt in f.statements():
            await db.run_schema(stmt)
        await db.write(_RECORD, id=mid, checksum=checksum, applied_at=now_ms())
        log.info("applied migration %s", mid)
        applied.append(mid)
    await db.wait_for_indexes(wait_s)
    return MigrationReport(tuple(applied), tuple(skipped))
