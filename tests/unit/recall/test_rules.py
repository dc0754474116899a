import pytest

from recall.rules import is_instruction


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Use bun.", True),
        ("Always use the conventional commits format for the title.", True),
        ("Never `bun link` a session version.", True),
        ("How can we improve the rules to ensure you'll follow my instructions correclty.", False),
        ("In how telemetry", False),
    ],
)
def test_only_instructions_are_handed_to_a_session(text, kept):
    assert is_instruction(text) is kept
