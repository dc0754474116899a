from datetime import timedelta

from consolidate.pack import context_pack
from consolidate.rollup import week_key
from consolidate.runner import run_job
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.models import Correction, Fact, Lesson, PrimerPeriod, Session
from graph.repositories.primers import PrimerRepository
from tests.integration.consolidate.seed import (
    NOW,
    put_corrections,
    put_facts,
    put_lessons,
    put_sessions,
)

BUDGET: dict[PrimerPeriod, int] = {"daily": 8_000, "weekly": 12_000, "monthly": 15_000}
WORDS = [
    "graph",
    "index",
    "leiden",
    "embedding",
    "primer",
    "rollup",
    "budget",
    "session",
    "turn",
    "lesson",
]


def _text(i: int, n: int) -> str:
    return " ".join(WORDS[(i + k) % len(WORDS)] + str(k % 7) for k in range(n))


async def _history(db: GraphDB, sessions: int = 500) -> None:
    """`sessions` sessions over ~200 days (several per day, some today), with knowledge."""
    ss, ls, cs, fs = [], [], [], []
    for i in range(sessions):
        start = NOW - timedelta(hours=9.5 * i + 0.5)
        ss.append(
            Session(
                id=f"ses_{i:04d}",
                project="p",
                title=f"session {i}: {_text(i, 20)}",
                summary=_text(i + 1, 60),
                started_at=start,
                valid_from=start,
                recorded_at=start,
            )
        )
        if i % 2 == 0:
            ls.append(
                Lesson(
                    id=f"les_{i:04d}",
                    project="p",
                    title=f"lesson {i} {_text(i, 12)}",
                    summary=_text(i, 30),
                    valid_from=start,
                    recorded_at=start,
                )
            )
        if i % 3 == 0:
            cs.append(
                Correction(
                    id=f"cor_{i:04d}",
                    project="p",
                    rule_text=f"rule {i} {_text(i, 15)}",
                    valid_from=start,
                    recorded_at=start,
                )
            )
        if i % 4 == 0:
            fs.append(
                Fact(
                    id=f"fct_{i:04d}",
                    project="p",
                    subject="app",
                    predicate=f"uses{i}",
                    object="x",
                    kind="decision" if i % 8 else "todo",
                    statement=f"decided {i} {_text(i, 14)}",
                    valid_from=start,
                    recorded_at=start,
                )
            )
    await put_sessions(db, ss)
    await put_lessons(db, ls)
    await put_corrections(db, cs)
    await put_facts(db, fs)


async def test_rollups_respect_budgets_archive_sources_and_are_idempotent(graph_db, rem_settings):
    await _history(graph_db)
    report = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    s = report.summary
    assert s["sources"] > 500
    assert s["daily"] > 150
    assert s["weekly"] > 25
    assert s["monthly"] >= 7
    assert s["archived"] > 0
    repo = PrimerRepository(graph_db)
    for period, budget in BUDGET.items():
        primers = await repo.list_primers("p", period, to_ms(NOW))
        assert primers
        assert all(p.size_bytes <= budget for p in primers), period
        assert all(len(p.text.encode()) == p.size_bytes for p in primers)
    # weekly sources are the dailies; dailies of finished weeks are closed, not deleted
    weeklies = await repo.list_primers("p", "weekly", to_ms(NOW))
    dailies = {p.id: p for p in await repo.list_primers("p", "daily", to_ms(NOW))}
    current_week = week_key(NOW.date())
    for w in weeklies:
        assert set(w.source_ids) <= set(dailies)
        closed = [dailies[i].valid_to is not None for i in w.source_ids]
        assert all(not c for c in closed) if w.period_key == current_week else all(closed)

    again = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert again.summary["written"] == 0
    assert again.summary["archived"] == 0


