"""The declared vocabulary as the LLM extractor asks for it and reads it back.

Pass 2 carries the vocabulary (`knowledge/vocabulary.toml`) as one line per slot, its name,
scope, cardinality and up to two examples (`vocabulary_section`), and asks the model to name the
slot each decision, correction and rule fills. `known_slot` reads a named slot back: a slot the
vocabulary declares, else None and an issue naming the pass, the record and the field. A fact in
a slot of cardinality one takes the slot's name as its predicate (`slot_predicate`), so a newer
value for the same subject and slot ends the older one (`ingest.extract.facts`).
"""

from __future__ import annotations

import json

from knowledge.vocabulary import Slot, Vocabulary, vocabulary

__all__ = ["known_slot", "slot_line", "slot_predicate", "vocabulary_section"]


def slot_line(slot: Slot, examples: int = 2) -> str:
    """`package_manager (project, one): "Use pnpm, not npm." "We install everything with uv."`."""
    head = f"{slot.name} ({slot.scope}, {slot.cardinality})"
    said = " ".join(json.dumps(e, ensure_ascii=False) for e in slot.examples[:examples])
    return f"{head}: {said}" if said else head


def vocabulary_section(vocab: Vocabulary | None = None) -> str:
    """The vocabulary's slots, one line each, in the file's order."""
    return "\n".join(slot_line(s) for s in (vocab or vocabulary()).slots)


def known_slot(
    name: str | None, what: str, issues: list[str], vocab: Vocabulary | None = None
) -> Slot | None:
    """The slot `name` names, or None; a name the vocabulary lacks is ignored with an issue.

    `what` names the pass and the record (`pass 2 decision 'database uses PostgreSQL'`).
    """
    if name is None:
        return None
    try:
        return (vocab or vocabulary()).get(name)
    except KeyError:
        issues.append(f"{what}: slot '{name}' is not in the vocabulary; slot ignored")
        return None


def slot_predicate(predicate: str, slot: Slot | None) -> str:
    """The name of a one-value slot (newer values replace older ones under it), else `predicate`."""
    return slot.name if slot is not None and slot.cardinality == "one" else predicate
