"""The offline extractor plus the knowledge writer on hand-made transcripts, on the real engine."""

from __future__ import annotations

from ai.embed import Embedder
from graph.db import GraphDB
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.snapshots import SnapshotRepository
from graph.repositories.topics import TopicRepository
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from tests.integration.extract.transcripts import (
    lesson_session,
    pytest_session,
    session,
    store,
)


def _hook(embedder: Embedder) -> ExtractionHook:
    return ExtractionHook(IngestSettings(), embedder=embedder)


async def test_correction_seen_in_five_sessions_becomes_a_rule(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    repo = CorrectionRepository(graph_db)
    statuses = []
    for k in range(5):
        s = pytest_session("demo", k)
        await store(graph_db, s)
        await hook.run(graph_db, s)
        [c] = await repo.list_by_project("demo")
        statuses.append(c.status)
    assert statuses == ["correction", "pattern", "pattern", "preference", "rule"]
    assert c.rule_text == "Use pytest instead of unittest."
    assert c.type == "tool_usage"
    assert c.reinforcement == 5
    assert len(c.sessions) == 5
    assert c.original_behaviour == "use unittest"
    sources = await repo.sources(c.id)
    assert len(sources) == 5
    assert sorted(sources) == sorted(c.source_turn_ids)
    # Re-running a counted session changes nothing (AUDN says NOOP).
    before = hook.report.corrections_noop
    await hook.run(graph_db, pytest_session("demo", 4))
    [again] = await repo.list_by_project("demo")
    assert again.reinforcement == 5
    assert hook.report.corrections_noop == before + 1
    assert hook.report.corrections_added == 1
    assert hook.report.corrections_reinforced == 4


async def test_reversed_correction_invalidates_the_old_one(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    repo = CorrectionRepository(graph_db)
    a = session(
        "demo",
        "a",
        0,
        [("assistant", "I used spaces."), ("user", "Always use tabs for indentation.")],
    )
    b = session(
        "demo",
        "b",
        5,
        [("assistant", "Indented with tabs."), ("user", "Don't use tabs for indentation.")],
    )
    for s in (a, b):
        await store(graph_db, s)
        await hook.run(graph_db, s)
    [live] = await repo.list_by_project("demo")
    assert live.rule_text == "Do not use tabs for indentation."
    assert live.type == "style"
    links = await repo.links(live.id)
    types = sorted(t for t, src, _ in links if src == live.id)
    assert "SUPERSEDES" in types
    assert "CONTRADICTS" in types
    assert hook.report.corrections_invalidated == 1


async def test_decision_superseded_later_and_snapshots(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    facts = FactRepository(graph_db)
    s1 = session(
        "demo",
        "d1",
        0,
        [
            ("user", "Let's use SQLite for the database."),
            ("assistant", "OK, SQLite it is."),
            ("user", "TODO: add a migration script"),
        ],
    )
    await store(graph_db, s1)
    await hook.run(graph_db, s1)
    rep1 = await hook.finish(graph_db)
    assert rep1.snapshots == 1
    stored = await SessionRepository(graph_db).get(s1.id)
    assert stored.intent == "Let's use SQLite for the database."
    assert stored.title == "d1"  # enrichment leaves the rest of the session alone
    s2 = session(
        "demo",
        "d2",
        9,
        [
            ("user", "We decided to switch to PostgreSQL for the database."),
            ("assistant", "Migrating the schema to PostgreSQL."),
        ],
    )
    await store(graph_db, s2)
    await hook.run(graph_db, s2)
    await hook.finish(graph_db)
    every = {f.object: f for f in await facts.list_by_project("demo")}
    assert set(every) == {"SQLite", "PostgreSQL", "add a migration script"}
    old, new = every["SQLite"], every["PostgreSQL"]
    assert (old.subject, old.predicate, old.kind) == ("database", "uses", "decision")
    assert old.valid_to == new.valid_from
    assert old.expired_at is None  # it ended (valid time); it was not wrong
    assert new.is_open
    assert await facts.sources(new.id) == list(new.source_turn_ids) == [s2.turns[0].id]
    active = {f.object for f in await facts.list_active("demo")}
    assert active == {"PostgreSQL", "add a migration script"}
    snaps = await SnapshotRepository(graph_db).list_by_project("demo")
    assert len(snaps) == 2
    assert snaps[1].delta_added == (new.id,)
    assert snaps[1].delta_removed == (old.id,)
    assert snaps[1].decision_ids == (new.id,)
    assert len(snaps[1].todo_ids) == 1
    # A run that changes nothing writes no snapshot.
    assert (await hook.finish(graph_db)).snapshots == 2  # cumulative report; no new snapshot
    assert len(await SnapshotRepository(graph_db).list_by_project("demo")) == 2


async def test_lesson_from_error_fix_pass_with_version_history(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    lessons = LessonRepository(graph_db)
    s1 = lesson_session(
        "demo",
        "l1",
        0,
        "The requests package is missing; I'll install it with pip install requests and rerun.",
    )
    await store(graph_db, s1)
    await hook.run(graph_db, s1)
    [lesson] = await lessons.list_by_project("demo")
    assert lesson.category == "problem-solution"
    assert "ModuleNotFoundError: No module named 'requests'" in lesson.title
    assert "pip install requests" in lesson.content
    assert lesson.version == 1
    assert await lessons.sources(lesson.id) == [s1.turns[i].id for i in (2, 3, 4)]
    s2 = lesson_session(
        "demo",
        "l2",
        3,
        "I added requests to the project dependencies in pyproject.toml and reinstalled.",
    )
    await store(graph_db, s2)
    await hook.run(graph_db, s2)
    [refined] = await lessons.list_by_project("demo")
    assert refined.id == lesson.id
    assert refined.version == 2
    assert "pyproject.toml" in refined.content
    assert refined.quality > lesson.quality  # two sources now
    [v1] = await lessons.versions(lesson.id)
    assert (v1.version, v1.content, v1.session_id) == (1, lesson.content, s2.id)
    assert len(await lessons.sources(lesson.id)) == 6
    # Re-running a learned session adds no version.
    await hook.run(graph_db, s2)
    assert len(await lessons.versions(lesson.id)) == 1


async def test_topics_match_across_sessions_and_relate(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    topics = TopicRepository(graph_db)
    lines = [
        ("user", "The vector index on the graph database is slow for large batches."),
        ("assistant", "The vector index rebuild runs on every batch insert."),
        ("user", "Can we batch the vector index updates and cache query plans?"),
        ("assistant", "Yes: batching vector index updates and a query plan cache will help."),
    ]
    s1 = session("alpha", "t1", 0, lines)
    s2 = session("alpha", "t2", 4, [*lines[:2], ("user", "Still slow: the vector index again.")])
    s3 = session("beta", "t3", 6, lines)  # the same subject in another project: its own topic
    for s in (s1, s2, s3):
        await store(graph_db, s)
        await hook.run(graph_db, s)
    await hook.finish(graph_db)
    every = await topics.list_all()
    vi = next(t for t in every if t.title == "vector index" and t.project == "alpha")
    other = next(t for t in every if t.title == "vector index" and t.project == "beta")
    assert other.id != vi.id
    assert (other.projects, other.sessions) == (("beta",), (s3.id,))
    assert set(other.message_ids) <= {t.id for t in s3.turns}
    assert vi.projects == ("alpha",)
    assert set(vi.sessions) == {s1.id, s2.id}
    assert vi.message_count == len(set(vi.message_ids)) >= 5
    assert vi.first_seen == s1.turns[0].timestamp
    assert vi.last_seen == s2.turns[2].timestamp
    assert 0 < vi.weight <= 1
    assert vi.phase == "active"
    assert len(await topics.mentioned_by(vi.id)) == vi.message_count
    related = await topics.related(vi.id)
    assert related, "topics discussed together are RELATED_TO"
    # Re-running a session does not double-count.
    await hook.run(graph_db, s1)
    again = next(t for t in await topics.list_all() if t.id == vi.id)
    assert again.message_count == vi.message_count


async def test_paraphrases_reinforce_one_rule_and_a_reversal_closes_them_all(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    repo = CorrectionRepository(graph_db)
    said = [
        "No, use pnpm, not npm.",
        "Do not use npm for this repo.",
        "Stop reaching for npm.",
        "Never npm.",
    ]
    for k, text in enumerate(said):
        s = session("demo", f"p{k}", 2 * k, [("assistant", "Ran npm install."), ("user", text)])
        await store(graph_db, s)
        await hook.run(graph_db, s)
    [rule] = await repo.list_by_project("demo")
    assert rule.rule_text == "Use pnpm instead of npm."  # one rule, seen in four sessions
    assert (rule.reinforcement, len(rule.sessions)) == (4, 4)
    assert rule.status == "preference"  # "never npm" is a standing instruction: in force
    # "actually X is fine now" reverses it: the rule ends, what the user said now holds
    lift = session("demo", "lift", 10, [("user", "Actually npm is fine now, we dropped pnpm.")])
    await store(graph_db, lift)
    await hook.run(graph_db, lift)
    [now] = await repo.list_by_project("demo")
    assert now.rule_text.startswith("Actually npm is fine now")
    # a lift with nothing to lift adds nothing; "forget what I said" withdraws without a new rule
    for k, text in enumerate(
        ["Actually the weather is fine now.", "Forget what I said about npm."], start=1
    ):
        s = session("demo", f"lift{k}", 10 + 2 * k, [("user", text)])
        await store(graph_db, s)
        await hook.run(graph_db, s)
    assert await repo.list_by_project("demo") == []


async def test_from_now_on_x_instead_of_y_replaces_the_rule_against_x(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    repo = CorrectionRepository(graph_db)
    first = session("web", "a", 0, [("user", "We use Jest here. Don't add Vitest.")])
    later = session(
        "web", "b", 5, [("user", "From now on use Vitest instead of Jest for all new tests.")]
    )
    for s in (first, later):
        await store(graph_db, s)
        await hook.run(graph_db, s)
    [live] = await repo.list_by_project("web")
    assert live.rule_text == "Use Vitest instead of Jest for all new tests."
    assert live.status == "preference"  # it replaces a rule the agent followed: in force
    assert hook.report.corrections_invalidated == 1


async def test_session_complexity_is_stored_and_survives_a_re_ingest(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    sessions = SessionRepository(graph_db)
    short = pytest_session("demo", 0)
    tools = lesson_session("demo", "run", 1, "Installing requests with pip install requests.")
    for s in (short, tools):
        await store(graph_db, s)
        await hook.run(graph_db, s)
    a, b = await sessions.get(short.id), await sessions.get(tools.id)
    assert a.complexity is not None
    assert b.complexity is not None
    assert 0 < a.complexity < b.complexity <= 1  # more turns and tool calls: more complex
    # Ingest rewrites the session without extraction's fields: the stored complexity stays.
    await store(graph_db, tools)
    assert (await sessions.get(tools.id)).complexity == b.complexity


async def test_a_replaced_tool_and_a_habit_given_up_end_facts_of_another_key(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    hook = _hook(embedder)
    facts = FactRepository(graph_db)
    first = session(
        "demo",
        "h1",
        0,
        [
            ("user", "We use Redis for caching sessions."),
            ("assistant", "OK."),
            ("user", "I drink my coffee black, two cups every morning."),
            ("assistant", "Noted."),
        ],
    )
    shop = session(
        "demo",
        "h0",
        1,
        [("user", "My favourite coffee shop is Blue Bottle."), ("assistant", "Nice.")],
    )
    second = session(
        "demo",
        "h2",
        9,
        [
            ("user", "We replaced Redis with Memcached last week."),
            ("assistant", "Noted."),
            ("user", "I've quit coffee entirely, it's green tea only for me now."),
            ("assistant", "Got it."),
        ],
    )
    for s in (first, shop, second):
        await store(graph_db, s)
        await hook.run(graph_db, s)
    every = await facts.list_by_project("demo")
    ended = {f.statement for f in every if f.valid_to is not None}
    assert ended == {
        "demo: caching sessions uses Redis (cache)",
        "The user drinks their coffee black, two cups every morning.",
    }
    live = {f.statement for f in await facts.list_active("demo")}
    assert {"demo: cache uses Memcached", "user has given up coffee"} <= live
    assert not any("Redis" in x or "two cups" in x for x in live)
    # a statement that only mentions coffee says nothing about drinking it: it stays
    assert "user's favourite coffee shop is Blue Bottle" in live
