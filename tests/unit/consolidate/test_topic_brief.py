"""The topic brief: bounded, takeaways from knowledge, no repeats, told in the third person."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from datetime import UTC, datetime

from consolidate.topic_brief import (
    MAX_WORDS,
    TARGET_WORDS,
    build_brief,
    linked_items,
    material_hash,
)
from core.timeutil import to_ms
from graph.rows import ExampleTurn, KnowledgeNode, TopicSummary

DAY = 86_400_000
T0 = to_ms(datetime(2023, 5, 8, 13, 0, tzinfo=UTC))
TOPIC = TopicSummary(id="top_a", title="adoption agencies", keywords=("adoption", "agency"))

LINES = [
    ("Caroline", "I'm researching adoption agencies, it has been my dream to have a family."),
    ("Melanie", "Wow, that is amazing! How are you feeling about it?"),
    ("Caroline", "I applied to three adoption agencies and I passed the first interview."),
    ("Melanie", "My buddy adopted last year through a local adoption agency."),
    ("Caroline", "The adoption agency asked for references, financial info and medical checks."),
    ("Caroline", "I applied to three adoption agencies and passed the first interview!"),
    ("Melanie", "Thanks for telling me, you are so brave."),
]


def turns(lines=LINES, start=T0, session="s1") -> list[ExampleTurn]:
    return [
        ExampleTurn(
            id=f"{session}_{i}",
            text=text,
            role="user" if i % 2 == 0 else "assistant",
            session_id=session,
            at_ms=start + i * 60_000,
            speaker=who,
            topic_id="top_a",
        )
        for i, (who, text) in enumerate(lines)
    ]


def item(id_: str, kind: str, title: str, turn_ids=(), subkind="", sessions=()) -> KnowledgeNode:
    return KnowledgeNode(
        id=id_,
        kind=kind,
        title=title,
        turn_ids=tuple(turn_ids),
        subkind=subkind,
        session_ids=tuple(sessions),
    )


def test_takeaways_state_the_linked_knowledge_items_first() -> None:
    ts = turns()
    items = [
        item("fct_1", "fact", "Caroline passed the adoption agency interview", ["s1_2"], "event"),
        item(
            "cor_1",
            "correction",
            "Always ask before sharing adoption papers",
            ["s1_0"],
            "rule",
            ["a", "b"],
        ),
        item("cor_2", "correction", "Never share the adoption papers", [], "rule"),  # not linked
        item("fct_2", "fact", "Melanie restores vintage motorcycles", ["s9_1"]),  # not linked
        item("les_1", "lesson", "Adoption agencies need references and medical checks"),
    ]
    linked = linked_items(TOPIC, items, (t.id for t in ts))
    assert [x.id for x in linked] == ["cor_1", "fct_1", "les_1"]  # by turn or naming the topic
    brief = build_brief(TOPIC, ts, items, project="p")
    assert brief is not None
    assert [t.source_id for t in brief.takeaways] == ["cor_1", "fct_1", "les_1"]
    assert (
        brief.takeaways[0].text
        == "Always ask before sharing adoption papers (a rule, from 2 sessions)."
    )
    assert set(brief.item_ids) == {"cor_1", "fct_1", "les_1"}
    assert "motorcycles" not in brief.text
    assert brief.text.index("Key takeaways:") > brief.text.index(brief.summary.splitlines()[-1])


def test_without_items_the_best_statements_of_the_turns_are_the_takeaways() -> None:
    brief = build_brief(TOPIC, turns(), [], project="p")
    assert brief is not None
    assert brief.takeaways
    assert all(t.kind == "turn" for t in brief.takeaways)
    assert all(t.text.startswith(("Caroline", "Melanie")) for t in brief.takeaways)
    assert all(t.text.endswith("(8 May 2023).") for t in brief.takeaways)
    assert {t.source_id for t in brief.takeaways} <= set(brief.turn_ids)


def test_third_person_no_chatter_and_no_repeated_sentence() -> None:
    brief = build_brief(TOPIC, turns(), [], project="p")
    assert brief is not None
    assert not re.search(r"\b(I|I'm|my|me)\b", brief.text)
    assert "Caroline is researching adoption agencies" in brief.text
    assert "you" not in brief.text.lower().split()  # courtesies to the other speaker are left out
    assert "Wow" not in brief.text
    assert brief.text.count("passed the first interview") == 1  # the near-repeat is dropped
    sentences = [s for s in re.split(r"(?<=[.!])\s+", brief.text) if s.strip()]
    assert len(sentences) == len(set(sentences))


LATER = [
    ("Caroline", "I got the adoption agency's home study visit scheduled for Friday."),
    ("Melanie", "My neighbour went through the same adoption agency home study."),
]


def test_the_lead_says_who_when_and_how_often() -> None:
    ts = turns() + turns(LATER, start=T0 + 30 * DAY, session="s2")
    brief = build_brief(TOPIC, ts, [], project="p")
    assert brief is not None
    assert brief.summary.startswith(
        "Caroline and Melanie discussed adoption agencies in 2 sessions between 8 May 2023 and "
        "7 June 2023."
    )
    days = [p.split(": ", 1)[0] for p in brief.summary.split("\n\n")[1:]]
    assert days[0] == "8 May 2023"  # sentences grouped by day, in time order
    parsed = [datetime.strptime(d, "%d %B %Y") for d in days]  # noqa: DTZ007 - a date only
    assert parsed == sorted(set(parsed))
    assert "7 June 2023" in brief.text


def test_length_aims_at_the_target_and_never_passes_the_maximum() -> None:
    rng = random.Random(7)
    vocab = [f"zq{i}x" for i in range(2_000)]
    lines = [
        ("Ann", f"I filed adoption agencies form {' '.join(rng.sample(vocab, 10))} today.")
        for _ in range(400)
    ]
    brief = build_brief(TOPIC, turns(lines), [], project="p")
    assert brief is not None
    assert 0.9 * TARGET_WORDS <= brief.words <= 1.1 * TARGET_WORDS
    long = build_brief(TOPIC, turns(lines), [], project="p", target_words=5_000)
    assert long is not None
    assert TARGET_WORDS < long.words <= MAX_WORDS


def test_nothing_to_say_gives_no_brief() -> None:
    assert build_brief(TOPIC, [], [], project="p") is None
    chatter = turns([("Ann", "ok"), ("Bob", "Thanks, you too!")])
    assert build_brief(TOPIC, chatter, [], project="p") is None


def test_the_material_hash_changes_with_the_material_only() -> None:
    ts = turns()
    items = [item("fct_1", "fact", "Caroline passed the adoption agency interview", ["s1_2"])]
    h = material_hash(TOPIC, ts, items)
    assert material_hash(TOPIC, list(reversed(ts)), items) == h  # order does not matter
    assert material_hash(TOPIC, [*ts, turns(LINES[:1], session="s2")[0]], items) != h
    assert material_hash(TOPIC, ts, []) != h
    refined = [item("fct_1", "fact", "Caroline passed two adoption agency interviews", ["s1_2"])]
    assert material_hash(TOPIC, ts, refined) != h
    edited = [replace(ts[0], text="edited"), *ts[1:]]
    assert material_hash(TOPIC, edited, items) != h


def test_pointers_to_pictures_and_greetings_are_not_stated() -> None:
    lines = [
        ("Ann", "Check out my pottery bowl from the adoption agencies fundraiser!"),
        ("Ann", "Hey Bob, the adoption agencies fundraiser sold forty bowls."),
        ("Ann", "I sold forty pottery bowls at the adoption agencies fundraiser."),
    ]
    brief = build_brief(TOPIC, turns(lines), [], project="p")
    assert brief is not None
    assert "Check out" not in brief.text
    assert "Hey Bob" not in brief.text
    assert "Ann sold forty pottery bowls" in brief.text


def test_turns_around_the_mentions_count_when_they_use_the_topics_words() -> None:
    mention = turns([("Ann", "I applied to two adoption agencies this week.")])
    around = [
        replace(mention[0], id="c1", text="The agency interview went really well on Friday."),
        replace(mention[0], id="c2", text="I also repainted the kitchen cabinets a pale green."),
    ]
    topic = replace(TOPIC, keywords=("adoption", "agency", "interview"))
    brief = build_brief(topic, mention, [], project="p", context=around)
    assert brief is not None
    assert "interview went really well" in brief.text
    assert "kitchen" not in brief.text
    assert material_hash(topic, mention, [], around) != material_hash(topic, mention, [])
