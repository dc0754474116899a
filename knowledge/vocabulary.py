"""The declared vocabulary: the slots distilled items are about (`knowledge/vocabulary.toml`).

A slot names a subject a rule, decision, fact or preference can be about (the package manager,
the test runner, the user's residence, ...), with its scope, its cardinality, the terms whose
presence in an item's text puts the item in it, the requests it concerns, and examples. The
vocabulary is data: adding a slot is one entry in the TOML file. This module reads it (once per
process) and answers which slots a text names; which slots a request concerns by meaning is
`recall.slots` (it needs the embedding model).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

Scope = Literal["user", "person", "project", "environment"]
Cardinality = Literal["one", "many"]
VOCABULARY_FILE = Path(__file__).with_name("vocabulary.toml")


class VocabularyError(ValueError):
    """The vocabulary file is not as `knowledge/vocabulary.toml`'s header describes."""


@dataclass(frozen=True, slots=True)
class Slot:
    """One subject of the vocabulary."""

    name: str
    scope: Scope
    cardinality: Cardinality
    kinds: tuple[str, ...]
    terms: tuple[str, ...]
    tasks: tuple[str, ...]
    examples: tuple[str, ...]
    values: tuple[str, ...] = ()
    """The terms that name the slot in a request too: its specific values (tools, services).
    A one-value slot's terms are all values; a broad slot's generic words ("command",
    "folder") say what an item is about, not what a request is about."""


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Every slot, and per slot one pattern over its terms and one over its values."""

    slots: tuple[Slot, ...]
    _patterns: tuple[re.Pattern[str], ...]
    _values: tuple[re.Pattern[str] | None, ...]

    def named_in(self, text: str) -> frozenset[str]:
        """The slots whose terms `text` uses (what a distilled item is about)."""
        return frozenset(
            s.name for s, p in zip(self.slots, self._patterns, strict=True) if p.search(text)
        )

    def valued_in(self, text: str) -> frozenset[str]:
        """The slots whose values `text` names (what a request is about by its words)."""
        return frozenset(
            s.name for s, p in zip(self.slots, self._values, strict=True) if p and p.search(text)
        )

    def get(self, name: str) -> Slot:
        for s in self.slots:
            if s.name == name:
                return s
        raise KeyError(name)


def _pattern(terms: tuple[str, ...]) -> re.Pattern[str]:
    alts = sorted((re.escape(t.lower()) for t in terms), key=len, reverse=True)
    # a term is a word of its own: not inside another word or path ("bun" not in "bundle")
    return re.compile(rf"(?<![\w@/.-])(?:{'|'.join(alts)})(?![\w-])", re.IGNORECASE)


def _slot(raw: dict[str, object], where: str) -> Slot:
    def strings(key: str) -> tuple[str, ...]:
        v = raw.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
            raise VocabularyError(f"{where}: {key} must be a list of non-empty strings")
        return tuple(v)

    name = raw.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise VocabularyError(f"{where}: name must be snake_case")
    scope, card = raw.get("scope"), raw.get("cardinality")
    if scope not in ("user", "person", "project", "environment"):
        raise VocabularyError(
            f"{where} ({name}): scope {scope!r} is not user|person|project|environment"
        )
    if card not in ("one", "many"):
        raise VocabularyError(f"{where} ({name}): cardinality {card!r} is not one|many")
    terms = strings("terms")
    values = strings("values") if "values" in raw else (terms if card == "one" else ())
    slot = Slot(
        name,
        scope,
        card,
        strings("kinds"),
        terms,
        strings("tasks"),
        strings("examples"),
        values,
    )
    if not slot.terms or not slot.tasks:
        raise VocabularyError(f"{where} ({name}): a slot needs terms and tasks")
    return slot


def parse_vocabulary(text: str, source: str = "vocabulary") -> Vocabulary:
    """Read a vocabulary from TOML text.

    Raises:
        VocabularyError: not TOML, or a slot that is not as the header describes.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise VocabularyError(f"{source}: not TOML: {e}") from e
    raw = data.get("slot", [])
    slots = tuple(_slot(r, f"{source}: slot {i + 1}") for i, r in enumerate(raw))
    names = [s.name for s in slots]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise VocabularyError(f"{source}: duplicate slot names: {', '.join(dup)}")
    return Vocabulary(
        slots,
        tuple(_pattern(s.terms) for s in slots),
        tuple(_pattern(s.values) if s.values else None for s in slots),
    )


@cache
def vocabulary() -> Vocabulary:
    """The shipped vocabulary, read once per process."""
    return parse_vocabulary(VOCABULARY_FILE.read_text(encoding="utf-8"), str(VOCABULARY_FILE))
