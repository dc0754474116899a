"""Cursor pagination: `first`/`after` on every list; cursors are opaque offsets."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import strawberry

from graph.errors import InvalidInputError

T = TypeVar("T")


def encode_cursor(offset: int) -> str:
    """Opaque cursor for the item at `offset`."""
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    """Offset just after `cursor` (0 for None); refuses cursors this API did not issue."""
    if cursor is None:
        return 0
    try:
        kind, _, num = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
        if kind != "o":
            raise ValueError(kind)
        return int(num) + 1
    except (ValueError, UnicodeDecodeError) as e:
        raise InvalidInputError("after", f"{cursor!r} is not a cursor from this API") from e


@strawberry.type
class PageInfo:
    """Where a page sits in its list."""

    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class Edge(Generic[T]):
    """One item and its cursor."""

    cursor: str
    node: T


@strawberry.type
class Connection(Generic[T]):
    """A page of a list: `edges` (with cursors), `nodes`, and `pageInfo`."""

    edges: list[Edge[T]]
    page_info: PageInfo

    @strawberry.field
    def nodes(self) -> list[T]:
        """The items without cursors."""
        return [e.node for e in self.edges]


C = TypeVar("C", bound=Connection)  # type: ignore[type-arg]  # any concrete connection


def make_connection(cls: type[C], items: Sequence[Any], offset: int, first: int) -> C:
    """A `cls` page from `items` fetched as `first + 1` rows starting at `offset`."""
    page = list(items[:first])
    edges = [Edge(cursor=encode_cursor(offset + i), node=n) for i, n in enumerate(page)]
    return cls(
        edges=edges,
        page_info=PageInfo(
            has_next_page=len(items) > first,
            end_cursor=edges[-1].cursor if edges else None,
        ),
    )
