"""Seeding helpers for REM-cycle tests: knowledge written through the shared record mappers and
the aggregates' own query files, with planted structure (clusters, duplicates, stale items)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Correction, Fact, Lesson, Session, Topic, Turn
from graph.records import (
    correction_to_row,
    embedding_rows,
    fact_to_row,
    lesson_to_row,
    session_to_row,
    topic_to_row,
    turn_to_row,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
DIM = 384


def vec(direction: int, seed: int, noise: float = 0.01) -> tuple[float, ...]:
    """A unit-ish vector near basis direction `direction` (planted clusters)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(0, noise, DIM)
    v[direction] += 1.0
    v /= np.linalg.norm(v)
    return tuple(float(x) for x in v)


async def put_sessions(db: GraphDB, sessions: Sequence[Session]) -> None:
    if sessions:
        await db.write(Q("session.upsert_many"), rows=[session_to_row(s) for s in sessions])


async def put_turns(db: GraphDB, turns: Sequence[Turn]) -> None:
    if turns:
        await db.write(Q("turn.upsert_many"), rows=[turn_to_row(t) for t in turns])


async def put_topics(db: GraphDB, topics: Sequence[Topic]) -> None:
    await db.write(Q("topic.upsert_many"), rows=[topic_to_row(t) for t in topics])
    if emb := embedding_rows(topics):
        await db.write(Q("topic.set_embeddings"), rows=emb)


async def put_lessons(db: GraphDB, lessons: Sequence[Lesson]) -> None:
    await db.write(Q("lesson.upsert_many"), rows=[lesson_to_row(x) for x in lessons])
    if emb := embedding_rows(lessons):
        await db.write(Q("lesson.set_embeddings"), rows=emb)


async def put_corrections(db: GraphDB, corrections: Sequence[Correction]) -> None:
    await db.write(Q("correction.upsert_many"), rows=[correction_to_row(x) for x in corrections])
    if emb := embedding_rows(corrections):
        await db.write(Q("correction.set_embeddings"), rows=emb)


async def put_facts(db: GraphDB, facts: Sequence[Fact]) -> None:
    await db.write(Q("fact.upsert_many"), rows=[fact_to_row(x) for x in facts])
    if emb := embedding_rows(facts):
        await db.write(Q("fact.set_embeddings"), rows=emb)


def at(days_ago: float) -> datetime:
    return NOW - timedelta(days=days_ago)
