"""`RecallRepository`: the candidate queries behind `context` and `search`, as typed rows.

Every method takes `projects` (the caller's scope; `("*",)` is every project) and never returns a
row outside it; an empty scope returns nothing without asking the engine. Free text is escaped for
the engine here (`GraphDB.fulltext_query`), so callers pass words, never engine syntax. Scores are
higher-is-better on both engines: engine relevance for fulltext, the cosine similarity in [-1, 1]
for vectors (see `cypher/README.md`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.timeutil import OPEN
from graph.cypher import Q, QueryRef
from graph.db import GraphDB
from graph.kinds import ItemKind
from graph.models import CANDIDATE

_TURN_FULLTEXT = Q("recall.turn_fulltext")
_TURN_VECTOR = Q("recall.turn_vector")
_TURN_VECTOR_EXACT = Q("recall.turn_vector_exact")
_TURNS_FETCH = Q("recall.turns_fetch")
_TURN_TEXTS = Q("recall.turn_texts")
_SPEAKERS = Q("recall.speakers")
_TURN_KEYS = Q("recall.turn_keys")
_TURN_STATS = Q("recall.turn_stats")
_TURN_TERM_DF = Q("recall.turn_term_df")
_KNOWLEDGE_FULLTEXT = Q("recall.knowledge_fulltext")
_KNOWLEDGE_VECTOR = Q("recall.knowledge_vector")
_KNOWLEDGE_SIMILARITY = Q("recall.knowledge_similarity")
_KNOWLEDGE_OF_TURNS = Q("recall.knowledge_of_turns")
_RULES_IN_FORCE = Q("recall.rules_in_force")
_RULES_NEXT_CHANGE = Q("recall.rules_next_change")
_INDEX_KNOWLEDGE = Q("knowledge_index.items")
_INDEX_KNOWLEDGE_TIMES = Q("knowledge_index.times")
_INDEX_TURNS = Q("turn_index.turns")
_INDEX_TURNS_BY_ID = Q("turn_index.turns_by_id")
_INDEX_SESSIONS = Q("turn_index.sessions")
_TURN_CHANGES = Q("turn_index.changes")


@dataclass(frozen=True, slots=True)
class TurnHit:
    """One turn a search found: its id and score (higher is better)."""

    id: str
    score: float
    text: str | None = None
    """The turn's text when the search read it (fulltext), else None."""


@dataclass(slots=True)  # not frozen: ~270 are built per `context` call, 2.7 -> 0.7 µs each
class TurnFacts:
    """What ranking needs to know about a candidate turn (its text is read apart, when needed)."""

    id: str
    project: str | None
    session_id: str | None
    ordinal: int | None
    speaker: str
    """The speaker's name; empty when the turn has none."""
    tokens: int
    """Stored token estimate; 0 when unknown."""
    valid_from: int | None
    valid_to: int | None
    """End of the event interval in epoch ms; None while the turn still holds."""
    quality: float | None
    """Quality of the turn's session in [0, 1], when scored."""
    similarity: float | None
    """Cosine similarity to the query vector; None without a vector or an embedding."""
    vector_pending: bool = False
    """The turn waits in the embedding backlog (searchable by text, not yet by vector)."""


@dataclass(frozen=True, slots=True)
class KnowledgeHit:
    """A knowledge item (lesson, correction, fact, topic, reference layer, primer) as a candidate.

    The columns of `cypher/recall/knowledge_columns.cypher`; fields a kind does not have are None.
    """

    kind: ItemKind
    id: str
    project: str | None
    text: str
    score: float
    """Engine score of the search that found it (0 for items found through their turns)."""
    confidence: float | None
    weight: float | None
    effectiveness: float | None
    reinforcement: float | None
    last_seen: int | None
    half_life_days: float | None
    status: str | None
    """Correction status (`rule`, ...), fact kind (`decision`, `preference`, ...), topic phase
    or primer period."""
    valid_from: int | None
    valid_to: int | None
    """End of the event interval in epoch ms; None while the item still holds."""
    turn_ids: tuple[str, ...]
    """Turns the item points back to (provenance; for a topic, turns mentioning it)."""
    subject: str | None
    """Who or what a fact is about (`user`, a person, a service); None for other kinds."""
    predicate: str | None = None
    """A fact's predicate (`uses`, `lives in`); None for other kinds."""


