"""Limits: query depth, aliases, body and response size, slow requests, masked errors."""

from __future__ import annotations

import logging

import httpx

from api.app import create_app
from tests.integration.api.conftest import gql


async def test_too_deep_query_is_refused(client, keys):
    deep = """{ projects { ... on ProjectConnection { nodes { sessions { nodes { turns {
      nodes { session { turns { nodes { session { id } } } } } } } } } } } }"""
    r = await gql(client, deep, keys["alpha"])
    body = r.json()
    assert body["data"] is None
    assert "exceeds maximum operation depth" in body["errors"][0]["message"]


async def test_too_many_aliases_are_refused(client, keys):
    q = "{ " + " ".join(f'a{i}: turn(id: "x") {{ __typename }}' for i in range(40)) + " }"
    body = (await gql(client, q, keys["alpha"])).json()
    assert "aliases found" in body["errors"][0]["message"]


async def test_oversize_body_gets_413_with_a_clear_message(client, keys):
    huge = "x" * 30_000  # the test app allows 20 000 bytes
    r = await client.post(
        "/graphql",
        json={"query": f'{{ turn(id: "{huge}") {{ __typename }} }}'},
        headers={"Authorization": f"Bearer {keys['alpha']}"},
    )
    assert r.status_code == 413
    msg = r.json()["errors"][0]["message"]
    assert "request body too large" in msg
    assert "20000" in msg
    assert "REMGRAPH_API__MAX_BODY_BYTES" in msg


async def test_oversize_streamed_body_without_length_gets_413(client, keys):
    async def chunks():
        for _ in range(30):
            yield b"x" * 1000

    r = await client.post(
        "/graphql",
        content=chunks(),
        headers={"Authorization": f"Bearer {keys['alpha']}", "Content-Type": "application/json"},
    )
    assert r.status_code == 413


async def test_page_size_over_the_maximum_is_invalid_input(client, keys):
    r = await gql(
        client,
        "{ sessions(first: 100000) { __typename ... on InvalidInput { field } } }",
        keys["alpha"],
    )
    assert r.json()["data"]["sessions"] == {"__typename": "InvalidInput", "field": "first"}


async def test_a_deeply_nested_or_huge_number_body_is_a_one_line_400(client, keys):
    h = {"Authorization": f"Bearer {keys['alpha']}", "Content-Type": "application/json"}
    nested = b'{"query": "{ __typename }", "variables": {"a": ' + b"[" * 5000 + b"]" * 5000
    r = await client.post("/graphql", content=nested + b"}}", headers=h)
    assert r.status_code == 400
    assert "nests too deeply" in r.json()["errors"][0]["message"]
    digits = b"9" * 5000
    body = b'{"query": "query($n: Int) { __typename }", "variables": {"n": ' + digits + b"}}"
    r = await client.post("/graphql", content=body, headers=h)
    assert r.status_code == 400
    message = r.json()["errors"][0]["message"]
    assert "cannot be read" in message
    assert "\n" not in message
    literal = "{ sessions(first: " + "9" * 5000 + ") { __typename } }"
    body = (await gql(client, literal, keys["alpha"])).json()
    assert (
        body["errors"][0]["message"] == "Int cannot represent a 5000-digit value (32 bits at most)"
    )
    # the server keeps answering
    ok = await gql(client, "{ __typename }", keys["alpha"])
    assert ok.status_code == 200


async def test_a_response_past_the_byte_cap_is_refused_and_a_slow_request_is_logged(
    api_settings, make_services, seeded, keys, caplog
):
    cfg = api_settings.model_copy(
        update={
            "api": api_settings.api.model_copy(
                update={"max_response_bytes": 1024, "slow_request_s": 1e-6}
            )
        }
    )
    app = create_app(cfg, make_services())
    page = (
        "projects { ... on ProjectConnection { nodes { id sessions { nodes { id "
        "turns { nodes { id text } } } } } } }"
    )
    big = "{ " + " ".join(f"p{i}: {page}" for i in range(4)) + " }"  # about 3.5 KB
    caplog.set_level(logging.WARNING, logger="api.watch")
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            small = await gql(c, '{ turn(id: "x") { __typename } }', keys["all"])
            assert small.status_code == 200
            r = await c.post(
                "/graphql",
                json={"query": big},
                headers={"Authorization": f"Bearer {keys['all']}", "X-Request-Id": "req-big"},
            )
    assert r.status_code == 400, len(r.content)
    [error] = r.json()["errors"]
    assert error["extensions"]["code"] == "RESPONSE_TOO_LARGE"
    assert "1024 bytes" in error["message"]
    lines = [rec.getMessage() for rec in caplog.records if rec.name == "api.watch"]
    assert len(lines) == 2  # every request was "slow" at this threshold: one line each
    refused = next(x for x in lines if "req-big" in x)
    assert "refused" in refused
    assert "POST /graphql" in refused
    assert " key - " not in refused  # the key's id is named ...
    assert keys["all"] not in " ".join(lines)  # ... never its secret
