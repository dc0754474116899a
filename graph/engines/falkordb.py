"""FalkorDB adapter: the embedded default (and any external FalkorDB server).

FalkorDB takes query parameters as a `CYPHER name=value ...` text header. The official client builds
that header with a recursive pure-Python encoder, which dominates bulk writes of 384-d vectors; this
adapter encodes parameters itself (floats in short `repr` form, numpy arrays directly).

Results come back in FalkorDB's compact format (`[type, value]` per cell). The official async client
parses every cell through its own coroutine, which cost more CPU than the engine spent answering
on `context` (~8K cells per request); `decode_compact` parses scalars, lists and maps
synchronously and hands only results holding graph entities (nodes, edges, paths, which need the
label and property-key tables) to the client's parser.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import redis.exceptions as rexc
from falkordb.asyncio.graph import AsyncGraph
from falkordb.asyncio.query_result import QueryResult
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.connection import Connection, UnixDomainSocketConnection

from graph.cypher import Dialect, Mode, Q, QueryRef
from graph.db import Row, after_autocommit, check_params, redisearch_terms, resolve, summarize
from graph.errors import ConflictError, GraphError, GraphUnavailableError, QueryError

log = logging.getLogger("remgraph.graph.db")

_CONSTRAINT = re.compile(
    r"^CREATE\s+CONSTRAINT\s+(?:\w+\s+)?(?:IF\s+NOT\s+EXISTS\s+)?FOR\s*\(\s*(\w+)\s*:\s*(\w+)\s*\)"
    r"\s*REQUIRE\s+(\w+)\.(\w+)\s+IS\s+UNIQUE\s*$",
    re.IGNORECASE | re.DOTALL,
)
_ALREADY = ("already indexed", "already exists", "already created")
_INDEX_STATUS = Q("admin.index_status")


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _float(x: float) -> str:
    if math.isfinite(x):
        return repr(x)
    raise ValueError(f"cannot store non-finite float {x!r}")


def _vector(v: np.ndarray) -> str:
    """A float vector as a Cypher list, rounded to 7 decimals.

    Embeddings are stored as float32 (`vecf32`), whose ~7 significant digits this keeps for the
    unit-length vectors we store; the short text halves the bytes the server parses and is ~2x
    faster to build than full `repr` precision (measured: the encoder, not the engine, was the
    bottleneck of bulk vector writes).
    """
    if not np.isfinite(v).all():
        raise ValueError("cannot store a vector with NaN or infinite values")
    return "[" + ",".join(map(str, np.round(v.astype(np.float64, copy=False), 7).tolist())) + "]"


@lru_cache(maxsize=64)
def _float_list(value: tuple[float, ...]) -> str:
    # A query vector goes to several queries of one request: encode it once.
    return _vector(np.asarray(value, dtype=np.float64))


def encode_param(value: Any) -> str:
    """Encode one parameter value in FalkorDB's `CYPHER` header syntax."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    return _encode_other(value)


def _encode_other(value: Any) -> str:
    """Containers and numpy values (plain scalars are handled by `encode_param` first)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            return _vector(value)
        return encode_param(value.tolist())
    if isinstance(value, list | tuple):
        if len(value) >= 16 and all(type(v) is float for v in value):
            return _float_list(tuple(value))
        return "[" + ",".join(map(encode_param, value)) + "]"
    if isinstance(value, Mapping):
        return _encode_map(value)
    if isinstance(value, np.integer):
        return str(int(value))
    if isinstance(value, np.floating):
        return _float(float(value))
    raise TypeError(f"cannot encode parameter of type {type(value).__name__}")


def _encode_map(value: Mapping[Any, Any]) -> str:
    parts = []
    for k, v in value.items():
        key = str(k)
        if not key or "`" in key:
            raise ValueError(f"map key {key!r} cannot be used in a FalkorDB parameter")
        parts.append(f"`{key}`:{encode_param(v)}")
    return "{" + ",".join(parts) + "}"


def _query_error(name: str, e: rexc.ResponseError) -> GraphError:
    """A server error as the graph core's: a unique-constraint hit is a `ConflictError`."""
    msg = str(e)
    if "unique constraint" in msg.lower():
        return ConflictError(f"{name}: {msg}")
    return QueryError(name, msg)


