"""Through the app: the parse/validation caches keep every limit in force on repeated queries."""

from __future__ import annotations

from tests.integration.api.conftest import gql

DEEP = """{ projects { ... on ProjectConnection { nodes { sessions { nodes { turns {
  nodes { session { turns { nodes { session { id } } } } } } } } } } } }"""


async def test_too_deep_query_is_refused_on_its_second_submission(client, keys):
    for _ in range(2):
        body = (await gql(client, DEEP, keys["alpha"])).json()
        assert body["data"] is None
        assert "exceeds maximum operation depth" in body["errors"][0]["message"]


async def test_a_cached_query_still_answers_per_caller(client, keys):
    """Same text, two keys: the cached document is re-executed with each caller's scope."""
    q = "{ projects { ... on ProjectConnection { nodes { id } } } }"
    alpha = (await gql(client, q, keys["alpha"])).json()["data"]["projects"]["nodes"]
    beta = (await gql(client, q, keys["beta"])).json()["data"]["projects"]["nodes"]
    assert [p["id"] for p in alpha] == ["alpha"]
    assert [p["id"] for p in beta] == ["beta"]
