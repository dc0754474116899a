"""The graph core's errors: one base, structured attributes, no driver types leaking out."""

from __future__ import annotations

from collections.abc import Sequence


class GraphError(Exception):
    """Base of every error the graph core raises."""


class NotFoundError(GraphError):
    """Raised by `get`-style repository methods when no live node has the id."""

    def __init__(self, kind: str, id: str) -> None:
        super().__init__(f"{kind} {id!r} not found")
        self.kind = kind
        self.id = id


class ConflictError(GraphError):
    """Raised when a write violates a uniqueness constraint."""


class GraphUnavailableError(GraphError):
    """Raised when the engine cannot be reached (after the driver's own retries)."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"graph engine at {address} is unavailable: {reason}")
        self.address = address
        self.reason = reason


class QueryError(GraphError):
    """Raised when the engine rejects a query: a bug in a `.cypher` file, never user input."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"query {name!r} failed: {reason}")
        self.name = name
        self.reason = reason


class UnknownQueryError(GraphError):
    """Raised when code asks the registry for a query name that has no `.cypher` file."""

    def __init__(self, name: str, close: Sequence[str] = ()) -> None:
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        super().__init__(f"no Cypher query named {name!r}{hint}")
        self.name = name
        self.close = tuple(close)


class QueryFileError(GraphError):
    """Raised when a `.cypher` file's header or body breaks the rules in `cypher/README.md`."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class MigrationError(GraphError):
    """Raised when a schema migration cannot be applied, or the graph's schema is not ours."""


class EngineStartError(GraphError):
    """Raised when the embedded engine cannot start (socket taken, data dir not writable, ...)."""


class InvalidInputError(GraphError):
    """Raised when a caller passes a value the graph cannot store (wrong type, oversize...)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"invalid {field}: {reason}")
        self.field = field
        self.reason = reason
