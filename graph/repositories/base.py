"""Bi-temporal behaviour shared by every repository.

A subclass names its queries (module-level `Q("<aggregate>.<method>")` constants, so the registry
test sees them) and its two record mappers; this base turns them into `upsert_many`, `get`,
`get_many`, `close`, `supersede` and `set_embeddings`. Searching turns is recall's job
(`graph.repositories.recall.RecallRepository`, the queries `context` and `search` run).

Query conventions the base relies on (see `cypher/README.md`):

- `upsert_many(rows) -> count`, `set_embeddings(rows) -> count` with rows `{id, embedding}`;
- `get_many(ids, as_of, known_at) -> node` (the node's property map);
- `close(ids, at, now) -> id`; `supersede(old_id, new_id, at, now) -> old_id, new_id`.

Times: `as_of` is event time, `known_at` record time; both default to now. A node is visible when
`valid_from <= as_of < valid_to` and `recorded_at <= known_at < expired_at`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

import numpy as np

from core.timeutil import now_ms, to_ms
from graph.cypher import QueryRef
from graph.db import GraphDB
from graph.errors import InvalidInputError, NotFoundError
from graph.records import Row, embedding_rows

M = TypeVar("M")

VectorLike = Sequence[float] | np.ndarray
"""A vector as a sequence of floats or a 1-d numpy array."""


def window(as_of: datetime | None, known_at: datetime | None) -> tuple[int, int]:
    """(`as_of`, `known_at`) in epoch ms; each defaults to now."""
    now = now_ms()
    return (now if as_of is None else to_ms(as_of), now if known_at is None else to_ms(known_at))


def chunks(items: Sequence[M], size: int) -> Iterator[Sequence[M]]:
    """Consecutive slices of at most `size` items."""
    for i in range(0, len(items), size):
        yield items[i : i + size]


def last_per_key(items: Iterable[M], key: Callable[[M], str]) -> list[M]:
    """One item per key, the last one given, at the position of the key's first occurrence.

    Batch writes (`UNWIND $rows AS row MERGE ...`) must never hold two rows for the same node: the
    engines apply such rows in different orders (Neo4j: in list order, the first row creating the
    node; FalkorDB: the last row creates it, then the others match in list order), so
    `ON CREATE SET`/`SET` would keep a different row on each engine. Deduplicating before the
    write keeps the last, as writing the items one by one would.
    """
    return list({key(m): m for m in items}.values())


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


def model_id(m: object) -> str:
    """The `id` of a domain model (every stored model has one)."""
    return cast("_Identified", m).id


def _vector(v: VectorLike) -> Any:
    if isinstance(v, np.ndarray):
        return v.astype(np.float32, copy=False)
    return [float(x) for x in v]


class TemporalRepository(Generic[M]):
    """Generic bi-temporal repository over one node label.

    Subclasses set `kind` and the query references they support (a `None` reference means the
    aggregate does not offer the operation) and implement `_row` / `_model`.
    """

    kind: ClassVar[str] = "node"
    batch_size: ClassVar[int] = 500

    upsert_query: ClassVar[QueryRef]
    get_many_query: ClassVar[QueryRef]
    close_query: ClassVar[QueryRef | None] = None
    supersede_query: ClassVar[QueryRef | None] = None
    embeddings_query: ClassVar[QueryRef | None] = None

    def __init__(self, db: GraphDB) -> None:
        self.db = db

    # -- mapping hooks --------------------------------------------------------------------------

    def _row(self, m: M) -> Row:
        raise NotImplementedError

    def _model(self, r: Mapping[str, Any]) -> M:
        raise NotImplementedError

    def _unsupported(self, what: str) -> InvalidInputError:
        return InvalidInputError(what, f"{self.kind} does not support {what}")

    # -- writes ---------------------------------------------------------------------------------

    async def upsert_many(self, models: Sequence[M]) -> int:
        """MERGE the models on id, in batches of `batch_size`, and write their embeddings.

        Models sharing an id are written once, the last one given (`last_per_key`). Re-upserting
        is idempotent: it keeps the first `recorded_at` and never reopens a closed
        node. Returns the number of nodes written.
        """
        written = 0
        for batch in chunks(last_per_key(models, model_id), self.batch_size):
            rows = [self._row(m) for m in batch]
            res = await self.db.write(self.upsert_query, rows=rows)
            written += int(res[0]["count"]) if res else 0
            if self.embeddings_query is not None:
                emb = embedding_rows(batch)
                if emb:
                    await self.db.write(self.embeddings_query, rows=emb)
        return written

    async def set_embeddings(self, items: Iterable[tuple[str, VectorLike]]) -> int:
        """Write `(id, vector)` pairs onto existing nodes; returns how many nodes matched."""
        if self.embeddings_query is None:
            raise self._unsupported("embeddings")
        rows = [{"id": i, "embedding": _vector(v)} for i, v in items]
        done = 0
        for batch in chunks(rows, self.batch_size):
            res = await self.db.write(self.embeddings_query, rows=list(batch))
            done += int(res[0]["count"]) if res else 0
        return done

    async def close(
        self, ids: str | Sequence[str], at: datetime | None = None, *, now: datetime | None = None
    ) -> list[str]:
        """End the event interval at `at` and expire the record at `now` (both default to now).

        Nothing is deleted: reads with an earlier `known_at` still see the node. Returns the ids
        that were open and are now closed.
        """
        if self.close_query is None:
            raise self._unsupported("close")
        id_list = [ids] if isinstance(ids, str) else list(ids)
        now_v = now_ms() if now is None else to_ms(now)
        at_v = now_v if at is None else to_ms(at)
        rows = await self.db.write(self.close_query, ids=id_list, at=at_v, now=now_v)
        return [r["id"] for r in rows]

    async def supersede(
        self, old_id: str, new_id: str, at: datetime | None = None, *, now: datetime | None = None
    ) -> None:
        """Record that `new_id` replaces `old_id`: `(new)-[:SUPERSEDES]->(old)`, old closed.

        Raises `NotFoundError` when either node is missing.
        """
        if self.supersede_query is None:
            raise self._unsupported("supersede")
        now_v = now_ms() if now is None else to_ms(now)
        at_v = now_v if at is None else to_ms(at)
        rows = await self.db.write(
            self.supersede_query, old_id=old_id, new_id=new_id, at=at_v, now=now_v
        )
        if not rows:
            found = await self.get_many([old_id, new_id], known_at=None)
            missing = old_id if found[0] is None else new_id
            raise NotFoundError(self.kind, missing)

    # -- reads ----------------------------------------------------------------------------------

    async def get_many(
        self,
        ids: Sequence[str],
        *,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> list[M | None]:
        """Models in the order of `ids`; `None` where no node is visible at that time."""
        if not ids:
            return []
        a, k = window(as_of, known_at)
        rows = await self.db.read(
            self.get_many_query, ids=list(dict.fromkeys(ids)), as_of=a, known_at=k
        )
        by_id = {r["node"]["id"]: self._model(r["node"]) for r in rows}
        return [by_id.get(i) for i in ids]

    async def get(
        self, id: str, *, as_of: datetime | None = None, known_at: datetime | None = None
    ) -> M:
        """The model with `id`; raises `NotFoundError` if none is visible at that time."""
        found = (await self.get_many([id], as_of=as_of, known_at=known_at))[0]
        if found is None:
            raise NotFoundError(self.kind, id)
        return found

    async def find(
        self, id: str, *, as_of: datetime | None = None, known_at: datetime | None = None
    ) -> M | None:
        """The model with `id`, or None."""
        return (await self.get_many([id], as_of=as_of, known_at=known_at))[0]
