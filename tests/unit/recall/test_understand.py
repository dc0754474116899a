from datetime import UTC, datetime

import pytest

from recall.understand import understand

NOW = datetime(2024, 3, 10, 12, tzinfo=UTC)


def ms(*a):
    return int(datetime(*a, tzinfo=UTC).timestamp() * 1000)


def test_speakers_are_recognised_and_removed_from_terms():
    i = understand(
        "When did Caroline go to the LGBTQ support group?", speakers=("Caroline", "Melanie")
    )
    assert i.speakers == ("Caroline",)
    assert i.terms == ("lgbtq", "support", "group")
    assert i.temporal
    assert i.keyword_query == "lgbtq support group"


def test_possessive_and_first_name_match():
    i = understand("What is Jon's favourite dance?", speakers=("Jon Smith", "Gina"))
    assert i.speakers == ("Jon Smith",)
    assert "jon" not in i.terms
    assert "favourite" in i.terms


def test_month_year_range():
    i = understand("What did Melanie paint in May 2023?", now=NOW)
    assert [(t.start_ms, t.end_ms) for t in i.times] == [(ms(2023, 5, 1), ms(2023, 6, 1))]
    assert "may" not in i.terms
    assert "2023" not in i.terms


def test_day_month_year_and_month_day_year():
    a = understand("what happened on 8 May 2023", now=NOW).times[0]
    b = understand("what happened on May 8, 2023", now=NOW).times[0]
    assert a.start_ms == b.start_ms == ms(2023, 5, 7)
    assert a.contains(ms(2023, 5, 9))


def test_relative_expressions_use_reference_time():
    i = understand("what did we decide last year", now=NOW)
    assert (i.times[0].start_ms, i.times[0].end_ms) == (ms(2023, 1, 1), ms(2024, 1, 1))
    y = understand("what broke yesterday", now=NOW).times[0]
    assert (y.start_ms, y.end_ms) == (ms(2024, 3, 9), ms(2024, 3, 10))
    assert understand("in 2022 we moved", now=NOW).times[0].start_ms == ms(2022, 1, 1)


def test_plain_query_has_no_time_and_keeps_text_fallback():
    i = understand("the of and")
    assert i.terms == ()
    assert i.times == ()
    assert i.keyword_query == "the of and"


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("What are my travel preferences?", True),
        ("What rules should I follow in this repo?", True),
        ("Which coding conventions apply here?", True),
        ("What does the user like for breakfast?", True),
        ("Book me a flight to Madrid", False),
        ("How do I install a new package?", False),
        ("What did the user rule out?", False),
    ],
)
def test_asks_rules_only_for_queries_about_standing_instructions(query: str, asks: bool) -> None:
    assert understand(query, now=NOW).asks_rules is asks
