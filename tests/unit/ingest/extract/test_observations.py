from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ingest.extract.models import SessionInput, TurnInput
from ingest.extract.observations import (
    TURNS_PER_OBSERVATION,
    event_time,
    is_observation,
    observations,
)
from ingest.extract.offline import OfflineExtractor, between_people

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def _turns(*lines: tuple[str, str], user: str = "Caroline") -> list[TurnInput]:
    """`(speaker, text)` lines; `user` speaks as the user, anyone else as the other side."""
    return [
        TurnInput(
            id=f"t{i}",
            ordinal=i,
            role="user" if who == user else "assistant",
            speaker=who,
            text=text,
            timestamp=T0 + timedelta(minutes=i),
        )
        for i, (who, text) in enumerate(lines)
    ]


CHAT = _turns(
    ("Caroline", "Hey Mel! Good to see you! How have you been?"),
    ("Melanie", "Hey Caroline! Good to see you! I'm swamped with the kids and my work lately."),
    ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "Wow, that's cool, Caroline! Did you hear any inspiring stories?"),
    ("Caroline", "The transgender stories there were so inspiring and honest."),
    ("Melanie", "That's really cool. You've got guts. What now?"),
    ("Caroline", "Thanks, Mel! I think I might look into counseling jobs, maybe."),
    ("Melanie", "I painted a lake sunrise last year, it holds special meaning to me."),
)


def test_chat_observations_are_third_person_attributed_with_their_turn() -> None:
    found = observations(CHAT, chat=True)
    by_turn = {f.turn_ids: f for f in found}
    assert by_turn[("t2",)].statement == (
        "Caroline went to a LGBTQ support group yesterday and it was so powerful."
    )
    assert by_turn[("t2",)].subject == "caroline"
    assert by_turn[("t7",)].statement.startswith("Melanie painted a lake sunrise last year")
    assert all(f.kind == "observation" for f in found)
    assert all(" I " not in f" {f.statement} " and "my " not in f.statement for f in found)
    # each has a predicate of its own: none supersedes another of the same speaker
    assert len({(f.subject, f.predicate) for f in found}) == len(found)


def test_event_time_resolves_a_relative_time_against_the_turn() -> None:
    found = {f.turn_ids: f for f in observations(CHAT, chat=True)}
    assert found[("t2",)].valid_from == datetime(2023, 5, 7, tzinfo=UTC)  # "yesterday"
    assert found[("t7",)].valid_from == datetime(2022, 1, 1, tzinfo=UTC)  # "last year"
    assert event_time("I moved to Berlin.", T0) == T0
    assert event_time("I started a new job last week.", T0) == datetime(2023, 5, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "sentence",
    [
        "Did you hear any inspiring stories about my group?",  # a question (no candidate anyway)
        "Thanks so much for asking about my trip to Paris.",  # thanks
        "Hey Caroline, my week has been long and tiring.",  # greeting
        "I'm so happy for you and your family, Mel.",  # addressed to the listener
        "I think I might look into counseling jobs.",  # a hedge
        "Maybe I will take the kids camping next month.",  # a hedge
        "Check out this photo of my garden in spring.",  # a pointer, not a statement
        "The weather in the city was great all week.",  # not about the speaker
        "Also move my dentist appointment to next week.",  # a request
        "I can imagine that it felt good to get lost in nature.",  # about the listener
        "But I'm so glad that the kids enjoyed it.",  # thanks, after the "but"
    ],
)
def test_what_is_not_an_observation(sentence: str) -> None:
    assert not is_observation(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I went to a LGBTQ support group yesterday.",
        "Yeah, my kids love the beach in summer.",
        "The support group has made me feel accepted.",
    ],
)
def test_what_is_an_observation(sentence: str) -> None:
    assert is_observation(sentence)


def test_in_an_agent_session_the_user_must_be_the_subject() -> None:
    assert is_observation("The support group has made me feel accepted.")
    assert not is_observation("The support group has made me feel accepted.", as_subject=True)
    assert is_observation("Last week I moved to a flat in Porto.", as_subject=True)
    assert not is_observation(
        "Schedule my 1:1s with the team on Tuesday afternoons.", as_subject=True
    )


def test_an_observation_is_what_was_said_in_words() -> None:
    # Without the image shared with it, the name of whom it is said to, or the "And" it opens with.
    chat = _turns(
        ("Caroline", "I adopted a guinea pig named Oscar last week, Melanie."),
        ("Melanie", "Caroline, I finished the pottery bowl for my mum. [shares image: a bowl]"),
        ("Ann", "And I booked a trip to Lisbon for May."),
    )
    assert [f.statement for f in observations(chat, chat=True)] == [
        "Caroline adopted a guinea pig named Oscar last week.",
        "Melanie finished the pottery bowl for their mum.",
        "Ann booked a trip to Lisbon for May.",
    ]


