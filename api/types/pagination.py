"""Cursor pagination: `first`/`after` on every list; cursors are opaque offsets."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Annotated, Any, Generic, TypeVar

import strawberry

from api.types.docs import described_field
from graph.errors import InvalidInputError

T = TypeVar("T")

FirstArg = Annotated[
    int,
    strawberry.argument(
        description="Page size: how many items to return, 1 to the server's limit (200 by default)."
    ),
]
"""The `first` argument of every paged list."""
AfterArg = Annotated[
    str | None,
    strawberry.argument(
        description="Return the items after this cursor (an `endCursor` or edge `cursor` of the "
        "same list); null starts at the beginning."
    ),
]
"""The `after` argument of every paged list."""


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


@strawberry.type(description="Where a page sits in its list, and how to ask for the next one.")
class PageInfo:
    """Where a page sits in its list."""

    has_next_page: bool = strawberry.field(
        description="True when more items follow this page (pass `endCursor` as `after`)."
    )
    end_cursor: str | None = strawberry.field(
        description="The cursor of the page's last item, to pass as `after`; null on an empty page."
    )


@strawberry.type(description="One item of a page and its cursor.")
class Edge(Generic[T]):
    """One item and its cursor."""

    cursor: str = strawberry.field(
        description="Opaque cursor of this item: pass it as `after` to get the items that follow."
    )
    node: T = strawberry.field(description="The item.")


@strawberry.type(description="A page of a list: `edges` (with cursors), `nodes`, and `pageInfo`.")
class Connection(Generic[T]):
    """A page of a list: `edges` (with cursors), `nodes`, and `pageInfo`."""

    edges: list[Edge[T]] = strawberry.field(description="The page's items, each with its cursor.")
    page_info: PageInfo = strawberry.field(
        description="Whether more items follow, and the cursor to continue from."
    )

    @described_field("The page's items without cursors, in the same order as `edges`.")
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
