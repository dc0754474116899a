"""The extractive session summary: salient, not repeated, in order, in the third person."""

from __future__ import annotations

from ingest.extract.summary import extractive_summary, third_person

TALK = [
    ("Caroline", True, "Hey Mel! Good to see you!"),
    ("Melanie", True, "Hi! How are you doing these days?"),
    ("Caroline", True, "I went to an LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", True, "Wow, that sounds great. What happened at the support group?"),
    (
        "Caroline",
        True,
        "The transgender stories at the support group were so inspiring. "
        "The support group stories were so inspiring to me.",
    ),
    ("Melanie", True, "I'm painting a lake sunrise with my kids this weekend, we love painting."),
    ("Caroline", True, "Nice, thanks! Bye!"),
]


def test_salient_sentences_in_order_without_chatter_or_repeats() -> None:
    out = extractive_summary(TALK)
    assert "support group" in out
    assert "painting" in out
    assert "Hey Mel" not in out  # a greeting carries no content
    assert "?" not in out  # questions are not what happened
    assert out.count("inspiring") == 1  # the near-repeat is skipped
    assert out.index("support group") < out.index("painting")  # conversation order


def test_first_person_becomes_the_speaker() -> None:
    out = extractive_summary(TALK)
    assert "Caroline went to an LGBTQ support group" in out
    assert "Melanie is painting a lake sunrise with their kids" in out  # later mentions: they
    assert third_person("Nothing about anyone.", "Ann") == ("Nothing about anyone.", False)
    # a reflexive is "themselves" whoever says it; alone it does not name the speaker
    assert third_person("I taught myself to paint.", "Ann") == (
        "Ann taught themselves to paint.",
        True,
    )
    assert third_person("It's freeing to express myself.", "Ann") == (
        "It's freeing to express themselves.",
        False,
    )


def test_agent_sessions_label_the_roles_and_the_budget_holds() -> None:
    lines = [
        ("User", False, "The billing tests fail with ModuleNotFoundError on a fresh checkout."),
        ("Assistant", False, "The billing package is not installed in the test environment."),
        ("Assistant", False, "Added pythonpath to the pytest configuration for the billing tests."),
        ("User", False, "Thanks, the billing tests pass now on a fresh checkout."),
    ]
    out = extractive_summary(lines, max_words=20)
    assert out.startswith(("User: ", "Assistant: "))
    assert len(out.split()) <= 20 + 2  # the labels aside
    assert extractive_summary([("User", False, "ok")]) == ""