def params_header(params: Mapping[str, Any]) -> str:
    """`CYPHER a=1 b="x" ` for the given parameters (empty string for none)."""
    if not params:
        return ""
    return "CYPHER " + " ".join(f"{k}={encode_param(v)}" for k, v in params.items()) + " "


_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY = 1, 2, 3, 4, 5, 6
_MAP, _POINT, _VECTORF32 = 10, 11, 12
_ENTITIES = frozenset({7, 8, 9})  # edge, node, path
_AS_IS = frozenset({_STRING, _INTEGER})


class _NeedsEntitiesError(Exception):
    """A result holds nodes, edges or paths: parse it with the client's schema-aware parser."""


def _cell(cell: list[Any]) -> Any:
    t, v = cell[0], cell[1]
    if t in (_STRING, _INTEGER):
        return v
    if t == _DOUBLE:
        return float(v)
    if t == _NULL:
        return None
    if t == _ARRAY:
        return [_cell(x) for x in v]
    if t == _BOOLEAN:
        return v == "true" or v == b"true"
    if t == _MAP:
        return {v[i]: _cell(v[i + 1]) for i in range(0, len(v), 2)}
    if t == _VECTORF32:
        return [float(x) for x in v]
    if t == _POINT:
        return {"latitude": float(v[0]), "longitude": float(v[1])}
    raise _NeedsEntitiesError


