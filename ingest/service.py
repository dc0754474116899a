"""`IngestService`: appends turns for the API's `ingestTurns` mutation (its `TurnIngestor` port).

Turns sent over the API go through the same normalise → embed → write → hooks path as files. Turn
keys are content hashes (`api:<hash>` of role, speaker, text, timestamp and position among equal
messages of the call), so repeating a call adds nothing; new turns continue the session's ordinals
and `NEXT` chain and its statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from ai.embed import Embedder, make_embedder
from core.ids import content_hash
from graph.db import GraphDB
from graph.models import Session, utc_now
from graph.repositories import SessionRepository, TurnRepository
from ingest.config import IngestSettings
from ingest.models import Role, SessionStats, ToolCounts
from ingest.pipeline import PostSessionHook, ingest_parsed
from ingest.sources.base import SessionBuilder, SessionCursor
from ingest.writer import session_id, turn_id

__all__ = ["IngestService", "IngestTurnsOutcome", "NewTurn", "stats_of"]

_ROLES: frozenset[str] = frozenset({"user", "assistant", "system", "tool"})


class NewTurn(Protocol):
    """One message to append: any object with these attributes (the API's `TurnInput` is one)."""

    @property
    def role(self) -> str:
        """`user`, `assistant`, `system` or `tool`; anything else is refused."""
        ...

    @property
    def text(self) -> str:
        """The message text."""
        ...

    @property
    def speaker(self) -> str:
        """Display name of the speaker ("" for the role)."""
        ...

    @property
    def timestamp(self) -> datetime | None:
        """When it was said; None means now, no zone means UTC."""
        ...

    @property
    def tool_name(self) -> str | None:
        """Tool called or answered, for tool turns."""
        ...


@dataclass(frozen=True)
class IngestTurnsOutcome:
    """What appending turns did."""

    session_id: str
    """The session the turns landed in."""
    turn_ids: tuple[str, ...]
    """Ids of the stored turns, in input order."""
    added: int
    """Turns that were new (a repeated call adds none)."""
    failures: tuple[str, ...] = field(default=())
    """One reason per turn that could not be stored."""


def stats_of(s: Session) -> SessionStats:
    """A stored session's statistics, to continue counting from."""
    messages = {
        k: v
        for k, v in (
            ("user", s.user_messages),
            ("assistant", s.assistant_messages),
            ("tool", s.tool_messages),
            ("system", s.system_messages),
        )
        if v
    }
    return SessionStats(
        started_at=s.started_at,
        ended_at=s.ended_at,
        messages=messages,
        tool_calls=s.tool_calls,
        tool_failures=s.tool_failures,
        tools={k: ToolCounts(calls=v.calls, failures=v.failures) for k, v in s.tool_stats.items()},
        input_tokens=s.input_tokens,
        output_tokens=s.output_tokens,
        compactions=s.compactions,
        models=s.models,
        turns=s.turn_count,
    )


class IngestService:
    """Appends API turns to sessions through the ingest pipeline.

    Args:
        db: the open graph.
        settings: ingest settings (batching, truncation, embedding).
        embedder: shared embedder; one is made from the settings when omitted.
        hooks: post-session hooks (extraction), run for the new turns.
    """

    def __init__(
        self,
        db: GraphDB,
        settings: IngestSettings,
        *,
        embedder: Embedder | None = None,
        hooks: Sequence[PostSessionHook] = (),
    ) -> None:
        self.db = db
        self.settings = settings
        self.embedder = embedder
        self.hooks = list(hooks)

    async def ingest_turns(
        self, *, project: str, session_key: str, turns: Sequence[NewTurn], title: str = ""
    ) -> IngestTurnsOutcome:
        sid = session_id(project, session_key)
        [existing] = await SessionRepository(self.db).get_many([sid])
        failures: list[str] = []
        keys = turn_keys(turns, failures)
        ids = [turn_id(project, session_key, k) if k else None for k in keys]
        stored = await TurnRepository(self.db).get_many([i for i in ids if i], known_at=None)
        present = {t.id for t in stored if t is not None}
        b = SessionBuilder(
            cursor=_continue(existing, project, session_key, title),
            source="api",
            file="",
            complete=existing is None,
        )
        now = utc_now()
        for t, key, tid in zip(turns, keys, ids, strict=True):
            if key is not None and tid not in present:
                _add(b, t, key, now)
        if b.turns:
            failures += await self._write(b)
        return IngestTurnsOutcome(
            session_id=sid,
            turn_ids=tuple(i for i in ids if i),
            added=len(b.turns),
            failures=tuple(failures),
        )

    async def _write(self, b: SessionBuilder) -> list[str]:
        """Write the new turns through the pipeline; returns what failed."""
        if self.embedder is None and self.settings.ingest.embed:
            self.embedder = make_embedder(self.settings.embedding)  # once, then reused
        rep = await ingest_parsed(
            self.db, self.settings, [b.build()], hooks=self.hooks, embedder=self.embedder
        )
        return [*(i.reason for i in rep.issues), *rep.hook_errors]


def turn_keys(turns: Sequence[NewTurn], failures: list[str]) -> list[str | None]:
    """A content-hash key per valid turn (`api:<hash>:<n>`), None (and a failure) per invalid one.

    Equal messages in one call are told apart by their position among equals (`n`), so repeating
    a call maps every turn to the key it had.
    """
    keys: list[str | None] = []
    seen: dict[str, int] = {}
    for i, t in enumerate(turns):
        if t.role not in _ROLES:
            failures.append(f"turn {i}: role {t.role!r} is not one of {sorted(_ROLES)}")
            keys.append(None)
        elif not t.text.strip():
            failures.append(f"turn {i}: empty text")
            keys.append(None)
        else:
            when = t.timestamp.isoformat() if t.timestamp else ""
            base = content_hash(f"{t.role}|{t.speaker}|{t.text}|{when}")
            seen[base] = seen.get(base, 0) + 1
            keys.append(f"api:{base}:{seen[base]}")
    return keys


def _continue(
    existing: Session | None, project: str, session_key: str, title: str
) -> SessionCursor:
    """A cursor that continues a stored session's ordinals, statistics and metadata."""
    cursor = SessionCursor(
        key=session_key, project=project, title=title or (existing.title if existing else "")
    )
    if existing is not None:
        cursor.stats = stats_of(existing)
        cursor.next_ordinal = existing.turn_count
        cursor.meta = dict(existing.meta)
        cursor.date = existing.valid_from
    return cursor


def _add(b: SessionBuilder, t: NewTurn, key: str, now: datetime) -> None:
    ts = t.timestamp or now
    ts = ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts
    role: Role = t.role  # type: ignore[assignment]  # checked against _ROLES in `turn_keys`
    if role == "assistant" and t.tool_name:
        b.add_tool_call(t.tool_name)
    b.add_turn(
        key=key,
        role=role,
        text=t.text,
        timestamp=ts,
        line=None,
        speaker=t.speaker or role,
        tool_name=t.tool_name,
    )
