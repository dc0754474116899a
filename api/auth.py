"""Who is calling: API keys (`Bearer rg_...` or `X-API-Key`) resolved to a project scope."""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.timeutil import now_ms, to_ms
from graph.repositories.api_keys import ALL_PROJECTS, ApiKeyRepository, hash_key

DEFAULT_CACHE_TTL_S = 30.0
"""Seconds a resolved key is trusted before it is looked up again (`REMGRAPH_API__KEY_CACHE_S`)."""


@dataclass(frozen=True)
class Principal:
    """An authenticated caller and the projects it may read and write."""

    key_id: str
    projects: tuple[str, ...]
    expires_at_ms: int | None = None
    """When the key stops working (epoch ms); None: never."""

    @property
    def all_projects(self) -> bool:
        """True for keys scoped to `*` (and anonymous dev access)."""
        return ALL_PROJECTS in self.projects

    def allows(self, project: str) -> bool:
        """Whether this caller may touch `project`."""
        return self.all_projects or project in self.projects


ANONYMOUS = Principal(key_id="anonymous", projects=(ALL_PROJECTS,))


def secret_from_headers(authorization: str | None, x_api_key: str | None) -> str | None:
    """The key secret from either header, or None."""
    if x_api_key:
        return x_api_key.strip()
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    return None


class KeyResolver:
    """Resolves secrets to principals, caching answers for `ttl_s` (revocation applies within it).

    Expiry is checked on every call, cached or not: an expired key fails at once.

    HTTP requests and MCP tool calls both resolve the key of every call through it.
    """

    def __init__(self, repo: ApiKeyRepository, ttl_s: float = DEFAULT_CACHE_TTL_S) -> None:
        self._repo = repo
        self._ttl_s = ttl_s
        self._cache: dict[str, tuple[float, Principal | None]] = {}

    async def resolve(self, secret: str) -> Principal | None:
        digest = hash_key(secret)
        now = time.monotonic()
        hit = self._cache.get(digest)
        if hit is not None and now - hit[0] < self._ttl_s:
            return _unexpired(hit[1])
        key = await self._repo.find_by_secret(secret)
        principal = (
            None
            if key is None
            else Principal(
                key_id=key.id,
                projects=key.projects,
                expires_at_ms=None if key.expires_at is None else to_ms(key.expires_at),
            )
        )
        if len(self._cache) > 10_000:
            self._cache.clear()
        self._cache[digest] = (now, principal)
        return principal


def _unexpired(principal: Principal | None) -> Principal | None:
    if principal is None or principal.expires_at_ms is None:
        return principal
    return principal if now_ms() < principal.expires_at_ms else None
