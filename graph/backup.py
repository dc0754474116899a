"""Backup and restore of FalkorDB graphs (embedded or external) with DUMP/RESTORE.

A backup is a gzip'd JSON-lines file: a header line, then one line per graph key holding its
serialised value (base64). DUMP serialises each graph atomically, so the snapshot of every graph is
consistent while the server keeps serving. Neo4j backups use `neo4j-admin database dump/load`
(see README).
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from redis.asyncio import Redis

from core.timeutil import now_ms
from graph.errors import GraphError

FORMAT = "remgraph-falkordb-backup"
VERSION = 1
GRAPH_TYPE = "graphdata"
"""What `TYPE key` answers for a FalkorDB graph."""


@dataclass(frozen=True)
class BackupInfo:
    """What a backup holds."""

    path: Path
    graphs: tuple[str, ...]
    bytes_written: int


def _client(unix_socket: str | None, host: str, port: int, password: str | None) -> Redis:
    if unix_socket:
        return Redis(unix_socket_path=unix_socket, password=password)
    return Redis(host=host, port=port, password=password)


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


async def graph_keys(r: Redis) -> list[str]:
    """Names of the FalkorDB graphs on the server, sorted.

    A client may answer in bytes or, with `decode_responses=True`, in str; both are read alike
    (comparing the `TYPE` reply with `b"graphdata"` alone found no graph on a decoding client, so
    a backup silently held nothing).
    """
    names = [_text(k) for k in await r.keys("*") if _text(await r.type(k)) == GRAPH_TYPE]
    return sorted(names)


async def backup(
    out: Path,
    *,
    unix_socket: str | None = None,
    host: str = "127.0.0.1",
    port: int = 6379,
    password: str | None = None,
    graphs: list[str] | None = None,
) -> BackupInfo:
    """Write every graph key (or the named ones) to `out`."""
    r = _client(unix_socket, host, port, password)
    try:
        names = graphs or await graph_keys(r)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(out.suffix + ".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as f:
            f.write(
                json.dumps(
                    {"format": FORMAT, "version": VERSION, "created_at": now_ms(), "graphs": names}
                )
                + "\n"
            )
            for name in names:
                payload = await r.dump(name)
                if payload is None:
                    raise GraphError(f"graph {name!r} does not exist")
                f.write(
                    json.dumps({"key": name, "dump": base64.b64encode(payload).decode()}) + "\n"
                )
        tmp.replace(out)  # a crash mid-backup never leaves a half file under the real name
        size = await asyncio.to_thread(lambda: out.stat().st_size)
        return BackupInfo(out, tuple(names), size)
    finally:
        await r.aclose()


async def restore(
    src: Path,
    *,
    unix_socket: str | None = None,
    host: str = "127.0.0.1",
    port: int = 6379,
    password: str | None = None,
    replace: bool = False,
) -> BackupInfo:
    """Load a backup; refuses to overwrite existing graphs unless `replace`."""
    try:
        with gzip.open(src, "rt", encoding="utf-8") as f:
            header = json.loads(f.readline())
            if header.get("format") != FORMAT:
                raise GraphError(f"{src} is not a remgraph backup")
            entries = [json.loads(line) for line in f if line.strip()]
    except (OSError, json.JSONDecodeError, EOFError) as e:
        raise GraphError(f"cannot read backup {src}: {e}") from e
    r = _client(unix_socket, host, port, password)
    try:
        if not replace:
            taken = [x["key"] for x in entries if await r.exists(x["key"])]
            if taken:
                raise GraphError(f"graphs already exist: {taken}; pass --replace to overwrite")
        for entry in entries:
            await r.restore(entry["key"], 0, base64.b64decode(entry["dump"]), replace=replace)
        size = await asyncio.to_thread(lambda: src.stat().st_size)
        return BackupInfo(src, tuple(x["key"] for x in entries), size)
    finally:
        await r.aclose()
