"""Record-by-record validation of a model's structured reply.

A model's JSON reply holds lists of records (decisions, corrections, lessons...). Validating the
whole reply at once turns one record with an off-list value into a rejected reply, and everything
else the model said is lost. `validate_records` validates each record of each list field on its
own: a record that does not validate is left out and reported as a `RecordIssue` naming the
record (`decisions[1]`) and what is wrong with it (`object: Field required`); a top-level field
that does not validate takes its default and is reported the same way. Only a reply that is not a
JSON object, or lacks a required top-level field, is rejected as a whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeVar, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

__all__ = ["RecordIssue", "describe_error", "validate_records"]

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class RecordIssue:
    """One record (or top-level field) of a reply that did not validate and was left out."""

    path: str
    """Where in the reply: `decisions[1]`, `outcome`."""
    reason: str
    """What is wrong, field by field: `object: Field required`."""
    excerpt: str = ""
    """The start of the record as the model wrote it."""

    def __str__(self) -> str:
        tail = f" in {self.excerpt}" if self.excerpt else ""
        return f"{self.path}: {self.reason}{tail}"


def describe_error(e: ValidationError, *, skip: int = 0) -> str:
    """Pydantic's errors as `field: message (got value)`, `;`-joined; `skip` leading loc parts."""
    parts = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"][skip:]) or "record"
        got = err.get("input")
        shown = "" if err["type"] == "missing" else f" (got {_short(got, 40)})"
        parts.append(f"{loc}: {err['msg']}{shown}")
    return "; ".join(parts)


def _short(value: Any, limit: int) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _list_item(annotation: Any) -> Any | None:
    """The item type of a `list[X]` field, else None."""
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        return item
    return None


def validate_records(schema: type[T], data: Any) -> tuple[T, list[RecordIssue]]:
    """Validate `data` as `schema`, one record at a time (see the module docstring).

    Raises:
        ValueError: `data` is not a JSON object.
        ValidationError: a required top-level field is missing or invalid.
    """
    if not isinstance(data, dict):
        raise ValueError(f"the reply is a JSON {type(data).__name__}, not an object")
    issues: list[RecordIssue] = []
    clean: dict[str, Any] = {}
    for name, info in schema.model_fields.items():
        if name in data:
            item = _list_item(info.annotation)
            value = data[name]
            use_as_is = item is None or value is None
            clean[name] = value if use_as_is else _records(name, value, item, issues)
    try:
        return schema.model_validate(clean), issues
    except ValidationError as e:
        _drop_bad_fields(schema, e, clean, issues)
        return schema.model_validate(clean), issues


def _records(name: str, value: Any, item: Any, issues: list[RecordIssue]) -> list[Any]:
    """The records of list field `name` that validate as `item`; the others become issues."""
    adapter: TypeAdapter[Any] = TypeAdapter(item)
    kept = []
    for i, rec in enumerate(value if isinstance(value, list) else [value]):  # a lone record
        try:
            kept.append(adapter.validate_python(rec))
        except ValidationError as e:
            issues.append(RecordIssue(f"{name}[{i}]", describe_error(e), _short(rec, 80)))
    return kept


def _drop_bad_fields(
    schema: type[BaseModel], e: ValidationError, clean: dict[str, Any], issues: list[RecordIssue]
) -> None:
    """Remove the invalid top-level fields from `clean` (so they take their defaults).

    Raises:
        ValidationError: `e` itself, when a required field is among them.
    """
    bad = {str(err["loc"][0]) for err in e.errors() if err["loc"]}
    fields = schema.model_fields
    if any(n not in fields or fields[n].is_required() for n in bad):
        raise e
    for n in sorted(bad):
        issues.append(RecordIssue(n, f"{_field_errors(e, n)}; left at its default"))
        clean.pop(n, None)


def _field_errors(e: ValidationError, name: str) -> str:
    msgs = [
        f"{err['msg']} (got {_short(err.get('input'), 40)})"
        for err in e.errors()
        if err["loc"] and str(err["loc"][0]) == name
    ]
    return "; ".join(msgs)
