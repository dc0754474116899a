"""The GraphiQL page over HTTP: served without a key on loopback, no data in it, queries still
need a key, off when bound elsewhere unless asked for."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest

from api.app import create_app

HTML = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


@contextlib.asynccontextmanager
async def _client(api_settings, make_services, **api) -> AsyncIterator[httpx.AsyncClient]:
    settings = api_settings.model_copy(update={"api": api_settings.api.model_copy(update=api)})
    app = create_app(settings, make_services())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c


async def test_the_page_loads_without_a_key_and_holds_no_data(client, keys):
    r = await client.get("/graphql", headers=HTML)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["cache-control"] == "no-store"
    assert 'id="key-input"' in r.text
    for secret in keys.values():
        assert secret not in r.text
    assert "Caroline" not in r.text
    assert "alpha" not in r.text
    js = await client.get("/graphql/ide/graphiql.min.js")
    assert js.status_code == 200
    assert js.headers["content-type"].startswith("text/javascript")
    assert (await client.get("/graphql/ide/../app.py")).status_code == 404
    assert (await client.get("/graphql/ide/nothing.js")).status_code == 404


async def test_every_query_still_needs_a_key(client, keys):
    q = {"query": "{ projects { ... on ProjectConnection { nodes { id } } } }"}
    assert (await client.post("/graphql", json=q)).status_code == 401
    assert (await client.get("/graphql", params=q)).status_code == 401  # a GET query, not HTML
    ok = await client.post("/graphql", json=q, headers={"Authorization": f"Bearer {keys['alpha']}"})
    assert ok.json()["data"]["projects"]["nodes"] == [{"id": "alpha"}]


@pytest.mark.parametrize(
    ("api", "served"),
    [
        ({"host": "0.0.0.0"}, False),
        ({"host": "0.0.0.0", "graphiql": True}, True),
        ({"host": "127.0.0.1", "graphiql": False}, False),
        ({"host": "::1"}, True),
    ],
)
async def test_served_on_loopback_by_default_and_elsewhere_only_when_asked(
    api_settings, make_services, seeded, api, served
):
    async with _client(api_settings, make_services, **api) as c:
        r = await c.get("/graphql", headers=HTML)
        assert (r.status_code == 200 and 'id="key-input"' in r.text) is served
        if not served:
            assert r.status_code == 401
            assert (await c.get("/graphql/ide/graphiql.min.js")).status_code != 200
