"""Every type, field, argument, input field and enum value of the schema has a description."""

from __future__ import annotations

from enum import Enum

import strawberry
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
)

from api.schema import build_schema

BUILT_IN_SCALARS = frozenset({"String", "Int", "Float", "Boolean", "ID"})


def _lacking(description: str | None) -> bool:
    return description is None or not description.strip()


def undocumented(schema: GraphQLSchema) -> list[str]:
    """Schema coordinates (`Type`, `Type.field`, `Type.field(arg:)`, `Enum.VALUE`) with no text."""
    missing: list[str] = []
    for name, type_ in sorted(schema.type_map.items()):
        if name.startswith("__") or name in BUILT_IN_SCALARS:
            continue
        if _lacking(type_.description):
            missing.append(name)
        if isinstance(type_, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in type_.fields.items():
                if _lacking(field.description):
                    missing.append(f"{name}.{field_name}")
                missing += [
                    f"{name}.{field_name}({arg_name}:)"
                    for arg_name, arg in field.args.items()
                    if _lacking(arg.description)
                ]
        elif isinstance(type_, GraphQLInputObjectType):
            missing += [
                f"{name}.{field_name}"
                for field_name, field in type_.fields.items()
                if _lacking(field.description)
            ]
        elif isinstance(type_, GraphQLEnumType):
            missing += [
                f"{name}.{value_name}"
                for value_name, value in type_.values.items()
                if _lacking(value.description)
            ]
    return missing


def test_every_schema_element_has_a_description() -> None:
    missing = undocumented(build_schema()._schema)
    assert not missing, (
        f"{len(missing)} schema elements have no description (GraphiQL's Docs pane shows them; "
        "add `description=` where they are declared):\n  " + "\n  ".join(missing)
    )


@strawberry.enum
class Colour(Enum):
    RED = "red"


@strawberry.input
class Paint:
    colour: Colour


@strawberry.type(name="Query", description="Reads.")
class PaintQuery:
    @strawberry.field
    def mix(self, paint: Paint, coats: int = 1) -> str:
        return str(paint.colour)


def test_the_check_names_what_lacks_a_description() -> None:
    assert undocumented(strawberry.Schema(query=PaintQuery)._schema) == [
        "Colour",
        "Colour.RED",
        "Paint",
        "Paint.colour",
        "Query.mix",
        "Query.mix(paint:)",
        "Query.mix(coats:)",
    ]
