"""Schema descriptions: typed decorators, and descriptions for types declared without them.

Every type, field, argument and enum value of the schema has a description (GraphiQL's Docs pane
shows them; `tests/unit/api/test_schema_descriptions.py` checks). Most are given where the type is
declared; the helpers here cover what strawberry's own API leaves awkward.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

import strawberry
from strawberry.types.base import get_object_definition
from strawberry.types.enum import has_enum_definition
from strawberry.types.field import StrawberryField

AsOfArg = Annotated[
    datetime | None,
    strawberry.argument(
        description="Event time to read at: what was true then (ISO 8601; UTC when no zone); "
        "default now."
    ),
]
"""The `asOf` argument of the reads that take one (see `docs/time.md`)."""
KnownAtArg = Annotated[
    datetime | None,
    strawberry.argument(
        description="Record time to read at: what remgraph knew then (ISO 8601; UTC when no "
        "zone); default now."
    ),
]
"""The `knownAt` argument of the reads that take one (see `docs/time.md`)."""


def described_field(description: str) -> Callable[[Callable[..., Any]], StrawberryField]:
    """`@strawberry.field(description=...)` for a resolver, typed (strawberry types it `Any`)."""

    def decorate(resolver: Callable[..., Any]) -> StrawberryField:
        return strawberry.field(resolver, description=description)

    return decorate


def described_mutation(description: str) -> Callable[[Callable[..., Any]], StrawberryField]:
    """`@strawberry.mutation(description=...)` for a resolver, typed like `described_field`."""

    def decorate(resolver: Callable[..., Any]) -> StrawberryField:
        return strawberry.mutation(resolver, description=description)

    return decorate


def describe_values(enum: type[Enum], descriptions: Mapping[str, str]) -> None:
    """Give the GraphQL values of a strawberry enum their descriptions, by member name.

    For enums whose members cannot be `strawberry.enum_value(...)`: those of `graph` and `recall`
    (which know nothing of GraphQL), and those whose values resolvers pass on as they are.
    """
    if not has_enum_definition(enum):
        raise TypeError(f"{enum!r} is not a strawberry enum")
    for value in enum.__strawberry_definition__.values:
        value.description = descriptions.get(value.name, value.description)


def describe_type(cls: type, description: str, fields: Mapping[str, str]) -> None:
    """Give a strawberry type declared without descriptions its own and its fields' (by name)."""
    definition = get_object_definition(cls, strict=True)
    definition.description = description
    for f in definition.fields:
        f.description = fields.get(f.python_name, f.description)
