"""Property: GraphQL `facts`, `corrections` and `context` agree with a small bi-temporal model.

Random sequences of the four operations (assert, supersede, retract, close), each at its own
event time (valid time) and a strictly later record time, run through the production write paths
(`assert_facts` as ingest applies it, `ScopedRepository.close_fact`/`retract_fact` behind the
`closeFact`/`retractFact` mutations, `CorrectionRepository.close_many` as AUDN's INVALIDATE, and
the REM merge that retires a duplicate correction in record time). Then, for a grid of (`asOf`,
`knownAt`), the GraphQL reads must return exactly what the reference model below says.

The model is the semantics the table of docs/time.md states:
- a record is readable at `knownAt` when `recorded_at <= knownAt < expired_at`;
- it holds at `asOf` when `valid_from <= asOf < valid_to`, with `valid_to` as it was believed at
  `knownAt` (an end recorded later than `knownAt` was not known yet);
- supersede and close end a record in valid time only; retract ends it in record time only;
- assert of a fact: the same statement at the same event time is a no-op; the same object while
  a stored record of that key still holds is a restatement (no change); otherwise every stored
  record of the key that holds at the new start ends there, and the new record ends at the
  earliest later start of a stored record of the key (learned late).

Runs on every available engine (`any_db`: the embedded FalkorDB always, Neo4j when configured).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from core.ids import make_id
from core.timeutil import OPEN, from_ms, now_ms, to_ms
from graph.db import GraphDB
from graph.models import Correction, Fact
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.rem import CorrectionMerge, RemRepository
from graph.repositories.scoped import ScopedRepository
from ingest.extract.facts import assert_facts, fact_id
from tests.shared_embedder import shared_local_embedder

T0 = datetime(2026, 1, 1, tzinfo=UTC)
HOUR = 3_600_000
KEYS = (("user", "lives in"), ("user", "works at"))
OBJECTS = ("Berlin", "Lisbon", "Porto", "Madrid")
RULES = ("always use yarn", "always use pnpm", "never use npm", "prefer bun")
DAYS = 40


def day_ms(d: int) -> int:
    return to_ms(T0 + timedelta(days=d))


# --- the reference model -------------------------------------------------------------------------


@dataclass
class Rec:
    """One record: a fact `(key, obj)` or a correction (`key` = "rule", `obj` = its text)."""

    id: str
    key: tuple[str, str]
    obj: str
    vf: int
    vt: int
    recorded: int
    expired: int = OPEN
    was: list[tuple[int, int]] = field(default_factory=list)
    """(valid_to believed before, record time it stopped being believed)."""

    def vt_at(self, known: int) -> int:
        return next((v for v, until in self.was if until > known), self.vt)

    def visible(self, as_of: int, known: int) -> bool:
        readable = self.recorded <= known < self.expired
        return readable and self.vf <= as_of < self.vt_at(known)

    def end(self, t: int, now: int) -> None:
        """End in valid time at `t` (only ever earlier), remembering the end believed before."""
        if t < self.vt:
            self.was.append((self.vt, now))
            self.vt = t


@dataclass
class Model:
    facts: dict[str, Rec] = field(default_factory=dict)
    rules: dict[str, Rec] = field(default_factory=dict)

    def live(self, recs: dict[str, Rec], now: int) -> list[Rec]:
        return [r for r in recs.values() if r.expired > now]

    def assert_fact(self, rid: str, key: tuple[str, str], obj: str, t: int, now: int) -> None:
        if rid in self.facts:
            return
        live = [r for r in self.live(self.facts, now) if r.key == key]
        if any(r.obj == obj and r.vt > t for r in live):
            return  # a restatement of what still holds
        end = OPEN
        for r in live:
            if r.vt <= t:
                continue
            if r.vf <= t:
                r.end(t, now)
            else:
                end = min(end, r.vf)
        self.facts[rid] = Rec(rid, key, obj, t, end, now)


# --- operations ----------------------------------------------------------------------------------

day = st.integers(0, DAYS)
fact_op = st.one_of(
    st.tuples(st.just("assert"), st.integers(0, len(KEYS) - 1), st.sampled_from(OBJECTS), day),
    st.tuples(st.just("close"), st.integers(0, 20), day),
    st.tuples(st.just("retract"), st.integers(0, 20)),
)
rule_op = st.one_of(
    st.tuples(st.just("assert"), st.sampled_from(RULES), day),
    st.tuples(st.just("supersede"), st.integers(0, 20), st.sampled_from(RULES), day),
    st.tuples(st.just("close"), st.integers(0, 20), day),
    st.tuples(st.just("retract"), st.integers(0, 20), st.integers(0, 20)),
)
ops = st.lists(st.one_of(fact_op.map(lambda o: ("fact", o)), rule_op.map(lambda o: ("rule", o))))


@dataclass
class World:
    db: GraphDB
    client: httpx.AsyncClient
    key: str


@pytest.fixture
async def world(any_db: GraphDB, graph_settings: Any) -> AsyncIterator[World]:
    _, secret = await ApiKeyRepository(any_db).create("prop", ["*"])
    settings_ = ApiSettings(
        env="test",
        engine=graph_settings.engine,
        graph_name=graph_settings.graph_name,
        falkordb=graph_settings.falkordb,
        embedded=graph_settings.embedded,
        # a property test sends hundreds of reads at once: beyond the default per-key rate limit
        api={"gc_freeze": False, "rate_per_s": 1e6, "rate_burst": 10**6},
    )
    app = create_app(settings_, ApiServices(db=any_db, embedder=shared_local_embedder()))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield World(any_db, c, secret)


def _fact(project: str, key: tuple[str, str], obj: str, t: int) -> Fact:
    return Fact(
        id=fact_id(project, key[0], key[1], obj, t),
        project=project,
        subject=key[0],
        predicate=key[1],
        object=obj,
        kind="other",
        statement=f"{key[0]} {key[1]} {obj}",
        valid_from=from_ms(t),
    )


def _rule(project: str, text: str, t: int, now: int) -> Correction:
    return Correction(
        id=make_id("correction", project, text, t),
        project=project,
        rule_text=text,
        corrected_behaviour=text,
        valid_from=from_ms(t),
        recorded_at=from_ms(now),
        last_seen=from_ms(t),
    )


def _pick(recs: dict[str, Rec], i: int, now: int) -> Rec | None:
    live = sorted((r for r in recs.values() if r.expired > now), key=lambda r: r.id)
    return live[i % len(live)] if live else None


async def _apply_fact(w: World, m: Model, project: str, op: tuple[Any, ...], now: int) -> None:
    if op[0] == "assert":
        key, t = KEYS[op[1]], day_ms(op[3])
        f = _fact(project, key, op[2], t)
        await assert_facts(FactRepository(w.db), project, [f], now_ms=now)
        m.assert_fact(f.id, key, op[2], t, now)
        return
    r = _pick(m.facts, op[1], now)
    if r is None:
        return
    scoped = ScopedRepository(w.db)
    if op[0] == "close":
        t = day_ms(op[2])
        closed = await scoped.close_fact(r.id, ["*"], now, t)
        if r.vt > t and r.vf <= t:
            assert closed is not None
            r.end(t, now)
        else:
            assert closed is None
    else:
        assert await scoped.retract_fact(r.id, ["*"], now) is not None
        r.expired = now


async def _apply_rule(w: World, m: Model, project: str, op: tuple[Any, ...], now: int) -> None:
    repo = CorrectionRepository(w.db)
    if op[0] in {"assert", "supersede"}:
        text, t = (op[1], op[2]) if op[0] == "assert" else (op[2], op[3])
        old = _pick(m.rules, op[1], now) if op[0] == "supersede" else None
        c = _rule(project, text, day_ms(t), now)
        if c.id not in m.rules:
            await repo.upsert_many([c])
            m.rules[c.id] = Rec(c.id, ("rule", ""), text, day_ms(t), OPEN, now)
        if old is not None and old.id != c.id:
            await repo.close_many([(old.id, day_ms(t))], now=now)
            old.end(day_ms(t), now)
        return
    r = _pick(m.rules, op[1], now)
    if r is None:
        return
    if op[0] == "close":
        await repo.close_many([(r.id, day_ms(op[2]))], now=now)
        r.end(day_ms(op[2]), now)
        return
    keep = _pick(m.rules, op[2], now)
    if keep is None or keep.id == r.id:
        return
    stored = {c.id: c for c in await repo.get_many([keep.id]) if c is not None}
    await RemRepository(w.db).merge_corrections([CorrectionMerge(stored[keep.id], r.id, 0.99)], now)
    r.expired = now  # the duplicate retires in record time; its valid time is untouched


FACTS = """query($p: String, $a: DateTime, $k: DateTime) {
  facts(project: $p, asOf: $a, knownAt: $k, first: 100) {
    ... on FactConnection { edges { node { id } } } } }"""
RULES_Q = """query($p: String, $a: DateTime, $k: DateTime) {
  corrections(project: $p, asOf: $a, knownAt: $k, first: 100) {
    ... on CorrectionConnection { edges { node { id } } } } }"""
CONTEXT = """query($q: String!, $p: String, $a: DateTime, $k: DateTime) {
  context(query: $q, project: $p, asOf: $a, knownAt: $k, limit: 50) {
    __typename ... on ContextPayload { items { id kind } } ... on InvalidInput { message } } }"""
WORDS = " ".join(["user lives in works at", *OBJECTS, *RULES])


async def _ids(w: World, query: str, field_: str, **variables: Any) -> set[str]:
    r = await w.client.post(
        "/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {w.key}"},
    )
    body = r.json()
    assert "errors" not in body, body
    return {e["node"]["id"] for e in body["data"][field_]["edges"]}


async def _context(w: World, **variables: Any) -> dict[str, set[str]]:
    r = await w.client.post(
        "/graphql",
        json={"query": CONTEXT, "variables": {"q": WORDS, **variables}},
        headers={"Authorization": f"Bearer {w.key}"},
    )
    body = r.json()
    assert "errors" not in body, body
    assert body["data"]["context"]["__typename"] == "ContextPayload", body
    out: dict[str, set[str]] = {"FACT": set(), "CORRECTION": set()}
    for it in body["data"]["context"]["items"]:
        out.setdefault(it["kind"], set()).add(it["id"])
    return out


def _iso(ms: int) -> str:
    return from_ms(ms).isoformat()


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seq=ops.filter(lambda s: 3 <= len(s) <= 12), as_of_days=st.lists(day, min_size=2))
async def test_reads_agree_with_the_bitemporal_model(
    world: World, seq: list[tuple[str, tuple[Any, ...]]], as_of_days: list[int]
) -> None:
    project = f"bt-{uuid.uuid4().hex[:8]}"
    model = Model()
    r0 = now_ms() - 30 * 24 * HOUR
    for i, (kind, op) in enumerate(seq):
        apply = _apply_fact if kind == "fact" else _apply_rule
        await apply(world, model, project, op, r0 + i * HOUR)
    known_points: list[int | None] = [r0 + i * HOUR + HOUR // 2 for i in range(-1, len(seq))]
    as_of_points: list[int | None] = [day_ms(d) + 1 for d in sorted(set(as_of_days))[:4]]
    as_of_points.append(None)
    # Every fourth record time, then the default knownAt (now).
    for known in [*known_points[:: max(1, len(known_points) // 4)], None]:
        k = now_ms() if known is None else known
        for as_of in as_of_points:
            a = now_ms() if as_of is None else as_of
            v = {"p": project, "a": None if as_of is None else _iso(as_of)}
            v["k"] = None if known is None else _iso(known)
            want_f = {r.id for r in model.facts.values() if r.visible(a, k)}
            want_r = {r.id for r in model.rules.values() if r.visible(a, k)}
            assert await _ids(world, FACTS, "facts", **v) == want_f, (as_of, known)
            assert await _ids(world, RULES_Q, "corrections", **v) == want_r, (as_of, known)
            got = await _context(world, **v)
            # `context` never shows what the model hides; it may rank some visible items out.
            assert got["FACT"] <= want_f, (as_of, known)
            assert got["CORRECTION"] <= want_r, (as_of, known)
