"""API keys: created with a random secret shown once, stored as its SHA-256, scoped to projects."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime

from core.ids import make_id
from core.timeutil import now_ms
from graph.cypher import Q
from graph.db import GraphDB
from graph.errors import InvalidInputError, NotFoundError
from graph.models import ApiKey, utc_now
from graph.records import api_key_from_record, api_key_to_row

_CREATE = Q("api_key.create")
_FIND_BY_HASH = Q("api_key.find_by_hash")
_LIST = Q("api_key.list")
_REVOKE = Q("api_key.revoke")

KEY_PREFIX = "rg_"
ALL_PROJECTS = "*"


def hash_key(secret: str) -> str:
    """SHA-256 (hex) of a key secret.

    Keys are 256-bit random tokens, so a fast hash is enough: there is nothing to brute-force that a
    slow password hash (argon2) would protect.
    """
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh key secret: `rg_` + 43 URL-safe characters (256 bits)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


class ApiKeyRepository:
    """Stores and resolves API keys; only hashes ever reach the graph."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def create(
        self, name: str, projects: Sequence[str], *, expires_at: datetime | None = None
    ) -> tuple[ApiKey, str]:
        """Create a key for `projects` (`*` = all) and return it with its secret (shown once).

        A key with `expires_at` stops working then by itself (checked on every request).
        """
        scoped = tuple(dict.fromkeys(p.strip() for p in projects if p.strip()))
        if not scoped:
            raise InvalidInputError("projects", "a key needs at least one project (or `*`)")
        secret = new_secret()
        digest = hash_key(secret)
        now = utc_now()
        if expires_at is not None and expires_at <= now:
            raise InvalidInputError("expires", f"{expires_at.isoformat()} is not in the future")
        key = ApiKey(
            id=make_id("api_key", digest),
            name=name,
            projects=scoped,
            key_hash=digest,
            created_at=now,
            expires_at=expires_at,
            valid_from=now,
            recorded_at=now,
        )
        await self._db.write(_CREATE, row=api_key_to_row(key))
        return key, secret

    async def find_by_secret(self, secret: str) -> ApiKey | None:
        """The live key with this secret, or None (unknown, revoked or expired)."""
        if not secret.startswith(KEY_PREFIX):
            return None
        rows = await self._db.read(_FIND_BY_HASH, key_hash=hash_key(secret))
        if not rows:
            return None
        key = api_key_from_record(rows[0]["props"])
        return key if key.live(utc_now()) else None

    async def list(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        return [api_key_from_record(r["props"]) for r in await self._db.read(_LIST)]

    async def revoke(self, key_id: str) -> None:
        """Revoke a key; raises `NotFoundError` for an unknown id."""
        rows = await self._db.write(_REVOKE, id=key_id, now=now_ms())
        if not rows:
            raise NotFoundError("api_key", key_id)