def test_skipped_sentences_give_no_observation() -> None:
    turns = {f.turn_ids[0] for f in observations(CHAT, chat=True)}
    assert not turns & {"t0", "t1", "t3", "t5", "t6"}  # greetings, questions, "you", hedges


def test_at_most_one_observation_per_three_turns_of_a_speaker() -> None:
    said = [
        "I painted a sunset over the lake for my grandmother.",
        "My brother bought a small pottery wheel in Denver.",
        "I swim laps at the community pool every Tuesday morning.",
        "I camped near Yosemite with three cousins in August.",
        "My marathon training plan starts with slow recovery runs.",
        "I baked sourdough bread from an old family recipe.",
        "I read science fiction novels on the train to work.",
    ]
    lines = [("Caroline", x) for x in said]
    lines += [("Melanie", "I adopted a rescue dog named Oliver last month.")]
    found = observations(_turns(*lines), chat=True)
    per = {s: sum(f.subject == s for f in found) for s in ("caroline", "melanie")}
    assert per == {"caroline": len(said) // TURNS_PER_OBSERVATION, "melanie": 1}


def test_in_an_agent_session_only_the_user_speaks_about_themselves() -> None:
    turns = [
        TurnInput(
            id="u0",
            ordinal=0,
            role="user",
            speaker="",
            timestamp=T0,
            text="I moved the whole team to a new office in Lisbon last month.",
        ),
        TurnInput(
            id="u2",
            ordinal=2,
            role="user",
            speaker="",
            timestamp=T0,
            text="Put my 1:1s with the team on Tuesday afternoons, 30 minutes each.",
        ),
        TurnInput(
            id="a1",
            ordinal=1,
            role="assistant",
            speaker="claude-sonnet-4",
            timestamp=T0,
            text="I updated my notes and I ran the tests in the new config.",
        ),
    ]
    assert not between_people(turns)
    found = observations(turns, chat=False)
    assert [f.turn_ids for f in found] == [("u0",)]
    assert found[0].statement.startswith("The user moved the whole team to a new office")


def test_the_offline_extractor_returns_observations_among_its_facts() -> None:
    result = OfflineExtractor().extract_sync(SessionInput(id="s", project="p", turns=tuple(CHAT)))
    kinds = [f.kind for f in result.facts]
    assert "observation" in kinds


def test_any_extractors_observations_get_a_predicate_of_their_own() -> None:
    """A model may name every observation's predicate "observed": none may close another."""
    from ingest.extract.models import FactCandidate

    when = datetime(2026, 1, 1, tzinfo=UTC)
    a, b = (
        FactCandidate(
            subject="caroline",
            predicate="observed",
            object=text,
            kind="observation",
            statement=text,
            valid_from=when,
        )
        for text in ("Caroline ran a charity race.", "Caroline adopted a dog.")
    )
    assert a.predicate != b.predicate
    assert a.predicate.startswith("observed ")
    other = FactCandidate(subject="db", predicate="uses", object="SQLite", valid_from=when)
    assert other.predicate == "uses"  # other kinds keep theirs


def test_an_agent_session_keeps_what_the_user_says_that_lasts_not_the_moment() -> None:
    lines = [
        ("User", "I'm seeing a 404 when I open an existing conversation."),
        ("Agent", "The route handler is missing; I added it."),
        ("User", "I'm getting this error when I try to chat now."),
        ("Agent", "That was a stale build; restarting the dev server fixed it."),
        ("User", "My sister Ana lives in Porto, so I plan trips there every summer."),
        ("Agent", "Noted."),
        ("User", "I'm still getting a failure on npm run test:e2e."),
        ("Agent", "The fixture port was taken; I freed it."),
        ("User", "I'm not seeing any activity at all in LangSmith."),
        ("Agent", "The tracing key was unset; I set it."),
    ]
    turns = _turns(*lines, user="User")
    judge = OfflineExtractor()._judge
    every = {f.turn_ids[0] for f in observations(turns, chat=False)}
    kept = {f.turn_ids[0] for f in observations(turns, chat=False, lasting=judge.lasting)}
    problems = {"t0", "t2", "t6", "t8"}
    assert kept == {"t4"}
    assert every & problems  # without the judge, a problem report is kept as one
