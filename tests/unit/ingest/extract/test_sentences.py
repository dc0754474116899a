"""The sentences a person typed: split without capitals or full stops, pasted material left out."""

from ingest.extract.sentences import pasted_lines, said, typed


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


def test_a_script_pasted_under_a_log_line_is_pasted_whole_prose_lines_in_it_too():
    message = (
        "the CI job times out, logs below:\n"
        "Run # Create a wrapper script\n"
        "  cat > wrapper.sh << 'EOF'\n"
        "  - Treat this as NON-INTERACTIVE. Never open editors or pagers.\n"
        "  \n"
        "  chmod +x wrapper.sh\n"
        "please find out why it hangs"
    )
    got = texts(message)
    assert got[0] == "the CI job times out, logs below"
    assert got[-1] == "find out why it hangs"
    assert not any("Never" in s or "chmod" in s for s in got)
    assert any("Never open editors" in p for p in pasted_lines(message))
    assert "Never open editors" not in typed(message)


def test_an_indented_list_a_person_typed_stays():
    message = "rules for this repo:\n  - always run the linter before pushing\n  - use uv"
    assert "always run the linter before pushing" in texts(message)
    assert typed(message).count("\n") == 2


def test_a_short_line_with_numbers_is_typed_a_long_one_of_symbols_is_pasted():
    assert texts("My phone number is +1 555 0100.") == ["My phone number is +1 555 0100."]
    assert pasted_lines("0x7f3a 0x7f3b 0x7f3c 0x7f3d 0x7f3e 0x7f3f 0x7f40 0x7f41 0x7f42")