async def test_context_pack_stays_within_35_kb_with_500_sessions(graph_db, rem_settings):
    await _history(graph_db)
    await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    pack = await context_pack(graph_db, "p", now=NOW)
    # monthly + weekly, then the most recent days up to the 25 KB target, today's last
    assert len(pack.primer_ids) >= 3
    assert 20_000 <= pack.size_bytes <= 35_000
    assert pack.size_bytes == len(pack.text.encode())
    assert not pack.cut
    assert "# Monthly primer 2026-11" in pack.text
    assert f"# Daily primer {NOW.date().isoformat()}" in pack.text
    assert "session 0:" in pack.text  # today's session is in today's daily


# -- narrated primers: turns become what happened -------------------------------------------------

TALK = [
    ("Caroline", "Hey Mel! Good to see you!"),
    ("Melanie", "Hi Caroline! I'm swamped with the kids and work these days."),
    ("Caroline", "I went to an LGBTQ support group yesterday and the stories were so powerful."),
    ("Melanie", "That support group sounds inspiring, what stories did you hear there?"),
    ("Caroline", "Transgender stories about courage; the support group made me feel accepted."),
    ("Melanie", "I painted a lake sunrise last year, painting helps me express my feelings."),
    ("Caroline", "Painting looks like a great outlet, I want to try painting with the group."),
    ("Melanie", "Let's go painting together next week after your support group meeting."),
    ("Caroline", "Great!"),
]


def _talk(session: str, start, n_copies: int = 1) -> tuple[Session, list]:
    from graph.models import Turn

    turns = []
    for c in range(n_copies):
        for i, (who, text) in enumerate(TALK):
            o = c * len(TALK) + i
            turns.append(
                Turn(
                    id=f"{session}_t{o}",
                    project="p",
                    session_id=session,
                    ordinal=o,
                    role="user" if who == "Caroline" else "assistant",
                    speaker=who,
                    text=text if c == 0 else f"{text} (round {c} about topic{c} detail{c})",
                    valid_from=start + timedelta(minutes=o),
                    recorded_at=start + timedelta(minutes=o),
                )
            )
    s = Session(
        id=session,
        project="p",
        title=f"{session} — Hey Mel!",
        summary="Hey Mel!",
        started_at=start,
        valid_from=start,
        recorded_at=start,
        turn_count=len(turns),
    )
    return s, turns


async def _put_talk(db: GraphDB, session: str, start, n_copies: int = 1) -> None:
    from tests.integration.consolidate.seed import put_turns

    s, turns = _talk(session, start, n_copies)
    await put_sessions(db, [s])
    await put_turns(db, turns)


async def test_daily_primer_narrates_its_sessions_and_weekly_summarises_days(
    graph_db, rem_settings
):
    await _put_talk(graph_db, "ses_a", NOW - timedelta(days=3, hours=2))
    await _put_talk(graph_db, "ses_b", NOW - timedelta(days=2, hours=2), n_copies=40)
    report = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    repo = PrimerRepository(graph_db)
    dailies = await repo.list_primers("p", "daily", to_ms(NOW))
    small, big = sorted(dailies, key=lambda p: p.period_key)
    # the session is narrated from its turns, attributed, not titled by its first sentence
    assert "Hey Mel!" not in small.text
    assert "- Caroline: I went to an LGBTQ support group yesterday" in small.text
    assert "Themes: " in small.text
    assert "ses_a_t2" in small.turn_ids  # the quoted turns are the primer's provenance
    assert "support" in small.text
    # material enough: the daily fills its target (2-5 KB) and stays under its max
    assert 4_000 <= big.size_bytes <= 5_000 < 8_000
    assert not big.flagged
    weekly = (await repo.list_primers("p", "weekly", to_ms(NOW)))[0]
    assert "### Thu 19 Nov · 1 session" in weekly.text
    # a weekly summarises: it shows fewer sentences per day than the daily does
    assert weekly.text.count("\n- ") < small.text.count("\n- ") + big.text.count("\n- ")
    again = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert again.summary["written"] == 0


