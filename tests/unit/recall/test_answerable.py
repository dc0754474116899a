"""`answerable`: who said the material that covers the question, against who the question names."""

from __future__ import annotations

from graph.kinds import ItemKind
from recall.answerable import answerability
from recall.items import Candidate, Ranked
from recall.understand import understand

SPEAKERS = ("Caroline", "Melanie")


def _turn(text: str, speaker: str) -> Ranked:
    c = Candidate(id=text[:8], kind=ItemKind.TURN, text=text, tokens=10, speaker=speaker)
    return Ranked(candidate=c, score=1.0, why={})


def test_the_named_speaker_said_it_so_it_is_answerable() -> None:
    intent = understand("What did Caroline realize after the charity race?", speakers=SPEAKERS)
    items = [
        _turn("After the charity race I realized self-care really matters.", "Caroline"),
        _turn("Glad you ran it!", "Melanie"),
    ]
    a = answerability(intent, items)
    assert a.score > 0.5
    assert a.reasons["named_coverage"] > a.reasons["other_coverage"]


def test_someone_else_said_it_so_nothing_is_known_about_the_named_one() -> None:
    intent = understand("What did Melanie realize after the charity race?", speakers=SPEAKERS)
    items = [
        _turn("After the charity race I realized self-care really matters.", "Caroline"),
        _turn("Glad you ran it!", "Melanie"),
    ]
    swapped = answerability(intent, items)
    named = answerability(
        understand("What did Caroline realize after the charity race?", speakers=SPEAKERS), items
    )
    assert swapped.score < named.score
    assert swapped.score < 0.5
    assert swapped.reasons["other_coverage"] > swapped.reasons["named_coverage"]


def test_no_items_or_no_overlap_means_nothing_known() -> None:
    intent = understand("Which HTTP client does the exporter use?")
    assert answerability(intent, []).score == 0.0
    off = answerability(intent, [_turn("The weather was lovely in Porto.", "user")])
    assert off.score == 0.0
    on = answerability(intent, [_turn("The exporter uses the httpx client.", "user")])
    assert on.score > off.score


def test_a_role_named_in_the_question_is_no_speaker_to_contrast() -> None:
    # "the user" is a role in a coding history, not a person whose words are asked for
    intent = understand("should i ask the user before going ahead?", speakers=("user", "assistant"))
    items = [
        _turn("Go ahead without asking me before the obvious next step.", "user"),
        _turn("Before going ahead I will ask you.", "assistant"),
    ]
    a = answerability(intent, items)
    assert "other_coverage" not in a.reasons
    assert a.score == a.reasons["coverage"]