_ENDS_A_TURN = frozenset({ItemKind.FACT, ItemKind.CORRECTION})
"""Derived kinds whose end says what their turn said no longer holds (a lesson's does not)."""


@dataclass(frozen=True, slots=True)
class DerivedOfTurns:
    """What `RecallRepository.knowledge_of_turns` found from a set of turns."""

    live: list[KnowledgeHit]
    """Items valid at the read's as-of, one hit per (item, turn)."""
    superseded: frozenset[str]
    """Turns a fact or correction was derived from that has ended by the as-of."""


def derived_of_turns(hits: Sequence[KnowledgeHit], as_of: int) -> DerivedOfTurns:
    """Split one hit per (item, turn) read from turns into the live items and the ended ones' turns.

    `hits` hold every item derived from the turns that started by `as_of` and was recorded as
    known then, their `valid_to` as known; those ended by `as_of` mark their turns superseded
    when they said what the turn said (a fact or correction, `_ENDS_A_TURN`).
    """
    live = [h for h in hits if h.valid_to is None or h.valid_to > as_of]
    ended = frozenset(
        t
        for h in hits
        if h.valid_to is not None and h.valid_to <= as_of and h.kind in _ENDS_A_TURN
        for t in h.turn_ids
    )
    return DerivedOfTurns(live, ended)


@dataclass(frozen=True, slots=True)
class KnowledgeTimes:
    """A knowledge item's raw times and embedding (`cypher/knowledge_index/times.cypher`)."""

    id: str
    valid_from: int | None
    valid_to: int | None
    """The current end as stored (`OPEN` while open), not the end as known at some time."""
    valid_to_was: tuple[int, ...]
    valid_to_until: tuple[int, ...]
    """`valid_to_was[i]` was the end until `valid_to_until[i]` (see `fact.supersede`)."""
    recorded_at: int | None
    expired_at: int | None
    embedding: Sequence[float] | None


@dataclass(frozen=True, slots=True)
class TurnStats:
    """Collection statistics of the turns of a scope (BM25 needs both)."""

    turns: int
    avg_chars: float
    """Mean turn length in characters (0 without turns)."""


@dataclass(frozen=True)
class IndexedTurn:
    """One turn as the in-process turn index holds it (`recall.turn_index`)."""

    id: str
    session_id: str | None
    ordinal: int | None
    speaker: str
    tokens: int
    valid_from: int | None
    valid_to: int | None
    """Raw, the `OPEN` sentinel included: the index compares it as the engine does."""
    recorded_at: int | None
    expired_at: int | None
    vector_pending: bool
    text: str
    embedding: list[float] | None


def _indexed_turn(r: Mapping[str, Any]) -> IndexedTurn:
    return IndexedTurn(
        id=r["id"],
        session_id=r["session_id"],
        ordinal=_opt_int(r["ordinal"]),
        speaker=r["speaker"] or "",
        tokens=int(r["tokens"] or 0),
        valid_from=_opt_int(r["valid_from"]),
        valid_to=_opt_int(r["valid_to"]),
        recorded_at=_opt_int(r["recorded_at"]),
        expired_at=_opt_int(r["expired_at"]),
        vector_pending=bool(r["vector_pending"]),
        text=r["text"] or "",
        embedding=r["embedding"],
    )


def _opt_float(v: Any) -> float | None:
    return None if v is None else float(v)


def _opt_int(v: Any) -> int | None:
    return None if v is None else int(v)


def _end(v: Any) -> int | None:
    """An interval end, None while open (the `OPEN` sentinel)."""
    return None if v is None or v >= OPEN else int(v)


def _turn_facts(r: Mapping[str, Any]) -> TurnFacts:
    return TurnFacts(
        id=r["id"],
        project=r["project"],
        session_id=r["session_id"],
        ordinal=_opt_int(r["ordinal"]),
        speaker=r["speaker"] or "",
        tokens=int(r["tokens"] or 0),
        valid_from=_opt_int(r["valid_from"]),
        valid_to=_end(r["valid_to"]),
        quality=_opt_float(r["quality"]),
        similarity=_opt_float(r["similarity"]),
        vector_pending=bool(r.get("vector_pending")),
    )


