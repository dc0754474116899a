"""The API key `remgraph up` hands out: one per graph, kept between runs.

Every `up` used to mint a key, so a person who ran it five times had five keys and pasted the
wrong one. Now the secret is kept in the data folder (`up-keys.json`, mode 0600, one entry per
graph address) and reused while it is live and covers every project; otherwise a new key is
made for all of them and the one it replaces is revoked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graph.db import GraphDB
from graph.repositories.api_keys import ApiKeyRepository

__all__ = ["KEY_FILE", "UpKey", "up_key"]

KEY_FILE = "up-keys.json"
KEY_NAME = "remgraph up"


@dataclass(frozen=True, slots=True)
class UpKey:
    """The key `up` prints: its id, secret, and whether it was kept from an earlier run."""

    id: str
    secret: str
    reused: bool
    file: Path


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write(path: Path, keys: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(keys, f, indent=2)
    path.chmod(0o600)  # an older file made with wider permissions is narrowed too


async def up_key(db: GraphDB, data_dir: Path, projects: Sequence[str]) -> UpKey:
    """The live kept key for `db` covering `projects`, else a new one (the old one revoked)."""
    path = data_dir / KEY_FILE
    kept = _read(path)
    repo = ApiKeyRepository(db)
    old = await repo.find_by_secret(kept[db.address]) if db.address in kept else None
    if old is not None and ("*" in old.projects or set(projects) <= set(old.projects)):
        return UpKey(old.id, kept[db.address], True, path)
    key, secret = await repo.create(KEY_NAME, list(projects))
    if old is not None and old.name == KEY_NAME:
        await repo.revoke(old.id)  # it covered fewer projects; its successor covers them all
    _write(path, {**kept, db.address: secret})
    return UpKey(key.id, secret, False, path)
