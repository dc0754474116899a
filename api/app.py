"""The FastAPI application factory: GraphQL at `/graphql`, `/healthz`, `/readyz`."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.fastapi import GraphQLRouter

from ai.embed import BatchingEmbedder, make_embedder
from api.auth import ANONYMOUS, KeyResolver, secret_from_headers
from api.config import ApiSettings
from api.context import Context
from api.graphiql import GraphiQLPage, graphiql_enabled
from api.ratelimit import RateLimiter
from api.recorder import ContextQueryRecorder
from api.schema import build_schema
from api.services import ApiServices, Resources
from api.watch import KEY_STATE, ResponseWatch
from graph.connect import open_graph
from graph.errors import GraphError, GraphUnavailableError
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.backlog import BacklogRepository
from graph.repositories.context_queries import ContextQueryRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.scoped import ScopedRepository
from recall.retrieval import RetrievalService

log = logging.getLogger("remgraph.api")


class BodyLimit:
    """Refuse request bodies above `max_bytes` with 413 and a message naming the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _message(self, size: int | None) -> bytes:
        got = f"{size} bytes" if size is not None else "more than that"
        text = (
            f"request body too large: {got}; the limit is {self.max_bytes} bytes "
            "(REMGRAPH_API__MAX_BODY_BYTES)"
        )
        return json.dumps(
            {"errors": [{"message": text, "extensions": {"code": "TOO_LARGE"}}]}
        ).encode()

    async def _reject(self, send: Send, size: int | None) -> None:
        body = self._message(size)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    size = None
                if size is not None and size > self.max_bytes:
                    await self._reject(send, size)
                    return
        # Bodies without a (truthful) length are counted as they stream in.
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLargeError
            return msg

        async def tracking_send(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLargeError:
            if not started:
                await self._reject(send, None)


class _Router(GraphQLRouter[Context, None]):
    """Strawberry's router, answering 400 to JSON bodies that are not an object or a batch.

    Strawberry calls `.get` on whatever the body decodes to, so `7` or `"x"` was a 500 (found by
    the API fuzzer, `tests/integration/reliability/test_api_fuzz.py`). Raising `JSONDecodeError`
    here takes strawberry's own "Unable to parse request body as JSON" 400 path.
    """

    def decode_json(self, data: str | bytes) -> object:
        try:
            value = super().decode_json(data)
        except RecursionError as e:
            raise BadBodyError(
                "request body nests too deeply to read (JSON arrays or objects)"
            ) from e
        except ValueError as e:
            if isinstance(e, json.JSONDecodeError):
                raise
            # e.g. an integer of more digits than Python converts (sys.get_int_max_str_digits)
            raise BadBodyError(f"request body holds a value that cannot be read: {e}") from e
        if not isinstance(value, dict | list):
            text = data.decode(errors="replace") if isinstance(data, bytes) else data
            raise json.JSONDecodeError("expected a JSON object", text, 0)
        _refuse_lone_surrogates(value)
        return value


class BadBodyError(ValueError):
    """A JSON body that cannot be read as a value: the client's error (400, one line)."""


def _request_secret(request: Request) -> str | None:
    """The API key a request carries (`Authorization: Bearer` or `X-API-Key`), if any."""
    return secret_from_headers(
        request.headers.get("authorization"), request.headers.get("x-api-key")
    )


def _bad_request(message: str) -> JSONResponse:
    return JSONResponse(
        {"errors": [{"message": message, "extensions": {"code": "BAD_REQUEST"}}]},
        status_code=400,
    )


def _refuse_lone_surrogates(value: object) -> None:
    r"""Raise `UnicodeDecodeError` (a 400) when a decoded string holds a lone surrogate.

    JSON lets a client write `"\ud800"`, which decodes to a `str` that no UTF-8 encoder accepts;
    left in, it fails deep inside the tokenizer or the engine client as an internal error.
    """
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as e:
        raise UnicodeDecodeError(
            "utf-8", b"", 0, 1, f"lone surrogate \\u{ord(e.object[e.start]):04x} in a string value"
        ) from e


class _TooLargeError(Exception):
    """Raised inside the app when a streamed body passes the limit."""


@contextlib.asynccontextmanager
async def open_resources(cfg: ApiSettings, svc: ApiServices) -> AsyncIterator[Resources]:
    """Open the graph (unless one is injected) and build what requests need; close on exit."""
    conn = None
    if svc.db is not None:
        db = svc.db
    else:
        conn = await open_graph(cfg)
        db = conn.db
    embedder = svc.embedder or make_embedder(cfg.embedding)
    if svc.ingestor is None and svc.make_ingestor is not None:
        svc = dataclasses.replace(svc, ingestor=svc.make_ingestor(db, embedder))
    if svc.consolidator is None and svc.make_consolidator is not None:
        svc = dataclasses.replace(svc, consolidator=svc.make_consolidator(db, embedder))
    keys = ApiKeyRepository(db)
    queries = ContextQueryRepository(db)
    recorder = ContextQueryRecorder(
        queries,
        interval_s=cfg.api.record_interval_s,
        batch_size=cfg.api.record_batch_size,
        capacity=cfg.api.record_queue,
    )
    try:
        recorder.start()
        yield Resources(
            db=db,
            scoped=ScopedRepository(db),
            # queries of concurrent requests share one forward pass
            retrieval=RetrievalService(
                RecallRepository(db), BatchingEmbedder(embedder), cfg.ranking
            ),
            queries=queries,
            recorder=recorder,
            keys=keys,
            resolver=KeyResolver(keys, ttl_s=cfg.api.key_cache_s),
            services=svc,
        )
    finally:
        try:
            await recorder.stop()  # writes the records still pending
        finally:
            if conn is not None:
                await conn.close()


def create_app(settings: ApiSettings | None = None, services: ApiServices | None = None) -> FastAPI:
    """Build the API app; the lifespan opens the graph and closes it on shutdown.

    Args:
        settings: API settings (default: read from the environment).
        services: injected ports (ingest, consolidation), an embedder, or an open graph.
    """
    cfg = settings or ApiSettings()
    svc = services or ApiServices()
    if cfg.api.anonymous_dev and cfg.env != "dev":
        raise ValueError("REMGRAPH_API__ANONYMOUS_DEV is only allowed with REMGRAPH_ENV=dev")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with open_resources(cfg, svc) as resources:
            app.state.resources = resources
            if cfg.api.warm_start:
                await resources.retrieval.warm_up(freeze=cfg.api.gc_freeze)
            if cfg.api.gc_freeze:
                gc.collect()
                gc.freeze()
            try:
                yield
            finally:
                await resources.retrieval.turn_index.stop()
                await resources.retrieval.knowledge_index.stop()

    limiter = RateLimiter(cfg.api.rate_per_s, cfg.api.rate_burst)

    async def get_context(request: Request) -> Context:
        resources: Resources = request.app.state.resources
        rid = request.headers.get("x-request-id") or uuid.uuid4().hex[:16]
        secret = _request_secret(request)
        if secret is None:
            if cfg.api.anonymous_dev:
                return Context(
                    resources=resources, settings=cfg, principal=ANONYMOUS, request_id=rid
                )
            raise HTTPException(
                status_code=401,
                detail="missing API key: send `Authorization: Bearer rg_...` or `X-API-Key`",
                headers={"WWW-Authenticate": "Bearer"},
            )
        try:
            principal = await resources.resolver.resolve(secret)
        except GraphUnavailableError as e:
            # The key cannot be checked while the engine is down: a retryable 503, not a 500.
            raise HTTPException(
                status_code=503,
                detail="graph engine unavailable, retry shortly",
                headers={"Retry-After": "1"},
            ) from e
        if principal is None:
            raise HTTPException(
                status_code=401,
                detail="unknown or revoked API key",
                headers={"WWW-Authenticate": "Bearer"},
            )
        request.scope.setdefault("state", {})[KEY_STATE] = principal.key_id
        wait = limiter.take(principal.key_id)
        if wait is not None:
            raise HTTPException(
                status_code=429,
                detail=f"rate limit of this API key exceeded ({cfg.api.rate_per_s:g}/s, burst "
                f"{cfg.api.rate_burst}: REMGRAPH_API__RATE_PER_S, __RATE_BURST); retry in "
                f"{wait:.2f} s",
                headers={"Retry-After": RateLimiter.retry_after(wait)},
            )
        return Context(resources=resources, settings=cfg, principal=principal, request_id=rid)

    schema = build_schema(cfg)
    # The IDE page is served by `GraphiQLPage` (without a key), not by strawberry, whose page
    # sits behind the key check that a browser's navigation cannot pass.
    router = _Router(schema, context_getter=get_context, graphql_ide=None)
    app = FastAPI(title="remgraph", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.include_router(router, prefix="/graphql")

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", response_model=None)
    async def readyz(request: Request) -> Any:
        """The graph engine answers and every index (fulltext, vector) is online; else 503.

        After a restart the engine answers PING before it has rebuilt its indexes, and a
        `context` call in that window would fail: ready means the indexes answer too. Without a
        valid key the body says only that (`{"status": "ready"}`); with one it also carries the
        engine's address, why it is not ready, the backlog (`turns` without vectors; `extract`
        sessions with `extract_turns` turns whose knowledge extraction is queued) and the
        in-process turn and knowledge indexes (`warming` while `serve` loads them at start:
        meanwhile a call whose project's turns are not loaded is answered by the engine, and
        one whose knowledge is not loaded loads it or waits for its load).
        """
        resources: Resources = request.app.state.resources
        try:
            await resources.db.ping()
            await resources.db.wait_for_indexes(timeout_s=0)  # one check, no waiting
            detail = await _keyed(request)
            backlog = await BacklogRepository(resources.db).status() if detail else None
        except (GraphError, OSError) as e:
            body = {"status": "unavailable"} | ({"reason": str(e)} if await _keyed(request) else {})
            return JSONResponse(body, status_code=503)
        if not detail:
            return {"status": "ready"}
        # Turns without vectors are searchable by text already: a backlog is reported, not unready.
        return {
            "status": "ready",
            "engine": resources.db.address,
            "embedding_backlog": backlog,
            "turn_index": resources.retrieval.turn_index.status(),
            "knowledge_index": resources.retrieval.knowledge_index.status(),
        }

    async def _keyed(request: Request) -> bool:
        """Whether the request carries a live key (or the dev mode needs none): details allowed."""
        secret = _request_secret(request)
        if secret is None:
            return cfg.api.anonymous_dev
        try:
            return await request.app.state.resources.resolver.resolve(secret) is not None
        except (GraphError, OSError):
            return False

    @app.exception_handler(UnicodeDecodeError)
    async def undecodable_body(request: Request, exc: UnicodeDecodeError) -> JSONResponse:
        """A body that is not UTF-8 text is the client's error (400), not the server's (500)."""
        return _bad_request(
            f"request body is not valid UTF-8 JSON ({exc.reason}"
            + (f" at byte {exc.start})" if exc.object else ")")
        )

    @app.exception_handler(BadBodyError)
    async def unreadable_body(request: Request, exc: BadBodyError) -> JSONResponse:
        """A body nested too deeply or holding an unreadable number: 400, one line."""
        return _bad_request(str(exc))

    app.add_middleware(BodyLimit, max_bytes=cfg.api.max_body_bytes)
    app.add_middleware(
        ResponseWatch,
        slow_request_s=cfg.api.slow_request_s,
        max_response_bytes=cfg.api.max_response_bytes,
    )
    if graphiql_enabled(cfg.api.graphiql, cfg.api.host):
        app.add_middleware(GraphiQLPage, path="/graphql")
    return app
