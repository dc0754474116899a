"""`AdminRepository`: remove projects from a shared database and prove nothing else changed.

Used by `remgraph eval knowledge` on engines without a separate namespace per run (Neo4j
Community has one database). Projects are purged by their `project` property. Topics are global
today (issue 16): ingesting into a shared database merges new material into other projects'
topics, re-weighs every topic and relates them, so a `TopicCheckpoint` keeps every topic's
properties and co-occurrence edges before a run and `restore_topics` puts them back after it,
deleting the topics and edges the run created. `dump` reads the whole database (embeddings aside)
so a caller can compare before and after.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB

_PURGE = Q("admin.purge_projects")
_TOPIC_STATE = Q("admin.topic_state")
_TOPIC_LINKS = Q("admin.topic_links")
_RESTORE_TOPICS = Q("admin.restore_topics")
_DELETE_TOPICS = Q("admin.delete_topics")
_RESTORE_LINKS = Q("admin.restore_topic_links")
_DELETE_LINKS = Q("admin.delete_topic_links")
_DUMP_NODES = Q("admin.dump_nodes")
_DUMP_EDGES = Q("admin.dump_edges")

_BATCH = 500
_NOT_RESTORED = frozenset({"embedding"})
"""Properties a checkpoint leaves alone (vectors are never read back; see admin.topic_state)."""


def _props(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in dict(raw or {}).items() if v is not None and k not in _NOT_RESTORED}


@dataclass(frozen=True)
class TopicCheckpoint:
    """Every topic's properties and every topic-to-topic `RELATED_TO` edge at one moment."""

    topics: dict[str, dict[str, Any]] = field(default_factory=dict)
    links: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class RestoreReport:
    """What `restore_topics` did."""

    topics_restored: int = 0
    topics_deleted: int = 0
    links_restored: int = 0
    links_deleted: int = 0


class AdminRepository:
    """Project purge, topic checkpoints and whole-database dumps."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def purge_projects(self, projects: Sequence[str], paths: Sequence[str] = ()) -> int:
        """Delete every node of `projects`, their REM job locks and the ingest state of `paths`.

        Relationships go with the nodes; topics are left to `restore_topics`. Returns how many
        nodes went.
        """
        if not projects and not paths:
            return 0
        rows = await self._db.write(_PURGE, projects=list(projects), paths=list(paths))
        return int(rows[0]["deleted"]) if rows else 0

    async def topic_checkpoint(self) -> TopicCheckpoint:
        """Keep every topic's properties and every co-occurrence edge between topics."""
        topics = {str(r["id"]): _props(r["props"]) for r in await self._db.read(_TOPIC_STATE)}
        links = {
            (str(r["source"]), str(r["target"])): _props(r["props"])
            for r in await self._db.read(_TOPIC_LINKS)
        }
        return TopicCheckpoint(topics=topics, links=links)

    async def restore_topics(self, checkpoint: TopicCheckpoint) -> RestoreReport:
        """Put topics and their co-occurrence edges back as `checkpoint` found them.

        Topics created since are deleted; kept topics get their properties back (properties added
        since are removed); edges between kept topics added since are deleted, the others get their
        properties back.
        """
        now = await self.topic_checkpoint()
        kept = checkpoint.topics
        new_ids = sorted(set(now.topics) - set(kept))
        deleted = 0
        for i in range(0, len(new_ids), _BATCH):
            rows = await self._db.write(_DELETE_TOPICS, ids=new_ids[i : i + _BATCH])
            deleted += int(rows[0]["deleted"]) if rows else 0
        restore = [
            {"id": tid, "props": {**dict.fromkeys(set(now.topics[tid]) - set(props)), **props}}
            for tid, props in sorted(kept.items())
            if tid in now.topics and now.topics[tid] != props
        ]
        restored = 0
        for i in range(0, len(restore), _BATCH):
            rows = await self._db.write(_RESTORE_TOPICS, rows=restore[i : i + _BATCH])
            restored += int(rows[0]["restored"]) if rows else 0
        between_kept = {
            k: v for k, v in now.links.items() if k[0] in kept and k[1] in kept
        }  # edges touching a deleted topic went with it
        extra = [
            {"source": a, "target": b} for a, b in sorted(set(between_kept) - set(checkpoint.links))
        ]
        links_deleted = 0
        for i in range(0, len(extra), _BATCH):
            rows = await self._db.write(_DELETE_LINKS, rows=extra[i : i + _BATCH])
            links_deleted += int(rows[0]["deleted"]) if rows else 0
        relink = [
            {
                "source": a,
                "target": b,
                "props": {**dict.fromkeys(set(between_kept[(a, b)]) - set(props)), **props},
            }
            for (a, b), props in sorted(checkpoint.links.items())
            if (a, b) in between_kept and between_kept[(a, b)] != props
        ]
        links_restored = 0
        for i in range(0, len(relink), _BATCH):
            rows = await self._db.write(_RESTORE_LINKS, rows=relink[i : i + _BATCH])
            links_restored += int(rows[0]["restored"]) if rows else 0
        return RestoreReport(
            topics_restored=restored,
            topics_deleted=deleted,
            links_restored=links_restored,
            links_deleted=links_deleted,
        )

    async def dump(self) -> list[str]:
        """Every node and relationship (embeddings aside) as sorted canonical JSON lines."""
        lines = [
            json.dumps(
                ["node", sorted(r["labels"] or ()), r["id"], _props(r["props"])],
                sort_keys=True,
                default=str,
            )
            for r in await self._db.read(_DUMP_NODES)
        ]
        lines.extend(
            json.dumps(
                ["edge", r["source"], r["type"], r["target"], dict(r["props"] or {})],
                sort_keys=True,
                default=str,
            )
            for r in await self._db.read(_DUMP_EDGES)
        )
        return sorted(lines)

    @staticmethod
    def digest(lines: Sequence[str]) -> str:
        """SHA-256 of a `dump`."""
        h = hashlib.sha256()
        for line in lines:
            h.update(line.encode("utf-8"))
            h.update(b"\n")
        return h.hexdigest()
