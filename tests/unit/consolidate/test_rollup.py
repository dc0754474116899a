from datetime import date

from consolidate.rollup import SourceItem, month_key, render, week_end, week_key
from consolidate.text import clip, fit_bytes, top_keywords


def _items(n: int, size: int = 300) -> list[SourceItem]:
    return [
        SourceItem(
            kind=k,
            id=f"{k}{i}",
            title=f"{k} {i} " + "word " * (size // 5),
            text="detail " * 40,
            at=1_700_000_000_000 + i,
            sub="decision",
        )
        for i in range(n)
        for k in ("session", "lesson", "correction", "fact")
    ]


def test_render_fits_the_budget_by_tightening_first():
    text, cut = render("Daily", _items(5), 8_000)
    assert len(text.encode()) <= 8_000
    assert not cut
    assert text.index("## Corrections") < text.index("## Decisions") < text.index("## Sessions")


def test_render_cuts_and_flags_when_even_the_tightest_form_is_too_big():
    text, cut = render("Monthly", _items(400), 15_000)
    assert cut
    assert len(text.encode()) <= 15_000
    assert "## Corrections" in text  # most actionable sections survive the cut


def test_period_keys():
    d = date(2026, 11, 22)
    assert week_key(d) == "2026-W47"
    assert month_key(d) == "2026-11"
    assert week_end(d) == d  # a Sunday
    assert week_key(date(2027, 1, 1)) == "2026-W53"


def test_text_helpers():
    assert clip("alpha beta gamma delta", 12) == "alpha beta…"
    assert len(fit_bytes("é" * 10, 5).encode()) <= 5
    assert top_keywords(["graph index", "graph store"], [("leiden",)], k=3) == [
        "graph",
        "leiden",
        "index",
    ]