def _served(rows: Sequence[Mapping[str, Any]]) -> list[KnowledgeHit]:
    """The knowledge rows a read may serve: every one but a candidate correction.

    A candidate (`graph.models.CANDIDATE`) is stored for review and for repetition to promote,
    never handed to a reader; every knowledge read of recall passes through here.
    """
    return [
        _knowledge_hit(r)
        for r in rows
        if not (r["kind"] == "correction" and r["status"] == CANDIDATE)
    ]


def _knowledge_hit(r: Mapping[str, Any]) -> KnowledgeHit:
    return KnowledgeHit(
        kind=ItemKind(r["kind"]),
        id=r["id"],
        project=r["project"],
        text=r["text"] or "",
        score=float(r["score"] or 0.0),
        confidence=_opt_float(r["confidence"]),
        weight=_opt_float(r["weight"]),
        effectiveness=_opt_float(r["effectiveness"]),
        reinforcement=_opt_float(r["reinforcement"]),
        last_seen=_opt_int(r["last_seen"]),
        half_life_days=_opt_float(r["half_life_days"]),
        status=r["status"],
        valid_from=_opt_int(r["valid_from"]),
        valid_to=_end(r["valid_to"]),
        turn_ids=tuple(r["turn_ids"] or ()),
        subject=r["subject"],
        predicate=r.get("predicate"),
    )


