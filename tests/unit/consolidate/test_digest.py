from consolidate.digest import Line, SessionDigest, digest, pick, rank_lines, summary_lines
from consolidate.rollup import Block, render
from graph.rows import SessionTurn


def _turns(texts: list[tuple[str, str]]) -> list[SessionTurn]:
    return [
        SessionTurn(
            session_id="s1",
            id=f"t{i}",
            ordinal=i,
            role="user",
            speaker=who,
            text=text,
            at=1_700_000_000_000 + i,
        )
        for i, (who, text) in enumerate(texts)
    ]


TURNS = _turns(
    [
        ("Ana", "Hello there!"),
        ("Ben", "I finished the garden fence and planted tomatoes in the garden beds."),
        ("Ana", "The garden fence looks great, the tomatoes will love the garden sun."),
        ("Ben", "Okay."),
        ("Ana", "My sister visits next week and she wants to see the garden."),
    ]
)


def test_rank_lines_prefers_the_subject_attributes_speakers_and_skips_greetings():
    lines = rank_lines("s1", TURNS)
    texts = [x.text for x in lines]
    assert all(not t.endswith(("Hello there!", "Okay.")) for t in texts)
    assert texts[0].startswith(("Ben: ", "Ana: "))
    assert "garden" in texts[0]
    assert rank_lines("s1", TURNS) == lines  # deterministic


def test_digest_themes_leave_out_speakers_and_ignore_a_one_sentence_summary():
    d = digest(
        "s1",
        0,
        [*TURNS, SessionTurn(session_id="s1", ordinal=9, speaker="Garden", text="Garden garden")],
        "Hi!",
    )
    assert d.themes[0] == "fence" or "garden" not in d.themes
    assert d.summary == ""
    assert d.speakers == ("Ana", "Ben", "Garden")


def test_pick_fills_round_robin_within_room_in_time_order():
    a = [Line(f"A{i} " + "x" * 50, 10 - i, i, i, "a") for i in range(5)]
    b = [Line(f"B{i} " + "y" * 50, 20 + i, i, i, "b") for i in range(5)]
    got = pick([a, b], room=4 * 57)
    assert [x.text[:2] for x in got] == ["A1", "A0", "B0", "B1"]


def test_render_fills_to_target_and_never_passes_the_budget():
    pool = tuple(Line(f"Ana: sentence number {i} " + "w " * 40, i, i, i, "s") for i in range(200))
    text, cut = render("Daily", [], 8_000, blocks=[Block("10:00", (), pool)], target=5_000)
    assert not cut
    assert 4_800 <= len(text.encode()) <= 5_000
    capped, _ = render("Weekly", [], 8_000, blocks=[Block("Mon", (), pool, cap=3)], target=5_000)
    assert capped.count("\n- ") == 3


def test_summary_lines_take_the_turn_and_place_of_the_quote_they_restate():
    d = digest("s1", 1_700_000_000_000, TURNS)
    quote = next(x for x in d.lines if "finished the garden fence" in x.text)
    d = SessionDigest(
        "s1",
        d.at,
        lines=d.lines,
        summary="Ben finished the garden fence and planted tomatoes in the garden beds. "
        "They talked about a visit.",
    )
    first, second = summary_lines(d)
    assert (first.turn_id, first.at, first.ordinal) == (quote.turn_id, quote.at, quote.ordinal)
    assert first.summary
    # restating no quote: no turn, placed right after the sentence before it
    assert (second.turn_id, second.at, second.ordinal) == ("", quote.at, quote.ordinal)
    assert second.rank > first.rank


def test_render_shows_a_summary_paragraph_or_an_agents_labelled_lines_in_order():
    quote = Line("Ana: my sister visits next week and wants to see the garden", 5, 4, 0, "s1", "t4")
    said = Line("Ben finished the garden fence and planted tomatoes.", 1, 1, 0, "s1", "t1", True)
    text, _ = render("Weekly", [], 8_000, blocks=[Block("Mon", (), (quote,), lead=(said,))])
    assert "Summary: Ben finished the garden fence and planted tomatoes.\n- Ana: my sister" in text
    ask = Line("User: Set up the test runner for the repo.", 1, 0, 0, "s2", "t0", True)
    did = Line("Assistant: Running the tests with pnpm now.", 3, 2, 1, "s2", "t2", True)
    mid = Line("Assistant: The API tests need Postgres to be running.", 2, 1, 0, "s2", "t1")
    text, _ = render("Daily", [], 8_000, blocks=[Block("09:00", (), (mid,), lead=(ask, did))])
    assert "Summary:" not in text
    assert f"- {ask.text}\n- {mid.text}\n- {did.text}" in text


def test_a_models_lines_are_the_assistants_and_bracketed_notes_are_no_summary():
    turns = [
        SessionTurn(
            session_id="s1",
            id="t0",
            ordinal=0,
            role="assistant",
            speaker="claude-sonnet-4",
            text="I added the dry run flag to the export command and its tests.",
            at=1,
        )
    ]
    d = digest("s1", 0, turns)
    assert [x.text for x in d.lines] == [
        "Assistant: I added the dry run flag to the export command and its tests."
    ]
    d = SessionDigest(
        "s1",
        0,
        lines=d.lines,
        summary="Assistant: [thinking] **Locating the export command. "
        "Assistant: I added the dry run flag to the export command and its tests.",
    )
    assert [x.text for x in summary_lines(d)] == [d.lines[0].text]
