"""`remgraph keys list | revoke`: whole ids a person can paste, JSON for scripts, prefixes."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from graph.errors import InvalidInputError
from graph.repositories.api_keys import ApiKeyRepository
from remgraph.cli import app
from tests.engines import set_engine_env


async def test_keys_list_shows_whole_ids_and_revoke_takes_a_unique_prefix(
    graph_db, graph_settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = ApiKeyRepository(graph_db)
    first, _ = await repo.create("laptop agent with a long descriptive name", ["alpha", "beta"])
    second, _ = await repo.create("ci", ["alpha"])
    set_engine_env(monkeypatch, graph_settings)
    monkeypatch.setenv("COLUMNS", "80")  # a narrow terminal must not cut the ids
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args))

    table = await asyncio.to_thread(invoke, "keys", "list")
    assert table.exit_code == 0, table.output
    assert first.id in table.output
    assert second.id in table.output

    listed = await asyncio.to_thread(invoke, "keys", "list", "--json")
    rows = {r["id"]: r for r in json.loads(listed.output)}
    assert rows[first.id]["projects"] == ["alpha", "beta"]
    assert rows[first.id]["revoked"] is None

    prefix = first.id[:-2]  # enough of the id to name one key
    revoked = await asyncio.to_thread(invoke, "keys", "revoke", prefix)
    assert revoked.exit_code == 0, revoked.output
    assert revoked.output == f"revoked {first.id}\n"
    after = {
        r["id"]: r
        for r in json.loads((await asyncio.to_thread(invoke, "keys", "list", "--json")).output)
    }
    assert after[first.id]["revoked"] is not None
    assert after[second.id]["revoked"] is None

    shared = await asyncio.to_thread(invoke, "keys", "revoke", "key_")
    assert isinstance(shared.exception, InvalidInputError)  # `remgraph` prints it on one line
    assert "starts 2 key ids" in str(shared.exception)
    none = await asyncio.to_thread(invoke, "keys", "revoke", "key_nothing")
    assert "no key id starts with 'key_nothing'" in str(none.exception)


async def test_keys_create_takes_an_expiry_as_a_span_or_a_time(
    graph_db, graph_settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_engine_env(monkeypatch, graph_settings)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args))

    made = await asyncio.to_thread(invoke, "keys", "create", "-p", "alpha", "--expires", "30d")
    assert made.exit_code == 0, made.output
    key_id, secret = made.output.strip().split("\t")
    rows = json.loads((await asyncio.to_thread(invoke, "keys", "list", "--json")).output)
    [row] = [r for r in rows if r["id"] == key_id]
    left = datetime.fromisoformat(row["expires"]) - datetime.now(UTC)
    assert timedelta(days=29) < left <= timedelta(days=30)
    assert await ApiKeyRepository(graph_db).find_by_secret(secret) is not None

    bad = await asyncio.to_thread(invoke, "keys", "create", "-p", "alpha", "--expires", "soon")
    assert bad.exit_code == 2
    assert "neither a span" in bad.output
    past = await asyncio.to_thread(
        invoke, "keys", "create", "-p", "alpha", "--expires", "2000-01-01"
    )
    assert isinstance(past.exception, InvalidInputError)
    assert "not in the future" in str(past.exception)
