from datetime import UTC, datetime

from ingest.models import ParsedTurn
from ingest.normalize import (
    clean_text,
    embedding_text,
    estimate_tokens,
    normalize_turn,
    slugify,
    truncate,
)


def test_clean_text_drops_nul_controls_and_lone_surrogates() -> None:
    assert clean_text("a\x00b\r\nc\ud800d\x07") == "ab\nc\ufffdd"


def test_truncate_keeps_head_and_tail() -> None:
    text = "h" * 100 + "t" * 100
    out, cut = truncate(text, 60)
    assert cut
    assert len(out) == 60
    assert out.startswith("hhhh")
    assert out.endswith("tt")
    assert "[200 chars, truncated]" in out
    assert truncate("short", 40) == ("short", False)
    assert truncate("x" * 50, 0) == ("x" * 50, False)


def test_estimate_tokens_and_slugify() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcde") == 2
    assert slugify("/home/Dev/My Project!") == "home-dev-my-project"
    assert slugify("***") == "unknown"


def test_normalize_turn_hashes_full_text_and_bounds_it() -> None:
    t = ParsedTurn(
        key="k",
        ordinal=0,
        role="user",
        text="  hello\x00 " + "z" * 100,
        timestamp=datetime(2023, 5, 8, tzinfo=UTC),
    )
    n = normalize_turn(t, max_chars=50)
    assert n.truncated
    assert n.full_size == 106
    assert len(n.text) < 106
    assert n.content_hash
    assert n.token_estimate == -(-len(n.text) // 4)
    assert normalize_turn(n, max_chars=50).text == n.text


def test_embedding_text_prefixes_the_session_date() -> None:
    t = ParsedTurn(
        key="k",
        ordinal=0,
        role="user",
        speaker="Caroline",
        text="hi",
        timestamp=datetime(2023, 5, 8, 13, 56, 3, tzinfo=UTC),
    )
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert embedding_text(t, when) == "[8 May 2023] Caroline: hi"
    assert embedding_text(t, None, prefix=False) == "Caroline: hi"


def test_embedding_text_is_bounded() -> None:
    t = ParsedTurn(
        key="k",
        ordinal=0,
        role="tool",
        text="z" * 50_000,
        timestamp=datetime(2023, 5, 8, tzinfo=UTC),
    )
    assert len(embedding_text(t, None)) < 2100
    assert len(embedding_text(t, None, max_chars=0)) > 50_000