class RecallRepository:
    """Candidate generation for recall: turn and knowledge search, expansion, statistics."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    @property
    def db(self) -> GraphDB:
        """The engine this repository reads."""
        return self._db

    async def turn_fulltext(
        self,
        text: str,
        projects: Sequence[str],
        *,
        k: int,
        cap: int,
        as_of: int,
        known_at: int,
    ) -> list[TurnHit]:
        """Up to `k` turns matching any word of `text`, best engine score first, with their text.

        At most `cap` index matches are read (best first where the engine ranks them).
        """
        q = self._db.fulltext_query(text)
        if not q or not projects:
            return []
        rows = await self._db.read(
            _TURN_FULLTEXT,
            q=q,
            k=k,
            cap=cap,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        return [TurnHit(r["id"], float(r["score"]), r["text"] or "") for r in rows]

    async def turn_vector(
        self,
        vector: Sequence[float] | None,
        projects: Sequence[str],
        *,
        k: int,
        k_search: int,
        as_of: int,
        known_at: int,
    ) -> list[TurnHit]:
        """The `k` nearest turns in `projects` among the index's `k_search` nearest overall."""
        return await self._nearest(
            _TURN_VECTOR, vector, projects, k, as_of, known_at, k_search=k_search
        )

    async def turn_vector_exact(
        self,
        vector: Sequence[float] | None,
        projects: Sequence[str],
        *,
        k: int,
        as_of: int,
        known_at: int,
    ) -> list[TurnHit]:
        """The `k` nearest turns in `projects`, every embedded turn there scored (no index).

        Exact, and its cost grows with the scope's size: for scopes small beside the whole
        graph, whose turns the index's nearest overall would miss (`recall.vectors`).
        """
        return await self._nearest(_TURN_VECTOR_EXACT, vector, projects, k, as_of, known_at)

    async def _nearest(
        self,
        query: QueryRef,
        vector: Sequence[float] | None,
        projects: Sequence[str],
        k: int,
        as_of: int,
        known_at: int,
        **extra: Any,
    ) -> list[TurnHit]:
        if vector is None or not projects or k <= 0:
            return []
        rows = await self._db.read(
            query,
            vector=list(vector),
            k=k,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
            **extra,
        )
        return [TurnHit(r["id"], float(r["score"])) for r in rows]

    async def turns_fetch(
        self,
        ids: Sequence[str],
        projects: Sequence[str],
        *,
        top: Sequence[str],
        window: int,
        vector: Sequence[float] | None,
        scored: Collection[str] = (),
    ) -> list[TurnFacts]:
        """The turns `ids` plus those within `window` `NEXT` steps of the turns `top`.

        Expansion stays in each turn's session and in `projects`; `similarity` is the cosine to
        `vector` (None without one, and for the turns `scored`, whose cosine the caller has from
        the vector search: the engine does not compute it twice).
        """
        if not ids or not projects:
            return []
        rows = await self._db.read(
            _TURNS_FETCH,
            ids=list(ids),
            top=list(top),
            projects=list(projects),
            window=window,
            vector=None if vector is None else list(vector),
            scored=list(scored),
        )
        return [_turn_facts(r) for r in rows]

    async def turn_texts(self, ids: Sequence[str], projects: Sequence[str]) -> dict[str, str]:
        """Turn id -> text for the readable turns among `ids`."""
        if not ids or not projects:
            return {}
        rows = await self._db.read(_TURN_TEXTS, ids=list(ids), projects=list(projects))
        return {r["id"]: r["text"] or "" for r in rows}

    async def speakers(self, projects: Sequence[str]) -> tuple[str, ...]:
        """Speaker names of `projects`, most turns first (at most 200)."""
        rows = await self._db.read(_SPEAKERS, projects=list(projects))
        return tuple(str(r["speaker"]) for r in rows if r["speaker"])

    async def turn_keys(self, projects: Sequence[str]) -> dict[str, str]:
        """Native source key -> turn id for every keyed turn of `projects` (evaluations)."""
        rows = await self._db.read(_TURN_KEYS, projects=list(projects))
        return {str(r["source_key"]): str(r["id"]) for r in rows if r["source_key"]}

    async def turn_stats(self, projects: Sequence[str]) -> TurnStats:
        """How many turns `projects` hold and their mean length."""
        rows = await self._db.read(_TURN_STATS, projects=list(projects))
        if not rows:
            return TurnStats(0, 0.0)
        return TurnStats(int(rows[0]["turns"] or 0), float(rows[0]["avg_chars"] or 0.0))

    async def turn_term_df(self, words: Sequence[str]) -> dict[str, int]:
        """Word -> how many turns of the whole index match it (0: none, or not searchable)."""
        engine_word = {w: self._db.fulltext_query(w) for w in words}
        searchable = [q for q in dict.fromkeys(engine_word.values()) if q]
        rows = await self._db.read(_TURN_TERM_DF, words=searchable) if searchable else []
        got = {r["word"]: int(r["df_all"] or 0) for r in rows}
        return {w: got.get(q, 0) for w, q in engine_word.items()}

    async def indexed_turns(self, project: str, *, after: str, limit: int) -> list[IndexedTurn]:
        """Up to `limit` turns of `project` by id after `after` (loading the turn index)."""
        rows = await self._db.read(_INDEX_TURNS, projects=[project], after=after, limit=limit)
        return [_indexed_turn(r) for r in rows]

    async def indexed_turns_by_id(self, project: str, ids: Sequence[str]) -> list[IndexedTurn]:
        """The turns of `project` among `ids` (refreshing the turn index)."""
        if not ids:
            return []
        rows = await self._db.read(_INDEX_TURNS_BY_ID, projects=[project], ids=list(ids))
        return [_indexed_turn(r) for r in rows]

    async def turn_changes(self, project: str, since: int) -> tuple[list[str], list[str]]:
        """(turn ids, session ids) the writes in `project` logged after the clock's `since` changed.

        Ids of other projects a write touched too are among them; reading them back is scoped.
        """
        rows = await self._db.read(_TURN_CHANGES, since=since, projects=[project])
        turns: dict[str, None] = {}
        sessions: dict[str, None] = {}
        for r in rows:
            into = sessions if r["kind"] == "session" else turns
            into.update(dict.fromkeys(r["ids"] or ()))
        return list(turns), list(sessions)

    async def session_quality(
        self, project: str, ids: Sequence[str] | None = None
    ) -> dict[str, float | None]:
        """Session id -> quality of `project`'s sessions (all, or those among `ids`)."""
        rows = await self._db.read(
            _INDEX_SESSIONS, projects=[project], ids=None if ids is None else list(ids)
        )
        return {r["id"]: _opt_float(r["quality"]) for r in rows}

    async def knowledge_fulltext(
        self,
        text: str,
        projects: Sequence[str],
        *,
        k: int,
        cap: int,
        as_of: int,
        known_at: int,
    ) -> list[KnowledgeHit]:
        """Up to `k` items per kind matching any word of `text`, best engine score first.

        Equal scores go by id, in the query's per-kind cut and here, so the list ranks built from
        this order do not depend on how the engine happens to return ties.
        """
        q = self._db.fulltext_query(text)
        if not q or not projects:
            return []
        rows = await self._db.read(
            _KNOWLEDGE_FULLTEXT,
            q=q,
            k=k,
            cap=cap,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        hits = _served(rows)
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits

    async def knowledge_vector(
        self,
        vector: Sequence[float] | None,
        projects: Sequence[str],
        *,
        k: int,
        k_search: int,
        as_of: int,
        known_at: int,
    ) -> list[KnowledgeHit]:
        """The `k` nearest items per kind in `projects` (among each index's `k_search` nearest)."""
        if vector is None or not projects or k <= 0:
            return []
        rows = await self._db.read(
            _KNOWLEDGE_VECTOR,
            vector=list(vector),
            k=k,
            k_search=k_search,
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        return _served(rows)

    async def knowledge_similarity(
        self, ids: Sequence[str], projects: Sequence[str], vector: Sequence[float] | None
    ) -> dict[str, float]:
        """Item id -> cosine similarity to `vector` for the embedded, readable items `ids`."""
        if not ids or vector is None or not projects:
            return {}
        rows = await self._db.read(
            _KNOWLEDGE_SIMILARITY, ids=list(ids), projects=list(projects), vector=list(vector)
        )
        return {r["id"]: float(r["similarity"]) for r in rows if r["similarity"] is not None}

    async def rules_in_force(
        self, projects: Sequence[str], *, as_of: int, known_at: int, limit: int = 50
    ) -> list[KnowledgeHit]:
        """The corrections of `projects` in force at `as_of` (every stage; confirmed first)."""
        if not projects:
            return []
        rows = await self._db.read(
            _RULES_IN_FORCE, projects=list(projects), as_of=as_of, known_at=known_at, limit=limit
        )
        return _served(rows)

    async def rules_next_change(self, projects: Sequence[str], *, now: int) -> int | None:
        """The first instant after `now` at which `rules_in_force` read at `now` may change.

        A correction or preference of `projects` starts or stops holding then; None: never.
        """
        if not projects:
            return None
        rows = await self._db.read(_RULES_NEXT_CHANGE, projects=list(projects), now=now)
        times = [int(r["next"]) for r in rows if r["next"] is not None]
        return min(times) if times else None

    async def knowledge_of_turns(
        self, ids: Sequence[str], projects: Sequence[str], *, as_of: int, known_at: int
    ) -> DerivedOfTurns:
        """Lessons, corrections and facts derived from the turns `ids`, in one traversal.

        `live`: one hit per (item, turn) of the items valid at `as_of`; `superseded`: the turns
        a fact or correction was derived from that ended by `as_of` (as known at `known_at`).
        """
        if not ids or not projects:
            return DerivedOfTurns([], frozenset())
        rows = await self._db.read(
            _KNOWLEDGE_OF_TURNS,
            ids=list(ids),
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        return derived_of_turns(_served(rows), as_of)

    async def indexed_knowledge(
        self, project: str
    ) -> tuple[list[KnowledgeHit], dict[str, KnowledgeTimes]]:
        """Every knowledge item of `project` (current ends) and each one's times and embedding.

        Two queries, for the in-process knowledge index (`recall.knowledge_index`); the caller
        reads the knowledge clock before them.
        """
        items, times = await asyncio.gather(
            self._db.read(_INDEX_KNOWLEDGE, projects=[project], known_at=OPEN),
            self._db.read(_INDEX_KNOWLEDGE_TIMES, projects=[project]),
        )
        return _served(items), {
            r["id"]: KnowledgeTimes(
                id=r["id"],
                valid_from=_opt_int(r["valid_from"]),
                valid_to=_opt_int(r["valid_to"]),
                valid_to_was=tuple(int(x) for x in r["valid_to_was"] or ()),
                valid_to_until=tuple(int(x) for x in r["valid_to_until"] or ()),
                recorded_at=_opt_int(r["recorded_at"]),
                expired_at=_opt_int(r["expired_at"]),
                embedding=r["embedding"] or None,
            )
            for r in times
        }
