"""`ItemKind`: the kinds of item memory holds and `context` returns.

The one list of kinds: repositories tag their rows with it, `recall` ranks by it, and the API's
GraphQL enum (`ContextKind`) is generated from it, so a new kind is added here only.

Code that compares kinds once per candidate imports the module-level constants below (`TURN`,
`FACT`, ...: the same members): on Python 3.11 `EnumType` defines `__getattr__`, which puts every
class attribute read (`ItemKind.TURN`) on CPython's slow lookup path, about 125 ns against 15 ns
for a global.
"""

from __future__ import annotations

from enum import StrEnum


class ItemKind(StrEnum):
    """Kinds of context item; the value is the storage and wire name (`reference_layer`)."""

    TURN = "turn"
    LESSON = "lesson"
    CORRECTION = "correction"
    FACT = "fact"
    TOPIC = "topic"
    REFERENCE_LAYER = "reference_layer"
    PRIMER = "primer"


TURN = ItemKind.TURN
LESSON = ItemKind.LESSON
CORRECTION = ItemKind.CORRECTION
FACT = ItemKind.FACT
TOPIC = ItemKind.TOPIC
REFERENCE_LAYER = ItemKind.REFERENCE_LAYER
PRIMER = ItemKind.PRIMER

KNOWLEDGE_KINDS = frozenset(k for k in ItemKind if k is not ItemKind.TURN)
"""Every kind distilled from turns (all but `turn`)."""
