"""API commands: `serve`, `keys create|list|revoke`, `export-schema` and `mcp`.

Commands only parse arguments, build settings and call a function. `serve` and `mcp` take the app
factory / services from the composition root (`remgraph/`), which wires ingest and consolidation;
run from here alone they serve without those ports.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Column, Table

from api.config import ApiSettings
from core.timeutil import parse_deadline
from graph.connect import graph_session
from graph.errors import InvalidInputError
from graph.models import ApiKey, utc_now
from graph.repositories.api_keys import ApiKeyRepository

app = typer.Typer(
    help="The GraphQL API: serve it, manage keys, export the schema.", no_args_is_help=True
)
keys_app = typer.Typer(
    help="API keys: create, list and revoke (secrets are shown once).", no_args_is_help=True
)
app.add_typer(keys_app, name="keys")

DEFAULT_FACTORY = "api.asgi:app_from_env"


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="TCP port (default 8765)")] = None,
    factory: Annotated[str, typer.Option(help="App factory `module:function`")] = DEFAULT_FACTORY,
) -> None:
    """Serve GraphQL at http://HOST:PORT/graphql (plus /healthz and /readyz)."""
    import os

    import uvicorn

    from api.ready import wait_until_ready

    settings = ApiSettings()
    h = host or settings.api.host
    p = port or settings.api.port
    # The factory reads its settings from the environment: tell it where it listens (GraphiQL
    # is on by default only on loopback).
    os.environ["REMGRAPH_API__HOST"] = h
    os.environ["REMGRAPH_API__PORT"] = str(p)
    server = uvicorn.Server(uvicorn.Config(factory, factory=True, host=h, port=p, log_level="info"))

    async def run() -> None:
        serving = asyncio.create_task(server.serve())
        if await wait_until_ready(serving, h, p):  # announce only what answers
            Console(stderr=True).print(f"remgraph API on http://{h}:{p}/graphql")
        await serving

    asyncio.run(run())


@app.command("export-schema")
def export_schema(
    output: Annotated[
        Path | None, typer.Option(help="Write the SDL here instead of standard output")
    ] = None,
) -> None:
    """Print the GraphQL schema (SDL) that the drift test compares with `api/schema.graphql`."""
    from api.schema import build_schema

    sdl = build_schema().as_str() + "\n"
    if output is None:
        typer.echo(sdl, nl=False)
    else:
        output.write_text(sdl, encoding="utf-8")
        Console(stderr=True).print(f"wrote {output}")


@keys_app.command("create")
def keys_create(
    project: Annotated[
        list[str], typer.Option("--project", "-p", help="Project slug (repeat; `*` = all)")
    ],
    name: Annotated[str, typer.Option(help="Label")] = "",
    expires: Annotated[
        str | None,
        typer.Option(help="Stop working after a span (90m, 12h, 30d, 2w) or at a time (ISO 8601)"),
    ] = None,
) -> None:
    """Create a key for one or more projects and print its secret once."""
    until = None
    if expires is not None:
        until = parse_deadline(expires, utc_now())
        if until is None:
            raise typer.BadParameter(
                f"{expires!r} is neither a span (90m, 12h, 30d, 2w) nor an ISO 8601 time",
                param_hint="--expires",
            )

    async def run() -> str:
        async with graph_session(ApiSettings()) as db:
            key, secret = await ApiKeyRepository(db).create(name, project, expires_at=until)
            return f"{key.id}\t{secret}"

    typer.echo(asyncio.run(run()))


@keys_app.command("list")
def keys_list(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array, for scripts")] = False,
) -> None:
    """List keys (id, name, projects, created, revoked); secrets are never stored."""

    async def run() -> list[ApiKey]:
        async with graph_session(ApiSettings()) as db:
            return await ApiKeyRepository(db).list()

    keys = asyncio.run(run())
    if as_json:
        typer.echo(json.dumps([_key_row(k) for k in keys], indent=2))
        return
    # the id whole, never cut or folded, so it can be pasted into `keys revoke`
    width = max((len(k.id) for k in keys), default=2)
    table = Table(
        Column("id", no_wrap=True, min_width=width),
        "name",
        "projects",
        "created",
        "revoked",
        "expires",
    )
    for k in keys:
        table.add_row(
            k.id,
            k.name,
            ",".join(k.projects),
            k.created_at.isoformat(timespec="seconds"),
            k.revoked_at.isoformat(timespec="seconds") if k.revoked_at else "",
            k.expires_at.isoformat(timespec="seconds") if k.expires_at else "",
        )
    Console().print(table)


def _key_row(k: ApiKey) -> dict[str, object]:
    return {
        "id": k.id,
        "name": k.name,
        "projects": list(k.projects),
        "created": k.created_at.isoformat(),
        "revoked": k.revoked_at.isoformat() if k.revoked_at else None,
        "expires": k.expires_at.isoformat() if k.expires_at else None,
    }


def _unique_key(ids: Sequence[str], prefix: str) -> str:
    """The one key id starting with `prefix` (a whole id is its own prefix)."""
    if prefix in ids:
        return prefix
    found = [i for i in ids if i.startswith(prefix)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise InvalidInputError("key id", f"no key id starts with {prefix!r} (see `keys list`)")
    raise InvalidInputError(
        "key id",
        f"{prefix!r} starts {len(found)} key ids ({', '.join(found[:5])}); give more of it",
    )


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="Key id (`key_...`) or a unique start of it")],
) -> None:
    """Revoke a key (requests with it fail within 30 seconds)."""

    async def run() -> str:
        async with graph_session(ApiSettings()) as db:
            repo = ApiKeyRepository(db)
            whole = _unique_key([k.id for k in await repo.list()], key_id)
            await repo.revoke(whole)
            return whole

    typer.echo(f"revoked {asyncio.run(run())}")


@app.command("mcp")
def mcp(
    key: Annotated[str | None, typer.Option(help="API key (default: $REMGRAPH_API_KEY)")] = None,
) -> None:
    """Serve context, search, ingest_turns and record_feedback over MCP on stdio."""
    from api.mcp import run_stdio

    run_stdio(ApiSettings(), key=key)
