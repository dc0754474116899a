"""Which projects hold data, and removing one project's data without touching the others.

Every evaluation (`remgraph/eval_isolation.py`) runs in a project of its own; on a shared database
(Neo4j: one database in the Community edition) it removes that project afterwards with
`purge_project` and proves with `graph_fingerprint` that the database is as it found it. Deleting
is an administrative act: nothing in the service itself ever hard-deletes knowledge.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.records import Row

_USAGE = Q("admin.project_usage")
_PURGE_TOPICS = Q("admin.purge_project_topics")
_UNLIST_TOPICS = Q("admin.unlist_project_topics")
_PURGE_NODES = Q("admin.purge_project_nodes")
_NEW_EPOCH = Q("turn_index.new_epoch")
_PURGE_KEYS = Q("admin.purge_project_keys")
_PURGE_LOCKS = Q("admin.purge_locks")
_PURGE_FILES = Q("admin.purge_source_files")
_DUMP_NODES = Q("admin.dump_nodes")
_DUMP_RELATIONSHIPS = Q("admin.dump_relationships")


@dataclass(frozen=True)
class PurgeReport:
    """What `purge_project` deleted."""

    nodes: int
    """Nodes whose `project` was the purged one (sessions, turns, knowledge, REM records...)."""
    topics: int
    """Topics only the purged project mentioned."""
    keys: int
    """API keys scoped to the purged project alone."""
    locks: int
    """REM job locks of the purged project."""
    source_files: int = 0
    """Ingest states of the files named by the caller."""


async def project_usage(db: GraphDB) -> dict[str, int]:
    """Nodes per project in the whole graph (a topic counts for each project in its list)."""
    rows = await db.read(_USAGE)
    return {str(r["project"]): int(r["nodes"]) for r in rows}


async def purge_project(
    db: GraphDB, project: str, *, lock_ids: Sequence[str] = (), paths: Sequence[str] = ()
) -> PurgeReport:
    """Delete everything of `project` and nothing of any other project.

    That is its nodes and their relationships, the topics only it mentions, the API keys scoped to
    it alone, the job locks `lock_ids` (their ids name the project) and the ingest state of the
    files `paths` (absolute, as ingest saved them; a file carries no project). Other projects keep
    every node, relationship and property, except that a topic they share with `project` no
    longer lists it.
    """
    if not project.strip() or project == "*":
        raise InvalidInputError("project", f"refusing to purge {project!r}")
    topics = await db.write(_PURGE_TOPICS, project=project)
    await db.write(_UNLIST_TOPICS, project=project)
    nodes = await db.autocommit(_PURGE_NODES, project=project)
    await db.write(_NEW_EPOCH)  # in-process turn indexes hold deleted turns: load them again
    keys = await db.write(_PURGE_KEYS, project=project)
    locks = await db.write(_PURGE_LOCKS, ids=list(lock_ids)) if lock_ids else []
    files = await db.write(_PURGE_FILES, paths=list(paths)) if paths else []
    return PurgeReport(
        nodes=_count(nodes),
        topics=_count(topics),
        keys=_count(keys),
        locks=_count(locks),
        source_files=_count(files),
    )


def _count(rows: Sequence[Row]) -> int:
    return sum(int(r.get("deleted") or 0) for r in rows)


@dataclass(frozen=True)
class GraphFingerprint:
    """Counts and a digest of every node and relationship (embeddings left out)."""

    nodes: dict[str, int]
    """Nodes per label."""
    relationships: dict[str, int]
    """Relationships per type."""
    digest: str
    """SHA-256 over the sorted canonical rows: equal digests, equal graphs."""


def _canonical(value: Any) -> str:
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if v is not None}
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


async def graph_fingerprint(db: GraphDB) -> GraphFingerprint:
    """Fingerprint of the whole graph; reads everything, so meant for small graphs."""
    nodes = await db.read(_DUMP_NODES)
    rels = await db.read(_DUMP_RELATIONSHIPS)
    lines = sorted(
        [_canonical(["n", sorted(r["labels"]), r["props"]]) for r in nodes]
        + [_canonical(["r", r["source"], r["type"], r["target"], r["props"]]) for r in rels]
    )
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode("utf-8"))
        h.update(b"\n")
    return GraphFingerprint(
        nodes=dict(Counter(str(sorted(r["labels"])[0]) for r in nodes if r["labels"])),
        relationships=dict(Counter(str(r["type"]) for r in rels)),
        digest=h.hexdigest(),
    )
