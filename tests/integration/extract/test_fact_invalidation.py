"""Scoped invalidation: a new fact closes only same-subject-and-predicate facts it overlaps."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from core.timeutil import now_ms, to_ms
from graph.db import GraphDB
from graph.models import Fact
from graph.repositories.facts import FactRepository
from ingest.extract.facts import assert_facts, fact_id

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _fact(project: str, s: str, p: str, o: str, day: int) -> Fact:
    vf = T0 + timedelta(days=day)
    return Fact(
        id=fact_id(project, s, p, o, to_ms(vf)),
        project=project,
        subject=s,
        predicate=p,
        object=o,
        kind="decision",
        statement=f"{s} {p} {o}",
        valid_from=vf,
    )


async def test_200_facts_exactly_30_contradictions_closed(graph_db: GraphDB) -> None:
    rng = random.Random(7)
    repo = FactRepository(graph_db)
    subjects = [f"subject-{i}" for i in range(20)]
    base: list[Fact] = []
    # 170 unrelated facts: 20 subjects × distinct predicates, each predicate used once.
    for i in range(170):
        s = subjects[i % 20]
        base.append(_fact("p", s, f"pred-{i}", f"obj-{i}", day=rng.randint(0, 50)))
    now = now_ms() - 60_000  # record times in the past, so default as-of reads see them
    first = await assert_facts(repo, "p", base, now_ms=now)
    assert len(first.added) == 170
    assert first.invalidated == []
    # 30 true contradictions: later facts with the same subject+predicate and a new object.
    targets = rng.sample(base, 30)
    newer = [
        _fact("p", t.subject, t.predicate, f"new-{t.object}", day=100 + k)
        for k, t in enumerate(targets)
    ]
    # Plus decoys that must not close anything: same subject, new predicate; same predicate on
    # another subject; and a restatement of an existing fact.
    decoy_subject = [
        _fact("p", t.subject, f"{t.predicate}-other", "x", day=120) for t in targets[:5]
    ]
    decoy_pred = [_fact("p", "subject-unknown", targets[0].predicate, "y", day=120)]
    restated = (
        [_fact("p", base[0].subject, base[0].predicate, base[0].object, day=130)]
        if base[0] not in targets
        else []
    )
    later = await assert_facts(
        repo, "p", [*newer, *decoy_subject, *decoy_pred, *restated], now_ms=now + 1000
    )
    assert sorted(later.invalidated) == sorted(t.id for t in targets)
    everything = await repo.list_by_project("p")
    # Superseded facts END in valid time; none is retracted in record time.
    ended = {f.id for f in everything if f.valid_to is not None}
    assert ended == {t.id for t in targets}
    assert [f.id for f in everything if f.expired_at is not None] == []
    by_id = {f.id: f for f in everything}
    for t, n in zip(targets, newer, strict=True):
        assert by_id[t.id].valid_to == n.valid_from
    active = await repo.list_active("p")
    assert len(active) == 200 - 30 + 5 + 1  # 170 + 30 new − 30 closed + 6 decoys
    # Re-asserting the same batch is a no-op.
    again = await assert_facts(repo, "p", newer, now_ms=now + 2000)
    assert again.added == []
    assert again.invalidated == []
    assert len(await repo.list_by_project("p")) == len(everything)


async def test_supersedes_edge_and_as_of(graph_db: GraphDB) -> None:
    repo = FactRepository(graph_db)
    old = _fact("p", "database", "uses", "SQLite", day=0)
    new = _fact("p", "database", "uses", "PostgreSQL", day=10)
    now = now_ms() - 60_000
    await assert_facts(repo, "p", [old], now_ms=now)
    out = await assert_facts(repo, "p", [new], now_ms=now + 5)
    assert out.invalidated == [old.id]
    mid = to_ms(T0 + timedelta(days=5))
    as_of_mid = await repo.list_active("p", as_of=mid, known_at=now + 1)
    assert [f.object for f in as_of_mid] == ["SQLite"]
    current = await repo.list_active("p")
    assert [f.object for f in current] == ["PostgreSQL"]
    # Before the new fact was recorded, the graph did not know PostgreSQL.
    later_day = to_ms(T0 + timedelta(days=20))
    believed = await repo.list_active("p", as_of=later_day, known_at=now + 1)
    assert "PostgreSQL" not in [f.object for f in believed]
    known = await repo.list_active("p", as_of=later_day, known_at=now + 10)
    assert [f.object for f in known] == ["PostgreSQL"]
    # At the default knownAt (now) the valid-time history stays readable ...
    assert [f.object for f in await repo.list_active("p", as_of=mid)] == ["SQLite"]
    # ... and before the supersession was recorded, SQLite was believed to hold still.
    assert [f.object for f in believed] == ["SQLite"]
    assert believed[0].valid_to is None


async def test_berlin_lisbon_porto_as_of_default_known_at(graph_db: GraphDB) -> None:
    """Issue 14: after Berlin (Jan) → Lisbon (Jul) → Porto (Oct), as-of reads at the default
    knownAt see each residence in its own time."""
    repo = FactRepository(graph_db)
    t = datetime(2026, 1, 10, tzinfo=UTC)
    now = now_ms() - 60_000
    for k, (city, day) in enumerate([("Berlin", 0), ("Lisbon", 180), ("Porto", 270)]):
        vf = t + timedelta(days=day)
        f = Fact(
            id=fact_id("p", "user", "lives in", city, to_ms(vf)),
            project="p",
            subject="user",
            predicate="lives in",
            object=city,
            kind="other",
            statement=f"user lives in {city}",
            valid_from=vf,
        )
        await assert_facts(repo, "p", [f], now_ms=now + k * 1000)

    def at(day: int) -> int:
        return to_ms(t + timedelta(days=day))

    assert [f.object for f in await repo.list_active("p", as_of=at(100))] == ["Berlin"]
    assert [f.object for f in await repo.list_active("p", as_of=at(200))] == ["Lisbon"]
    assert [f.object for f in await repo.list_active("p", as_of=at(300))] == ["Porto"]
    # Known before Lisbon was ingested: Berlin, still open.
    early = await repo.list_active("p", as_of=at(300), known_at=now + 500)
    assert [(f.object, f.valid_to) for f in early] == [("Berlin", None)]


async def test_moving_back_is_a_new_fact(graph_db: GraphDB) -> None:
    repo = FactRepository(graph_db)
    now = now_ms() - 60_000
    facts = [
        _fact("p", "user", "lives in", "Berlin", day=0),
        _fact("p", "user", "lives in", "Lisbon", day=10),
        _fact("p", "user", "lives in", "Berlin", day=20),
    ]
    for k, f in enumerate(facts):
        out = await assert_facts(repo, "p", [f], now_ms=now + k)
        assert out.added == [f.id]
    mid = to_ms(T0 + timedelta(days=15))
    assert [f.object for f in await repo.list_active("p", as_of=mid)] == ["Lisbon"]
    assert [f.object for f in await repo.list_active("p")] == ["Berlin"]


async def test_late_fact_does_not_close_current(graph_db: GraphDB) -> None:
    repo = FactRepository(graph_db)
    current = _fact("p", "database", "uses", "PostgreSQL", day=10)
    late = _fact("p", "database", "uses", "SQLite", day=0)
    now = now_ms() - 60_000
    await assert_facts(repo, "p", [current], now_ms=now)
    out = await assert_facts(repo, "p", [late], now_ms=now + 5)
    assert out.added == [late.id]
    assert out.invalidated == []
    stored = {f.id: f for f in await repo.list_by_project("p")}
    assert stored[current.id].is_open
    assert stored[late.id].valid_to == current.valid_from
    assert stored[late.id].expired_at is None


async def test_late_fact_ends_at_the_earliest_later_start(graph_db: GraphDB) -> None:
    repo = FactRepository(graph_db)
    now = now_ms() - 60_000
    await assert_facts(repo, "p", [_fact("p", "db", "uses", "A", day=10)], now_ms=now)
    await assert_facts(repo, "p", [_fact("p", "db", "uses", "B", day=20)], now_ms=now + 1)
    late = _fact("p", "db", "uses", "C", day=0)
    await assert_facts(repo, "p", [late], now_ms=now + 2)
    stored = {f.id: f for f in await repo.list_by_project("p")}
    assert stored[late.id].valid_to == T0 + timedelta(days=10)


async def test_explicit_contradiction_closes_other_predicate(graph_db: GraphDB) -> None:
    repo = FactRepository(graph_db)
    old = _fact("p", "api", "style", "REST", day=0)
    new = _fact("p", "api", "protocol", "GraphQL", day=3)
    now = now_ms() - 60_000
    await assert_facts(repo, "p", [old], now_ms=now)
    out = await assert_facts(repo, "p", [new], now_ms=now + 5, contradicts=[(new.id, old.id)])
    assert out.invalidated == [old.id]
    stored = {f.id: f for f in await repo.list_by_project("p")}
    assert stored[old.id].valid_to == new.valid_from


async def test_a_new_value_keeps_the_kind_of_thing_the_old_one_was(graph_db: GraphDB) -> None:
    """ "(database)" after Postgres stays said after the store moves to a name no lexicon knows."""
    repo = FactRepository(graph_db)
    old = _fact("p", "analytics store", "uses", "Postgres", day=0)
    old = old.model_copy(update={"statement": "p: analytics store uses Postgres (database)"})
    new = _fact("p", "analytics store", "uses", "Quarkbase", day=10)
    other = _fact("p", "job queue", "uses", "Hopper", day=10)
    now = now_ms() - 60_000
    await assert_facts(repo, "p", [old], now_ms=now)
    await assert_facts(repo, "p", [new, other], now_ms=now + 5)
    current = {f.object: f.statement for f in await repo.list_active("p")}
    assert current == {
        "Quarkbase": "analytics store uses Quarkbase (database)",
        "Hopper": "job queue uses Hopper",  # nothing replaced: nothing to inherit
    }


async def test_a_fact_said_to_correct_a_mistake_retracts_the_wrong_one(graph_db: GraphDB) -> None:
    repo = FactRepository(graph_db)
    now = now_ms() - 60_000
    wrong = _fact("p", "user", "works at", "Initech", day=0)
    await assert_facts(repo, "p", [wrong], now_ms=now)
    right = _fact("p", "user", "works at", "Initrode", day=30)
    out = await assert_facts(repo, "p", [right], now_ms=now + 1000, corrects=frozenset({right.id}))
    assert out.invalidated == [wrong.id]
    # at any asOf, as known now: Initrode, all along; as known before the correction: Initech
    for day in (5, 40):
        as_of = to_ms(T0 + timedelta(days=day))
        got = await repo.list_active("p", as_of=as_of, known_at=now + 2000)
        assert [f.object for f in got] == ["Initrode"], day
    before = await repo.list_active("p", as_of=to_ms(T0 + timedelta(days=5)), known_at=now + 500)
    assert [f.object for f in before] == ["Initech"]
    # the wrong one keeps its valid interval: it was retracted, not ended
    [old] = [f for f in await repo.list_by_project("p") if f.id == wrong.id]
    assert old.valid_to is None
    assert old.expired_at is not None
