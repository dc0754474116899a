"""Pure text stages: cleanup, truncation, token estimates, hashes and the embedding prefix.

Nothing here does I/O; every function is deterministic, so re-runs produce identical turns.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

from core.ids import content_hash
from core.text import estimate_tokens
from ingest.models import ParsedSession, ParsedTurn

__all__ = [
    "EMBED_CHARS",
    "clean_text",
    "embedding_text",
    "estimate_tokens",
    "normalize_session",
    "normalize_turn",
    "slugify",
    "truncate",
]

# C0 controls except TAB/LF, plus DEL and C1 controls: noise in transcripts, and NUL breaks engines.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SLUG = re.compile(r"[^a-z0-9]+")


def clean_text(text: str) -> str:
    """Make text safe to store: lone surrogates → U+FFFD, NUL/control chars dropped, CRLF → LF."""
    if not text:
        return ""
    text = _SURROGATE.sub("\ufffd", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    return text.strip()


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """Cut `text` to at most `limit` characters (if limit > ~30), keeping head and tail.

    Returns the (possibly) shortened text and whether anything was cut. `limit <= 0` disables it.
    """
    if limit <= 0 or len(text) <= limit:
        return text, False
    marker = f"\n…[{len(text)} chars, truncated]…\n"
    room = max(0, limit - len(marker))  # the result, marker included, fits in `limit`
    head = (room * 3) // 4
    tail = room - head
    return text[:head] + marker + (text[-tail:] if tail else ""), True


def slugify(name: str) -> str:
    """Project slug: ASCII, lower case, dashes; `unknown` for nothing usable."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = _SLUG.sub("-", ascii_name.lower()).strip("-")
    return slug[:64] or "unknown"


def _date_label(dt: datetime) -> str:
    return f"{dt.day} {dt.strftime('%b %Y')}"


EMBED_CHARS = 2000
"""Characters of a turn that are embedded: all-MiniLM-L6-v2 reads at most 256 tokens (~1,000
characters), so tokenising more only costs time."""


def embedding_text(
    turn: ParsedTurn,
    session_date: datetime | None,
    *,
    prefix: bool = True,
    max_chars: int = EMBED_CHARS,
) -> str:
    """The text that is embedded: `[8 May 2023] Caroline: ...` (the date prefix helps retrieval)."""
    who = turn.speaker or turn.role
    body = turn.text[:max_chars] if max_chars > 0 else turn.text
    if not prefix:
        return f"{who}: {body}"
    when = session_date or turn.timestamp
    return f"[{_date_label(when)}] {who}: {body}"


def normalize_turn(turn: ParsedTurn, *, max_chars: int) -> ParsedTurn:
    """Clean, bound and hash one turn (idempotent: normalising twice changes nothing more)."""
    text = clean_text(turn.text)
    digest = content_hash(text)
    full = max(turn.full_size, len(text))
    text, cut = truncate(text, max_chars)
    return turn.model_copy(
        update={
            "text": text,
            "speaker": clean_text(turn.speaker),
            "full_size": full,
            "truncated": turn.truncated or cut,
            "content_hash": turn.content_hash or digest,
            "token_estimate": estimate_tokens(text),
        }
    )


def normalize_session(session: ParsedSession, *, max_chars: int) -> ParsedSession:
    """Normalise every turn of a session and clean its title."""
    turns = tuple(normalize_turn(t, max_chars=max_chars) for t in session.turns)
    title = clean_text(session.title)
    return session.model_copy(update={"turns": turns, "title": title[:200]})
