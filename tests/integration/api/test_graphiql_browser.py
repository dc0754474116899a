"""GraphiQL in a real browser: headless Chromium opens the page without a key, a key is entered,
a `context` query runs, and the rendered result is checked (screenshot in pytest's tmp dir)."""

from __future__ import annotations

from urllib.parse import quote

import httpx

from tests.browser import chromium_page, require_chromium
from tests.integration.api.live import live_api  # noqa: F401  # fixture

QUERY = """query Context {
  context(query: "When did Caroline go to the support group?", project: "alpha", limit: 3) {
    __typename
    ... on ContextPayload { items { id kind text } }
  }
}"""


async def test_graphiql_opens_takes_a_key_and_runs_a_context_query(live_api, keys, tmp_path):  # noqa: F811
    require_chromium()
    url = f"{live_api.url}/graphql"
    async with chromium_page() as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("response", lambda r: errors.append(r.url) if r.status >= 400 else None)
        response = await page.goto(f"{url}?query={quote(QUERY)}")
        assert response.status == 200
        assert await page.is_visible("#key-input")
        await page.fill("#key-input", keys["alpha"])
        await page.click("#key-use")
        await page.wait_for_selector(".graphiql-container", timeout=30_000)
        await page.click(".graphiql-execute-button")
        await page.wait_for_function(
            "() => (document.querySelector('.result-window') || {}).innerText"
            "?.includes('trn_alpha_0')",
            timeout=30_000,
        )
        result = await page.inner_text(".result-window")
        await page.screenshot(path=str(tmp_path / "graphiql.png"), full_page=True)
        assert '"__typename": "ContextPayload"' in result
        assert "support group" in result
        # the key lives in this tab's sessionStorage and nowhere else
        stored = await page.evaluate("() => sessionStorage.getItem('remgraph.apiKey')")
        assert stored == keys["alpha"]
        assert keys["alpha"] not in await page.evaluate("() => JSON.stringify(localStorage)")
        # the header editor was pre-filled with the bearer header the query was sent with
        headers = await page.inner_text(".graphiql-editor-tool")
        assert f'"Authorization": "Bearer {keys["alpha"]}"' in headers
        assert not errors, errors
    # the page holds no data and every query still needs a key
    async with httpx.AsyncClient(trust_env=False) as c:
        r = await c.post(url, json={"query": QUERY})
    assert r.status_code == 401
