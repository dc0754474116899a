"""Shared prose rules: who speaks, the third person, salient and distinct sentences."""

from __future__ import annotations

import pytest

from core.text import content_words
from knowledge.prose import candidates, is_person, is_repeat, salient, third_person


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I went to a support group.", "Ann went to a support group."),
        ("I really love painting with my kids.", "Ann really loves painting with their kids."),
        (
            "I think I'm ready to give all my love.",
            "Ann thinks they're ready to give all their love.",
        ),
        (
            "I haven't done pottery yet, but I'm game.",
            "Ann hasn't done pottery yet, but they're game.",
        ),
        ("My goal is to give kids a home.", "Ann's goal is to give kids a home."),
        ("It made me realize how much I try.", "It made Ann realize how much they try."),
        ("I don't like npm.", "Ann doesn't like npm."),
        ("Let me check the logs first.", "Ann will check the logs first."),
    ],
)
def test_first_person_becomes_the_name_then_they(sentence: str, expected: str) -> None:
    assert third_person(sentence, "Ann") == (expected, True)


def test_a_role_name_is_capitalised_where_it_opens_the_sentence() -> None:
    out, hit = third_person("I prefer small commits with imperative subjects.", "the user")
    assert (out, hit) == ("The user prefers small commits with imperative subjects.", True)
    assert third_person("Nothing about anyone.", "Ann") == ("Nothing about anyone.", False)


def test_people_are_names_not_roles_or_models() -> None:
    assert is_person("Caroline")
    assert is_person("Mary Ann")
    assert not is_person("user")
    assert not is_person("claude-sonnet-4")
    assert not is_person("")


TALK = [
    ("Ann", True, "I adopted a rescue greyhound called Pixel from the shelter last spring.", "t1"),
    ("Bob", True, "The greyhound rescue shelter runs adoption days every month.", "t2"),
    ("Ann", True, "Pixel the greyhound sleeps all day on the sofa now.", "t3"),
    ("Bob", True, "My sister restores vintage motorcycles in her garage.", "t4"),
    ("Ann", True, "Honestly it was a nice day, nice weather, nice time.", "t5"),
]


def test_salient_keeps_informative_distinct_sentences_in_order_within_the_budget() -> None:
    cands = candidates(TALK)
    assert [c.source for c in cands] == ["t1", "t2", "t3", "t4", "t5"]
    chosen = salient(cands, max_words=25)
    assert sum(len(c.text.split()) for c in chosen) <= 25
    assert [c.pos for c in chosen] == sorted(c.pos for c in chosen)
    assert "t5" not in {c.source for c in chosen}  # no informative word


def test_salient_skips_what_was_already_said_and_ranks_the_focus_first() -> None:
    cands = candidates(TALK)
    said = [frozenset(content_words("Ann adopted the rescue greyhound Pixel from a shelter"))]
    kept = {c.source for c in salient(cands, max_words=200, said=said)}
    assert "t1" not in kept
    assert "t2" in kept
    first = salient(cands, max_words=10, focus=frozenset({"motorcycles"}), ranked=True)
    assert first[0].source == "t4"


def test_repeats_are_sentences_sharing_half_their_words() -> None:
    a = frozenset({"pnpm", "npm", "use"})
    assert is_repeat(a, frozenset({"pnpm", "npm"}))
    assert not is_repeat(a, frozenset({"pnpm", "workspaces", "repo", "uses"}))
    assert not is_repeat(frozenset(), frozenset())