def decode_compact(response: list[Any]) -> tuple[list[str], list[list[Any]]]:
    """(column names, rows) of a compact-format reply without graph entities.

    Raises:
        _NeedsEntitiesError: a cell is a node, edge, path or a type this decoder does not know.
    """
    if len(response) < 3:  # statistics only (a write without RETURN)
        return [], []
    cols = [h[1] if isinstance(h, list | tuple) else h for h in response[0]]
    # Strings and integers (most cells) are taken as they are, without a call per cell.
    return cols, [[c[1] if c[0] in _AS_IS else _cell(c) for c in row] for row in response[1]]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class FalkorDBGraph:
    """`GraphDB` over one FalkorDB graph (a Redis key) reached by socket or TCP."""

    dialect = Dialect.FALKORDB

    def __init__(
        self,
        *,
        graph_name: str,
        unix_socket: str | None = None,
        host: str = "127.0.0.1",
        port: int = 6379,
        password: str | None = None,
        max_connections: int = 32,
        query_timeout_s: float = 60.0,
    ) -> None:
        if unix_socket:
            self.address = f"unix://{unix_socket}"
            self._pool = BlockingConnectionPool(
                connection_class=UnixDomainSocketConnection,
                path=unix_socket,
                password=password,
                max_connections=max_connections,
                timeout=None,
                # redis-py >= 6 defaults to a 5 s socket read timeout, which would cut off any
                # query that legitimately runs longer; the query timeout is the real bound.
                socket_timeout=query_timeout_s + 5.0,
                decode_responses=True,
            )
        else:
            self.address = f"redis://{host}:{port}"
            self._pool = BlockingConnectionPool(
                connection_class=Connection,
                host=host,
                port=port,
                password=password,
                max_connections=max_connections,
                timeout=None,
                # redis-py >= 6 defaults to a 5 s socket read timeout, which would cut off any
                # query that legitimately runs longer; the query timeout is the real bound.
                socket_timeout=query_timeout_s + 5.0,
                decode_responses=True,
            )
        # The FalkorDB client's own constructor probes the server synchronously (cluster check);
        # building the graph handle on a plain async Redis client keeps construction I/O-free.
        self._client = Redis(connection_pool=self._pool)
        self._graph = AsyncGraph(self._client, graph_name)
        self.graph_name = graph_name
        self._timeout_ms = int(query_timeout_s * 1000)

    async def _run(
        self,
        query: QueryRef,
        modes: Mode | tuple[Mode, ...],
        params: dict[str, Any],
        *,
        read_only: bool,
    ) -> list[Row]:
        q = resolve(query, self.dialect, modes)
        check_params(q, params)
        text = params_header(params) + q.text
        started = time.perf_counter()
        cmd = "GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY"
        try:
            response = await self._client.execute_command(  # type: ignore[no-untyped-call]
                cmd, self.graph_name, text, "--compact", "timeout", self._timeout_ms
            )
            cols, values = await self._decode(response)
        except (rexc.ConnectionError, rexc.TimeoutError, OSError) as e:
            raise GraphUnavailableError(self.address, str(e) or type(e).__name__) from e
        except rexc.ResponseError as e:
            if read_only and "empty key" in str(e):
                return []  # the graph key does not exist yet: nothing stored, nothing to read
            raise _query_error(q.name, e) from e
        rows = [dict(zip(cols, r, strict=True)) for r in values]
        log.debug(
            "query %s rows=%d ms=%.1f params=%s",
            q.name,
            len(rows),
            (time.perf_counter() - started) * 1000,
            summarize(params),
        )
        return rows

    async def _decode(self, response: list[Any]) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of a compact reply; errors the server returned are raised."""
        if isinstance(response[0], rexc.ResponseError):
            raise response[0]
        if isinstance(response[-1], rexc.ResponseError):  # a run-time error
            raise response[-1]
        try:
            return decode_compact(response)
        except _NeedsEntitiesError:
            res = QueryResult(self._graph)
            await res.parse(response)
            cols = [h[1] if isinstance(h, list | tuple) else h for h in (res.header or [])]
            return cols, [[_plain(v) for v in r] for r in res.result_set]

    async def read(self, query: QueryRef, **params: Any) -> list[Row]:
        return await self._run(query, Mode.READ, params, read_only=True)

    async def write(self, query: QueryRef, **params: Any) -> list[Row]:
        return await self._run(query, Mode.WRITE, params, read_only=False)

    async def autocommit(self, query: QueryRef, **params: Any) -> list[Row]:
        rows = await self._run(query, Mode.AUTOCOMMIT, params, read_only=False)
        await after_autocommit(self, query)
        return rows

    async def explain(self, query: QueryRef, **params: Any) -> None:
        q = resolve(query, self.dialect, (Mode.READ, Mode.WRITE, Mode.AUTOCOMMIT))
        check_params(q, params)
        try:
            await self._graph.execute_command(
                "GRAPH.EXPLAIN", self.graph_name, params_header(params) + q.text
            )
        except (rexc.ConnectionError, rexc.TimeoutError, OSError) as e:
            raise GraphUnavailableError(self.address, str(e)) from e
        except rexc.ResponseError as e:
            raise QueryError(q.name, str(e)) from e

    async def run_schema(self, statement: str) -> None:
        try:
            m = _CONSTRAINT.match(statement.strip())
            if m:
                _, label, _, prop = m.groups()
                await self._ensure_constraint(label, prop)
            else:
                await self._graph.query(statement)
        except (rexc.ConnectionError, rexc.TimeoutError, OSError) as e:
            raise GraphUnavailableError(self.address, str(e)) from e
        except rexc.ResponseError as e:
            if any(a in str(e).lower() for a in _ALREADY):
                return  # idempotent DDL: the index or constraint is already there
            raise QueryError("schema", f"{statement.splitlines()[0]}: {e}") from e

    async def _ensure_constraint(self, label: str, prop: str) -> None:
        # A FalkorDB unique constraint is created with the GRAPH.CONSTRAINT command, not Cypher, and
        # needs an exact-match index on the property first: the schema file creates that index in
        # the statement before this one.
        await self._graph.execute_command(
            "GRAPH.CONSTRAINT",
            "CREATE",
            self.graph_name,
            "UNIQUE",
            "NODE",
            label,
            "PROPERTIES",
            "1",
            prop,
        )

    async def wait_for_indexes(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            rows = await self.read(_INDEX_STATUS)
            pending = [
                r["name"] for r in rows if str(r["state"]).upper() not in {"OPERATIONAL", "ONLINE"}
            ]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise GraphUnavailableError(self.address, f"indexes not online: {pending}")
            await asyncio.sleep(0.05)

    async def ping(self) -> None:
        try:
            await self._client.ping()
        except (rexc.ConnectionError, rexc.TimeoutError, OSError) as e:
            raise GraphUnavailableError(self.address, str(e) or type(e).__name__) from e

    def fulltext_query(self, text: str) -> str:
        return redisearch_terms(text)

    async def drop(self) -> None:
        """Delete the whole graph key (tests and `remgraph db reset`)."""
        try:
            await self._graph.delete()
        except rexc.ResponseError as e:
            if "empty key" not in str(e).lower() and "invalid graph" not in str(e).lower():
                raise

    async def close(self) -> None:
        await self._pool.disconnect()
