"""Neo4j adapter (production engine) over the official async driver.

This module and nothing else imports `neo4j`; driver exceptions become `GraphError`s in
`_translate()`, the single place that knows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any, LiteralString, cast

import neo4j
import neo4j.exceptions as nexc

from graph.cypher import COLLECTED_COLUMN, Dialect, Mode, Q, QueryRef, collected_text
from graph.db import Row, after_autocommit, check_params, lucene_terms, resolve, summarize
from graph.errors import ConflictError, GraphError, GraphUnavailableError, QueryError

log = logging.getLogger("remgraph.graph.db")
_INDEX_STATUS = Q("admin.index_status")


class _NotificationsToDebug(logging.Filter):
    """Demote the driver's server notifications (e.g. `AggregationSkippedNull`) to DEBUG.

    The driver logs each as a WARNING; they are hints for developers, so they stay in a debug log
    and never reach a user's terminal at the default level.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        # a handler at NOTSET (as `basicConfig` makes) passes what its logger lets through:
        # only the logger's own level says whether debug records are wanted
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


_NOTIFICATIONS = logging.getLogger("neo4j.notifications")
if not any(isinstance(f, _NotificationsToDebug) for f in _NOTIFICATIONS.filters):
    _NOTIFICATIONS.addFilter(_NotificationsToDebug())


@contextlib.contextmanager
def _translate(name: str, address: str) -> Iterator[None]:
    """Map driver exceptions to the graph core's, most specific first (httpx's map_exceptions)."""
    try:
        yield
    except nexc.ConstraintError as e:
        raise ConflictError(f"{name}: {e.message}") from e
    except (nexc.ServiceUnavailable, nexc.SessionExpired, OSError) as e:
        raise GraphUnavailableError(address, str(e)) from e
    except nexc.AuthError as e:
        raise GraphUnavailableError(address, f"authentication failed: {e.message}") from e
    except (nexc.CypherSyntaxError, nexc.CypherTypeError, nexc.ClientError) as e:
        raise QueryError(name, str(e.message)) from e
    except nexc.Neo4jError as e:
        raise GraphError(f"{name}: {e.message}") from e


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class Neo4jGraph:
    """`GraphDB` over a Neo4j 5.26+ server."""

    dialect = Dialect.NEO4J

    def __init__(
        self,
        *,
        uri: str,
        user: str,
        password: str,
        database: str = "neo4j",
        max_pool_size: int = 50,
        query_timeout_s: float = 30.0,
    ) -> None:
        self.address = uri
        self._db = database
        self._timeout = query_timeout_s
        self._driver = neo4j.AsyncGraphDatabase.driver(
            uri,
            auth=(user, password),
            max_connection_pool_size=max_pool_size,
            user_agent="remgraph/0.1",
        )

    async def _execute(
        self,
        query: QueryRef,
        modes: Mode | tuple[Mode, ...],
        params: dict[str, Any],
        routing: neo4j.RoutingControl,
    ) -> list[Row]:
        q = resolve(query, self.dialect, modes)
        check_params(q, params)
        started = time.perf_counter()
        with _translate(q.name, self.address):
            if q.mode is Mode.AUTOCOMMIT:
                async with self._driver.session(database=self._db) as session:
                    result = await session.run(neo4j.Query(q.text, timeout=self._timeout), params)
                    rows = [r.data() for r in [rec async for rec in result]]
            elif q.collected and q.mode is Mode.READ:
                # One record holding every row: the driver's cost is per Bolt message, not per
                # value (a few hundred small records cost more client CPU than the query itself).
                records, _, _ = await self._driver.execute_query(
                    neo4j.Query(collected_text(q), timeout=self._timeout),
                    params,
                    routing_=routing,
                    database_=self._db,
                )
                cols = q.returns
                rows = [dict(zip(cols, r, strict=True)) for r in records[0][COLLECTED_COLUMN]]
            else:
                records, _, _ = await self._driver.execute_query(
                    neo4j.Query(q.text, timeout=self._timeout),
                    params,
                    routing_=routing,
                    database_=self._db,
                )
                rows = [r.data() for r in records]
        log.debug(
            "query %s rows=%d ms=%.1f params=%s",
            q.name,
            len(rows),
            (time.perf_counter() - started) * 1000,
            summarize(params),
        )
        if q.collected:  # plain lists and scalars already: the columns hold no graph entities
            return rows
        return [{k: _plain(v) for k, v in r.items()} for r in rows]

    async def read(self, query: QueryRef, **params: Any) -> list[Row]:
        return await self._execute(query, Mode.READ, params, neo4j.RoutingControl.READ)

    async def write(self, query: QueryRef, **params: Any) -> list[Row]:
        return await self._execute(query, Mode.WRITE, params, neo4j.RoutingControl.WRITE)

    async def autocommit(self, query: QueryRef, **params: Any) -> list[Row]:
        rows = await self._execute(query, Mode.AUTOCOMMIT, params, neo4j.RoutingControl.WRITE)
        await after_autocommit(self, query)
        return rows

    async def explain(self, query: QueryRef, **params: Any) -> None:
        q = resolve(query, self.dialect, (Mode.READ, Mode.WRITE, Mode.AUTOCOMMIT))
        check_params(q, params)
        # EXPLAIN plans without running; CALL {} IN TRANSACTIONS cannot be explained inside one.
        # A collected read is planned as it runs (wrapped).
        text = cast(LiteralString, "EXPLAIN " + (collected_text(q) if q.collected else q.text))
        with _translate(q.name, self.address):
            async with self._driver.session(database=self._db) as session:
                result = await session.run(text, params)
                await result.consume()

    async def run_schema(self, statement: str) -> None:
        with _translate("schema", self.address):
            async with self._driver.session(database=self._db) as session:
                result = await session.run(cast(LiteralString, statement))
                await result.consume()

    async def wait_for_indexes(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            rows = await self.read(_INDEX_STATUS)
            pending = [r["name"] for r in rows if r["state"] != "ONLINE"]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise GraphUnavailableError(self.address, f"indexes not online: {pending}")
            await asyncio.sleep(0.2)

    async def ping(self) -> None:
        with _translate("ping", self.address):
            await self._driver.verify_connectivity()

    def fulltext_query(self, text: str) -> str:
        return lucene_terms(text)

    async def close(self) -> None:
        await self._driver.close()
