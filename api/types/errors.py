"""Expected failures as schema types, returned as members of result unions."""

from __future__ import annotations

import strawberry


@strawberry.type(
    description="No readable item has this id: unknown, in a project the API key does not grant "
    "(reported the same way), or for a close or retraction no longer current."
)
class NotFound:
    """No readable item has this id (items of other projects are reported the same way)."""

    kind: str = strawberry.field(
        description="What was looked up: `project`, `session`, `turn`, `lesson`, `correction`, "
        "`fact` or `topic`."
    )
    id: str = strawberry.field(description="The id that was asked for.")
    message: str = strawberry.field(description="A human-readable explanation.")


@strawberry.type(description="An argument was refused; `field` names it and `message` says why.")
class InvalidInput:
    """An argument was refused; `field` names it and `message` says why."""

    field: str = strawberry.field(
        description="The refused argument or input field, such as `first`, `tokenBudget` or "
        "`turns[2].role`."
    )
    message: str = strawberry.field(description="Why it was refused, in plain English.")


@strawberry.type(description="The API key does not grant access to the project named.")
class Forbidden:
    """The caller's key does not grant access to the project."""

    project: str = strawberry.field(description="The project the key does not grant.")
    message: str = strawberry.field(description="A human-readable explanation.")


@strawberry.type(
    description="The capability is not configured in this deployment (for example no ingest "
    "pipeline or no REM cycle)."
)
class Unavailable:
    """The capability is not configured in this deployment."""

    capability: str = strawberry.field(
        description="The missing capability: `ingest` or `consolidate`."
    )
    message: str = strawberry.field(description="A human-readable explanation.")