async def test_pack_holds_todays_sessions_before_any_rollup(graph_db, rem_settings):
    await _put_talk(graph_db, "ses_old", NOW - timedelta(days=2))
    await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    await _put_talk(graph_db, "ses_today", NOW - timedelta(hours=1))
    pack = await context_pack(graph_db, "p", now=NOW)
    assert f"# Daily primer {NOW.date().isoformat()}" in pack.text
    assert pack.text.rstrip().endswith("after your support group meeting.")
    assert "ses_today" not in pack.text  # narrated, not listed by title


SUMMARY = (
    "Caroline went to an LGBTQ support group yesterday and the stories were so powerful. "
    "Melanie painted a lake sunrise last year, painting helps Melanie express her feelings. "
    "Melanie and Caroline plan to go painting together after the support group meeting."
)


async def test_primers_lead_with_the_session_summary_and_drop_quotes_it_restates(
    graph_db, rem_settings
):
    s, turns = _talk("ses_s", NOW - timedelta(days=3, hours=2))
    from tests.integration.consolidate.seed import put_turns

    await put_sessions(graph_db, [s.model_copy(update={"summary": SUMMARY})])
    await put_turns(graph_db, turns)
    report = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    repo = PrimerRepository(graph_db)
    [daily] = await repo.list_primers("p", "daily", to_ms(NOW))
    [weekly] = await repo.list_primers("p", "weekly", to_ms(NOW))
    for p in (daily, weekly):
        assert "Summary: Caroline went to an LGBTQ support group yesterday" in p.text
        # the first-person quote the summary restates is not said a second time
        assert "- Caroline: I went to an LGBTQ support group" not in p.text
        assert p.text.count("Themes: ") == 1  # one session: the block does not repeat them
    # the summary sentence stands for the turn it restates (the daily's provenance)
    assert "ses_s_t2" in daily.turn_ids
    # what the summary does not say is still quoted
    assert "- Caroline: Transgender stories about courage" in daily.text


async def test_observations_are_not_primer_material(graph_db, rem_settings):
    await _put_talk(graph_db, "ses_a", NOW - timedelta(days=3, hours=2))

    def fact(id: str, kind: str, days_ago: float, statement: str) -> Fact:
        return Fact(
            id=id,
            project="p",
            subject="caroline",
            predicate=f"observed {id}",
            object=statement,
            kind=kind,  # type: ignore[arg-type]
            statement=statement,
            valid_from=NOW - timedelta(days=days_ago),
            recorded_at=NOW - timedelta(days=3),
        )

    await put_facts(
        graph_db,
        [
            # said in ses_a about the day before: no primer for a day when nothing was said
            fact("fct_obs_before", "observation", 4.1, "Caroline visited the Quokka museum."),
            fact("fct_obs_same", "observation", 3.1, "Caroline painted the Zebrafish mural."),
            fact("fct_other", "other", 3.1, "Caroline moved to Tallinn."),
        ],
    )
    report = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    dailies = await PrimerRepository(graph_db).list_primers("p", "daily", to_ms(NOW))
    assert len(dailies) == 1
    assert "Tallinn" in dailies[0].text  # other facts still are
    assert "Quokka" not in dailies[0].text
    assert "Zebrafish" not in dailies[0].text


async def test_a_primer_holds_from_its_newest_source_so_an_earlier_as_of_read_never_sees_it(
    graph_db, rem_settings
):
    morning, evening = NOW - timedelta(days=3, hours=8), NOW - timedelta(days=3, hours=2)
    await _put_talk(graph_db, "ses_a", morning)
    await _put_talk(graph_db, "ses_b", evening)
    report = await run_job("rollups", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    repo = PrimerRepository(graph_db)
    [daily] = await repo.list_primers("p", "daily", to_ms(NOW))
    [weekly] = await repo.list_primers("p", "weekly", to_ms(NOW))
    # what the evening said was not known at noon: the day's primer starts with its newest source
    # (an as-of read filters on valid_from like any item's: before the evening it has no primer)
    assert evening <= daily.valid_from < evening + timedelta(hours=1)
    assert weekly.valid_from == daily.valid_from
