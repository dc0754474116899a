"""Expected failures as schema types, returned as members of result unions."""

from __future__ import annotations

import strawberry


@strawberry.type
class NotFound:
    """No readable item has this id (items of other projects are reported the same way)."""

    kind: str
    id: str
    message: str


@strawberry.type
class InvalidInput:
    """An argument was refused; `field` names it and `message` says why."""

    field: str
    message: str


@strawberry.type
class Forbidden:
    """The caller's key does not grant access to the project."""

    project: str
    message: str


@strawberry.type
class Unavailable:
    """The capability is not configured in this deployment."""

    capability: str
    message: str
