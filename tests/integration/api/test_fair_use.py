"""Fair use: a cost budget per request, charged before work starts, and per-key rate limits."""

from __future__ import annotations

import httpx

from api.app import create_app
from tests.integration.api.conftest import gql


async def test_many_aliased_long_queries_pass_the_cost_budget(client, keys):
    long_query = "support group " * 250  # 3,500 characters: 15 units per row
    fields = " ".join(
        f'c{i}: context(query: "{long_query}", limit: 200) {{ __typename }}' for i in range(5)
    )
    body = (await gql(client, "{ " + fields + " }", keys["alpha"])).json()
    codes = [e["extensions"]["code"] for e in body["errors"]]
    # 200 rows × 15 = 3,000 units: the first field fits the 5,000 budget, the second does not
    # (a non-null field's error ends the request: the first refusal is the one reported)
    assert codes == ["COST_LIMIT"]  # refused as such, never an internal error
    assert "REMGRAPH_API__MAX_REQUEST_COST" in body["errors"][0]["message"]


async def test_an_ordinary_request_is_within_budget(client, keys):
    body = (
        await gql(client, '{ context(query: "support group") { __typename } }', keys["alpha"])
    ).json()
    assert "errors" not in body


async def test_a_key_past_its_rate_limit_gets_429_with_retry_after(
    api_settings, make_services, seeded, keys
):
    settings = api_settings.model_copy(
        update={"api": api_settings.api.model_copy(update={"rate_per_s": 0.01, "rate_burst": 3})}
    )
    app = create_app(settings, make_services())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            q = "{ projects { __typename } }"
            statuses = [(await gql(c, q, keys["alpha"])).status_code for _ in range(4)]
            assert statuses == [200, 200, 200, 429]
            refused = await gql(c, q, keys["alpha"])
            assert int(refused.headers["Retry-After"]) >= 1
            assert "REMGRAPH_API__RATE_PER_S" in refused.text
            # another key has its own bucket
            assert (await gql(c, q, keys["beta"])).status_code == 200
