"""Settings of the API service: where it listens, its limits, and (from `recall`) ranking weights.

`ApiSettings` extends `AISettings` (graph and model settings), so one environment configures all:
`REMGRAPH_API__PORT=8765`, `REMGRAPH_RANKING__RRF_K=60`, `REMGRAPH_ENGINE=neo4j`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ai.config import AISettings
from recall.config import RankingSection

_CFG = ConfigDict(frozen=True, use_attribute_docstrings=True)


class ApiSection(BaseModel):
    """How the HTTP service listens and what it accepts."""

    model_config = _CFG

    host: str = "127.0.0.1"
    """Interface to bind; loopback by default."""
    port: int = Field(default=8765, ge=1, le=65535)
    """TCP port."""
    graphiql: bool | None = None
    """The GraphiQL IDE at `GET /graphql` in a browser (the page holds no data; queries need a
    key). None: on when `host` is a loopback address, off otherwise; true/false forces it."""
    anonymous_dev: bool = False
    """Allow requests without an API key (full access); refused unless `env=dev`."""
    key_cache_s: float = Field(default=30.0, ge=0, le=3600)
    """How long a checked API key is trusted before it is looked up again: a revoked key stops
    working within this time, over HTTP and MCP alike (0: every request looks it up)."""
    max_limit: int = Field(default=200, ge=1, le=10_000)
    """Largest `limit`/`first` a query may ask for."""
    default_token_budget: int = Field(default=2000, ge=1)
    """`context` token budget when none is given."""
    max_token_budget: int = Field(default=32_000, ge=1)
    """Largest `tokenBudget` a query may ask for."""
    max_body_bytes: int = Field(default=1_000_000, ge=1024)
    """Largest request body; larger ones get HTTP 413."""
    max_response_bytes: int = Field(default=16_000_000, ge=1024)
    """Largest response body; a larger one is not sent: HTTP 400 `RESPONSE_TOO_LARGE`."""
    slow_request_s: float = Field(default=2.0, gt=0)
    """A request that runs this long or longer is logged on one WARNING line (id, key id,
    path, status, wall and process CPU time, bytes)."""
    max_depth: int = Field(default=8, ge=1, le=50)
    """Deepest selection set allowed."""
    max_aliases: int = Field(default=30, ge=1)
    """Most aliases allowed in one document."""
    max_tokens: int = Field(default=2000, ge=10)
    """Most lexer tokens allowed in one document (a cheap complexity bound)."""
    max_request_cost: int = Field(default=5000, ge=1)
    """Cost budget of one request, charged before a `context` or `search` field starts: each
    costs its `limit`/`first` × (1 + query characters // 250), summed over aliases; a request
    past it gets a `COST_LIMIT` error for the fields beyond the budget."""
    rate_per_s: float = Field(default=50.0, gt=0)
    """Requests per second one API key may send on average (token bucket)."""
    rate_burst: int = Field(default=100, ge=1)
    """Requests one API key may send at once before `rate_per_s` applies (HTTP 429 beyond)."""
    max_ingest_turns: int = Field(default=500, ge=1)
    """Most turns one `ingestTurns` call may append."""
    record_interval_s: float = Field(default=0.25, gt=0, le=60)
    """How often queued `ContextQuery` records are written (one batched write each time)."""
    record_batch_size: int = Field(default=200, ge=1, le=10_000)
    """Most `ContextQuery` records per write; a full batch is written at once."""
    record_queue: int = Field(default=10_000, ge=1)
    """Most `ContextQuery` records waiting; beyond it new ones are dropped and counted."""
    warm_start: bool = True
    """Load the query embedder before serving, so the first request does not wait for it."""
    gc_freeze: bool = True
    """Once warm, move every object alive at start-up (the model, the schema, caches) out of the
    cyclic garbage collector's reach (`gc.freeze`): a full collection then scans only what
    requests allocate. Measured on the 100K-turn bench graph: full collections took ~100 ms
    (every request that hit one, ~2%), after the freeze single-client p99 went 148 → 78 ms."""


class ApiSettings(AISettings):
    """Settings of the API process: graph and model settings plus `api` and `ranking` sections."""

    api: ApiSection = Field(default_factory=ApiSection)
    ranking: RankingSection = Field(default_factory=RankingSection)
