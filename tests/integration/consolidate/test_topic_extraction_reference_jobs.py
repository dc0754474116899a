from datetime import timedelta
from typing import Any

from consolidate.runner import run_job
from core.timeutil import to_ms
from graph.cypher import Q
from graph.models import Fact, Lesson, Session, Topic, Turn
from graph.repositories.findings import FindingRepository
from graph.repositories.reference_layers import ReferenceLayerRepository
from graph.repositories.rem import RemRepository
from tests.integration.consolidate.seed import (
    NOW,
    at,
    put_facts,
    put_lessons,
    put_sessions,
    put_topics,
    put_turns,
)


def _topic(
    id: str, title: str, sessions: tuple[str, ...], count: int, last_days: float, **kw: Any
) -> Topic:
    return Topic(
        id=id,
        title=title,
        projects=("p",),
        sessions=sessions,
        message_count=count,
        last_seen=at(last_days),
        first_seen=at(60),
        valid_from=at(60),
        recorded_at=at(60),
        **kw,
    )


async def test_topic_weights_and_cooccurrence_are_recomputed(graph_db, rem_settings):
    await put_topics(
        graph_db,
        [
            _topic("top_hot", "falkordb tuning", ("s1", "s2", "s3", "s4"), 40, 0),
            _topic("top_cold", "old build system", ("s1",), 2, 200),
            _topic("top_mid", "vector indexes", ("s2", "s3"), 6, 20),
        ],
    )
    report = await run_job(
        "topic_weights", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert report.status == "succeeded", report.error
    rows = {t.id: t for t in await RemRepository(graph_db).topics("p", to_ms(NOW))}
    assert rows["top_hot"].weight > rows["top_mid"].weight > rows["top_cold"].weight
    assert rows["top_hot"].phase == "active"
    assert rows["top_cold"].phase == "completed"
    assert report.summary["cooccurrence_edges"] == 2  # hot–cold (s1), hot–mid (s2, s3)
    links = {
        (r.source_id, r.target_id): r.weight
        for r in await RemRepository(graph_db).topic_links(to_ms(NOW))
    }
    assert links[("top_hot", "top_mid")] == 0.5  # 2 shared sessions: 2 / (2 + 2)
    assert report.report["weight_changes"]


async def test_extraction_proposes_lessons_and_surfaces_pending_todos(graph_db, rem_settings):
    await put_topics(
        graph_db,
        [
            _topic(
                "top_theme",
                "flaky ci runners",
                ("a", "b", "c"),
                9,
                1,
                keywords=("flaky", "runners"),
            ),
            _topic("top_covered", "pytest fixtures", ("a", "b", "c"), 9, 1, keywords=("fixtures",)),
            _topic("top_rare", "one-off chat", ("a",), 1, 1),
        ],
    )
    await put_lessons(
        graph_db,
        [
            Lesson(
                id="les_fix",
                project="p",
                title="share pytest fixtures",
                keywords=("fixtures", "pytest"),
            )
        ],
    )
    await put_sessions(
        graph_db,
        [
            Session(
                id=f"ses_{i}",
                project="p",
                started_at=at(30 - i),
                valid_from=at(30 - i),
                recorded_at=at(30 - i),
            )
            for i in range(10)
        ],
    )
    await put_facts(
        graph_db,
        [
            Fact(
                id="fct_todo_old",
                project="p",
                kind="todo",
                statement="write the backup docs",
                valid_from=at(29.5),
                recorded_at=at(29.5),
            ),
            Fact(
                id="fct_todo_new",
                project="p",
                kind="todo",
                statement="rename the cli flag",
                valid_from=at(21.5),
                recorded_at=at(21.5),
            ),
            Fact(
                id="fct_dec",
                project="p",
                kind="decision",
                statement="we store times as epoch ms",
                valid_from=at(5),
                recorded_at=at(5),
            ),
        ],
    )
    report = await run_job("extraction", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    found = {
        (f.kind, f.target_ids, f.proposed_action)
        for f in await FindingRepository(graph_db).list_findings("p")
    }
    assert found == {
        ("theme_without_lesson", ("top_theme",), "create_lesson"),
        ("pending_todo", ("fct_todo_old",), "keep"),
        ("decision_without_lesson", ("fct_dec",), "create_lesson"),
    }


async def test_reference_layers_are_built_for_heavy_topics_and_refreshed(graph_db, rem_settings):
    turns = [
        Turn(
            id=f"trn_{i}",
            project="p",
            session_id="s1",
            ordinal=i,
            role="user",
            text=f"how should we tune the falkordb cache, attempt {i}?",
            valid_from=at(1) + timedelta(minutes=i),
            recorded_at=at(1),
        )
        for i in range(8)
    ]
    await put_turns(graph_db, turns)
    topic = _topic(
        "top_hot",
        "falkordb tuning",
        ("s1", "s2", "s3", "s4"),
        40,
        0,
        keywords=("falkordb", "cache"),
        message_ids=tuple(t.id for t in turns),
        weight=0.9,
    )
    await put_topics(graph_db, [topic, _topic("top_light", "trivia", ("s1",), 1, 0, weight=0.1)])
    await _mention(graph_db, "top_hot", [t.id for t in turns])
    await put_lessons(
        graph_db,
        [
            Lesson(
                id=f"les_{i}",
                project="p",
                title=f"falkordb cache lesson {i}",
                summary="keep the cache warm " * 20,
                keywords=("falkordb",),
                source_turn_ids=("trn_1",),
            )
            for i in range(12)
        ],
    )
    report = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert report.status == "succeeded", report.error
    assert report.summary["built"] == 1
    layers = await ReferenceLayerRepository(graph_db).list_layers("p", to_ms(NOW))
    assert [x.topic_id for x in layers] == ["top_hot"]
    layer = layers[0]
    assert 500 <= layer.token_count <= 5_000
    assert "## Lessons" in layer.text
    assert "## From the conversations" in layer.text
    assert (
        "> **user** (21 Nov 2026): how should we tune the falkordb cache, attempt 7?" in layer.text
    )
    assert "trn_7" in layer.source_ids  # quoted turns are the layer's provenance
    assert any("corrections" in g for g in layer.gaps)  # nothing about rules yet: a gap

    unchanged = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert unchanged.summary["built"] == unchanged.summary["refreshed"] == 0
    new = turns[0].model_copy(
        update={
            "id": "trn_new",
            "ordinal": 99,
            "text": "we settled the falkordb cache at 2 GB after the benchmark",
            "valid_from": at(0.5),
        }
    )
    await put_turns(graph_db, [new])
    await _mention(graph_db, "top_hot", ["trn_new"])
    await put_topics(graph_db, [topic.model_copy(update={"message_count": 55})])
    grown = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert grown.summary["refreshed"] == 1
    layer = (await ReferenceLayerRepository(graph_db).list_layers("p", to_ms(NOW)))[0]
    assert "we settled the falkordb cache at 2 GB" in layer.text  # the new turn is taken in


async def _mention(db, topic_id: str, turn_ids: list[str]) -> None:
    await db.write(
        Q("topic.link_mentions"),
        rows=[{"turn_id": t, "topic_id": topic_id} for t in turn_ids],
        now=to_ms(NOW),
    )


async def test_a_layer_with_little_knowledge_reaches_the_minimum_from_its_turns(
    graph_db, rem_settings
):
    turns = [
        Turn(
            id=f"trn_{i}",
            project="p",
            session_id="s1",
            ordinal=i,
            role="assistant" if i % 2 else "user",
            speaker="Ana" if i % 2 else "Ben",
            text=f"the sourdough starter needs feeding twice a day, note {i}: " + "flour " * 30,
            valid_from=at(2) + timedelta(minutes=i),
            recorded_at=at(2),
        )
        for i in range(40)
    ]
    await put_turns(graph_db, turns)
    topic = _topic(
        "top_bread",
        "sourdough starter",
        ("s1", "s2"),
        40,
        0,
        message_ids=tuple(t.id for t in turns[:3]),
        weight=0.9,
    )
    await put_topics(graph_db, [topic])
    await _mention(graph_db, "top_bread", [t.id for t in turns])
    report = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert report.status == "succeeded", report.error
    layer = (await ReferenceLayerRepository(graph_db).list_layers("p", to_ms(NOW)))[0]
    assert 900 <= layer.token_count <= 1_000  # filled to twice the 500-token minimum
    assert not any(g.startswith("only") for g in layer.gaps)
    assert "> **Ana** (20 Nov 2026): the sourdough starter needs feeding" in layer.text


async def test_a_layer_with_few_mentions_quotes_the_turns_around_them(graph_db, rem_settings):
    turns = [
        Turn(
            id=f"trn_{i}",
            project="p",
            session_id="s1",
            ordinal=i,
            role="assistant" if i % 2 else "user",
            speaker="Ana" if i % 2 else "Ben",
            text=(
                "we should bake with the sourdough starter this weekend"
                if i in (10, 20)
                else f"turn {i} about the weekend plans: " + "words " * 60
            ),
            valid_from=at(2) + timedelta(minutes=i),
            recorded_at=at(2),
        )
        for i in range(30)
    ]
    await put_turns(graph_db, turns)
    await put_sessions(
        graph_db, [Session(id="s1", project="p", started_at=at(2), valid_from=at(2))]
    )
    end = to_ms(NOW) * 10
    await graph_db.write(
        Q("session.link_turns"),
        rows=[
            {
                "id": t.id,
                "session_id": "s1",
                "prev_id": turns[i - 1].id if i else None,
                "valid_from": to_ms(t.valid_from),
                "valid_to": end,
                "recorded_at": to_ms(t.recorded_at),
                "expired_at": end,
            }
            for i, t in enumerate(turns)
        ],
    )
    await put_topics(
        graph_db, [_topic("top_bread", "sourdough starter", ("s1", "s2"), 2, 0, weight=0.9)]
    )
    await _mention(graph_db, "top_bread", ["trn_10", "trn_20"])
    report = await run_job(
        "reference_layers", db=graph_db, settings=rem_settings, now=NOW, project="p"
    )
    assert report.status == "succeeded", report.error
    layer = (await ReferenceLayerRepository(graph_db).list_layers("p", to_ms(NOW)))[0]
    # the two mentions and the two turns either side of each
    assert {"trn_9", "trn_10", "trn_11", "trn_19", "trn_20", "trn_21"} <= set(layer.source_ids)
    assert "trn_15" not in layer.source_ids
    assert layer.token_count >= 190
