"""The transcript formats: the parser registry, and picking the parser for a file.

`PARSERS` is the one list of formats: the CLI's `--format` choices, auto-detection and the
`source` written on each session all come from it. Adding a format is one parser module in
`ingest/sources/` (a `SourceParser`: `name`, `incremental`, `sniff`, `parse`) plus one line here.
"""

from __future__ import annotations

from pathlib import Path

from ingest.sources.base import SourceParser
from ingest.sources.chatgpt import ChatGPTParser
from ingest.sources.claude_code import ClaudeCodeParser
from ingest.sources.codex import CodexParser
from ingest.sources.generic import GenericParser
from ingest.sources.locomo import LocomoParser

__all__ = ["PARSERS", "detect_format", "formats", "parser_for", "wanted_file"]

PARSERS: dict[str, type[SourceParser]] = {
    "claude-code": ClaudeCodeParser,
    "codex": CodexParser,
    "chatgpt": ChatGPTParser,
    "generic": GenericParser,
    "locomo": LocomoParser,
}
"""Every transcript format by name (the parser's `name`, stored as the session's `source`)."""

SUFFIXES = (".jsonl", ".json", ".ndjson")
_SNIFF_BYTES = 8192


def formats() -> tuple[str, ...]:
    """The registered format names, in registry order (auto-detection's tie order)."""
    return tuple(PARSERS)


def parser_for(name: str) -> SourceParser:
    """A fresh parser for a format name (one of `formats()`)."""
    try:
        return PARSERS[name]()
    except KeyError:
        raise ValueError(f"unknown format {name!r}; choose one of {', '.join(PARSERS)}") from None


def wanted_file(path: Path) -> bool:
    """Whether a file found under a directory argument looks like a transcript."""
    return path.suffix.lower() in SUFFIXES and not path.name.startswith(".")


def detect_format(path: Path, head: bytes | None = None) -> str | None:
    """The best-scoring format for `path`, or None when nothing scores at least 30."""
    if head is None:
        with path.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    text = head.decode("utf-8-sig", errors="replace")
    best, score = None, 0
    for name in PARSERS:
        s = parser_for(name).sniff(path, text)
        if s > score:
            best, score = name, s
    return best if score >= 30 else None
