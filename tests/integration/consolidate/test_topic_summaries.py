"""topic_summaries: a REM run writes a topic's brief, keeps it while nothing changed, and writes
the next version (ending the previous one in valid time) when new turns mention the topic."""

from __future__ import annotations

from datetime import timedelta

from consolidate.runner import run_job
from core.timeutil import to_ms
from graph.cypher import Q
from graph.models import Fact, Topic, Turn
from graph.repositories.reference_layers import ReferenceLayerRepository
from graph.repositories.scoped import ScopedRepository
from graph.repositories.topic_briefs import TopicBriefRepository
from tests.integration.consolidate.seed import NOW, at, put_facts, put_topics, put_turns

SAID = [
    ("Caroline", "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "Wow, what happened at the support group? Tell me everything."),
    ("Caroline", "The transgender stories at the support group were so inspiring to me."),
    ("Melanie", "My cousin runs a support group for new parents in Denver."),
    ("Caroline", "I have been going to the support group every Tuesday since March."),
]


def _turns(lines, session: str, days_ago: float, first: int = 0) -> list[Turn]:
    return [
        Turn(
            id=f"trn_{session}_{first + i}",
            project="p",
            session_id=session,
            ordinal=first + i,
            role="user" if i % 2 == 0 else "assistant",
            speaker=who,
            text=text,
            valid_from=at(days_ago) + timedelta(minutes=i),
            recorded_at=at(days_ago),
        )
        for i, (who, text) in enumerate(lines)
    ]


async def _mention(db, topic_id: str, turns: list[Turn]) -> None:
    rows = [{"turn_id": t.id, "topic_id": topic_id} for t in turns]
    await db.write(Q("topic.link_mentions"), rows=rows, now=to_ms(NOW))


def _topic(turns: list[Turn]) -> Topic:
    return Topic(
        id="top_sg",
        project="p",
        title="support group",
        keywords=("support group", "lgbtq"),
        sessions=tuple(sorted({t.session_id for t in turns})),
        message_ids=tuple(t.id for t in turns),
        message_count=len(turns),
        weight=0.8,
        valid_from=at(30),
        recorded_at=at(30),
    )


async def test_a_rem_run_summarises_keeps_and_updates_a_topic(graph_db, rem_settings):
    first = _turns(SAID, "s1", 10)
    await put_turns(graph_db, first)
    await put_topics(graph_db, [_topic(first)])
    await _mention(graph_db, "top_sg", first)
    fact = Fact(
        id="fct_sg",
        project="p",
        subject="caroline",
        predicate="attends",
        object="support group",
        kind="event",
        statement="Caroline attends an LGBTQ support group every Tuesday",
        source_turn_ids=(first[4].id,),
        valid_from=at(10),
        recorded_at=at(10),
    )
    await put_facts(graph_db, [fact])

    report = await run_job(
        "topic_summaries", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert report.status == "succeeded", report.error
    assert report.summary["built"] == 1
    repo = TopicBriefRepository(graph_db)
    [brief] = await repo.current("p", to_ms(NOW))
    assert (brief.topic_id, brief.version, brief.project) == ("top_sg", 1, "p")
    assert brief.takeaways[0] == "Caroline attends an LGBTQ support group every Tuesday."
    assert brief.takeaway_sources[0] == "fct_sg"
    assert "Caroline went to an LGBTQ support group" in brief.text
    assert " I " not in f" {brief.text} "
    assert brief.word_count == len(brief.text.split())

    # the topic's reference layer opens with the summary
    layers = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert layers.summary["built"] == 1
    [layer] = await ReferenceLayerRepository(graph_db).list_layers("p", to_ms(NOW))
    assert f"## Overview\n\n{brief.summary}\n" in layer.text
    assert brief.id in layer.source_ids

    # nothing changed: the brief is kept as it is, nothing written
    later = NOW + timedelta(hours=6)
    again = await run_job(
        "topic_summaries", db=graph_db, settings=rem_settings, now=later, project="p"
    )
    assert (again.summary["kept"], again.summary["built"], again.summary["refreshed"]) == (1, 0, 0)
    assert await repo.current("p", to_ms(later)) == [brief]

    # new turns mention the topic: the next version, the previous one ended when it starts
    new = _turns(
        [("Caroline", "I started volunteering at the support group's youth night in June.")],
        "s2",
        1,
        first=10,
    )
    await put_turns(graph_db, new)
    await put_topics(graph_db, [_topic(first + new)])
    await _mention(graph_db, "top_sg", new)
    updated = NOW + timedelta(days=1)
    grown = await run_job(
        "topic_summaries", db=graph_db, settings=rem_settings, now=updated, project="p"
    )
    assert (grown.summary["refreshed"], grown.summary["built"]) == (1, 0)
    [v2] = await repo.current("p", to_ms(updated))
    assert v2.version == 2
    assert "volunteering at the support group's youth night" in v2.text
    assert "in 2 sessions" in v2.summary
    # one new mention is no reason to rebuild a layer, but a newer summary is
    layers = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=updated, project="p"
    )
    assert layers.summary["refreshed"] == 1
    [layer] = await ReferenceLayerRepository(graph_db).list_layers("p", to_ms(updated))
    assert v2.summary in layer.text

    # both versions stay readable as of their time, and as known before the update
    scoped = ScopedRepository(graph_db)
    now2 = to_ms(updated)
    [then] = await scoped.topic_briefs(["top_sg"], ["p"], as_of=to_ms(later), known_at=now2)
    [current] = await scoped.topic_briefs(["top_sg"], ["p"], as_of=now2, known_at=now2)
    [as_known] = await scoped.topic_briefs(["top_sg"], ["p"], as_of=now2, known_at=to_ms(later))
    assert then is not None
    assert then.version == 1
    assert then.valid_to == updated
    assert current is not None
    assert current.version == 2
    assert as_known is not None
    assert as_known.version == 1
    assert await scoped.topic_briefs(["top_sg"], ["other"], as_of=now2, known_at=now2) == [None]
