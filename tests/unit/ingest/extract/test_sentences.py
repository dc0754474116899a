"""The sentences a person typed: split without capitals or full stops, pasted material left out."""

from ingest.extract.sentences import pasted_lines, said


def texts(message: str) -> list[str]:
    return said(message)


def test_lowercase_sentences_on_one_line_and_across_lines_are_split():
    got = texts("ok so we dont do npm in this repo. use bun going forward\nIve moved to Berlin")
    assert got == ["we dont do npm in this repo.", "use bun going forward", "Ive moved to Berlin"]


def test_pasted_logs_code_and_tables_are_not_sentences():
    message = (
        "this is failing again\n"
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        "ValueError: bad value\n"
        "```\nconst x = 1;\n```\n"
        "| a | b |\n"
        "can you look at it"
    )
    assert texts(message) == ["this is failing again", "can you look at it"]
    pasted = pasted_lines(message)
    assert any("ValueError" in p for p in pasted)
    assert any("const x" in p for p in pasted)


def test_markdown_marks_and_lead_ins_go_words_stay():
    got = texts("- **always** run the linter before pushing\n1. yes, keep the old API working")
    assert got == ["always run the linter before pushing", "keep the old API working"]


def test_abbreviations_do_not_cut_a_sentence():
    assert texts("My dentist is Dr. Okafor. The meeting is on March 3.") == [
        "My dentist is Dr. Okafor.",
        "The meeting is on March 3.",
    ]


def test_too_short_to_say_anything_is_dropped():
    assert texts("ok\nthanks!\nyes") == []
