"""Ingest bookkeeping: one `SourceFile` node per transcript file.

It remembers how much of the file has been ingested (byte offset and line, the SHA-256 of that
prefix, size and mtime of the whole file) and the parser's resumable cursor as JSON, so a re-run
skips unchanged files and an appended file resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict

from core.ids import source_file_id
from core.timeutil import now_ms
from graph.cypher import Q
from graph.db import GraphDB

__all__ = ["OpenTurn", "SourceFileRepository", "SourceFileState"]

_GET = Q("source_file.get")
_SAVE = Q("source_file.save")
_OPEN_TURNS = Q("source_file.open_turns")
_CLOSE_STALE = Q("source_file.close_stale_links")
_LIST = Q("source_file.list")
_FP_NODES = Q("source_file.fingerprint_nodes")
_FP_EDGES = Q("source_file.fingerprint_edges")

VOLATILE = frozenset({"recorded_at", "updated_at"})
"""Record-time properties that differ between two otherwise identical runs."""


def _digest(props: dict[str, Any]) -> str:
    clean: dict[str, Any] = {}
    for k, v in sorted(props.items()):
        if k in VOLATILE:
            continue
        if k == "embedding" and v is not None:
            v = [round(float(x), 3) for x in v]  # batch composition moves the last bits
        clean[k] = v
    return hashlib.sha256(json.dumps(clean, sort_keys=True, default=str).encode()).hexdigest()


class SourceFileState(BaseModel):
    """What has been ingested from one file."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    path: str
    """Absolute path."""
    format: str
    """Parser used."""
    size: int
    """File size when last ingested."""
    mtime_ns: int
    """Modification time (ns) when last ingested."""
    file_sha: str
    """SHA-256 of the whole file when last ingested."""
    offset: int
    """Bytes consumed (complete lines, for JSONL formats)."""
    line: int = 0
    """Lines consumed."""
    prefix_sha: str
    """SHA-256 of the first `offset` bytes: an append is trusted only if this still matches."""
    cursor_json: str = ""
    """The parser's resumable cursor as JSON."""
    session_ids: tuple[str, ...] = ()
    """Sessions the file produced."""
    turns: int = 0
    """Turns ingested from the file in total."""
    updated_at: int = 0
    """Epoch ms of the last save."""

    @property
    def id(self) -> str:
        """Node id."""
        return source_file_id(self.path)


class OpenTurn(NamedTuple):
    """What is stored of a current turn: enough to tell whether a re-parse changed it."""

    content_hash: str
    ordinal: int
    embedded: bool


class SourceFileRepository:
    """Reads and writes `SourceFile` nodes."""

    def __init__(self, db: GraphDB) -> None:
        self.db = db

    async def get(self, path: str) -> SourceFileState | None:
        """The saved state of `path`, or None when it was never ingested."""
        rows = await self.db.read(_GET, id=source_file_id(path))
        if not rows:
            return None
        node: dict[str, Any] = dict(rows[0]["node"])
        node["session_ids"] = tuple(node.get("session_ids") or ())
        return SourceFileState.model_validate(node)

    async def save(self, state: SourceFileState) -> None:
        """Create or replace the state of `state.path`."""
        row = state.model_dump()
        row["session_ids"] = list(state.session_ids)
        row["id"] = state.id
        row["updated_at"] = state.updated_at or now_ms()
        await self.db.write(_SAVE, row=row)

    async def open_turns(self, file: str, session_ids: Sequence[str]) -> dict[str, OpenTurn]:
        """The still-current turns of `session_ids` read from `file`, by id."""
        if not session_ids:
            return {}
        rows = await self.db.read(
            _OPEN_TURNS, session_ids=list(session_ids), file=file, now=now_ms()
        )
        return {
            r["id"]: OpenTurn(
                content_hash=r["content_hash"] or "",
                ordinal=r["ordinal"],
                embedded=bool(r["embedded"]),
            )
            for r in rows
        }

    async def close_stale_links(
        self, file: str, session_ids: Sequence[str], keep: Sequence[tuple[str, str]], now: int
    ) -> None:
        """Close `NEXT` edges not in `keep` and `HAS_TURN` edges of closed turns (one file)."""
        if not session_ids:
            return
        await self.db.write(
            _CLOSE_STALE,
            file=file,
            session_ids=list(session_ids),
            keep=[f"{a}>{b}" for a, b in keep],
            now=now,
        )

    async def list(self, prefix: str = "") -> list[SourceFileState]:
        """Every saved file whose path starts with `prefix`."""
        rows = await self.db.read(_LIST, prefix=prefix)
        out = []
        for r in rows:
            node = dict(r["node"])
            node["session_ids"] = tuple(node.get("session_ids") or ())
            out.append(SourceFileState.model_validate(node))
        return out

    async def fingerprint(self, projects: Sequence[str]) -> dict[str, str]:
        """`label:id` and `source-TYPE->target` → hash of properties (record times left out).

        Two graphs built from the same transcripts have equal fingerprints however the runs went
        (interrupted, repeated, resumed).
        """
        out: dict[str, str] = {}
        for r in await self.db.read(_FP_NODES, projects=list(projects)):
            out[f"{r['label']}:{r['id']}"] = _digest(dict(r["props"]))
        for r in await self.db.read(_FP_EDGES, projects=list(projects)):
            out[f"{r['source']}-{r['type']}->{r['target']}"] = _digest(dict(r["props"]))
        return out
