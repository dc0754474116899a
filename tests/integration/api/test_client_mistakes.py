"""Client mistakes get a typed GraphQL error, never `internal error` (issue 15)."""

from __future__ import annotations

import json

import pytest

from tests.integration.api.conftest import gql

SID = "{sid}"

TURNS = (
    '{{{{ session(id: "{{sid}}") {{{{ ... on Session '
    "{{{{ turns({args}) {{{{ nodes {{{{ id }}}} }}}} }}}} }}}} }}}}"
)
REVIEW = (
    'mutation {{{{ reviewFinding(project: "alpha", id: "nope", status: "{status}") '
    "{{{{ __typename }}}} }}}}"
)

HOSTILE = [
    '{{ session(id: "{sid}") {{ ... on Session {{ turns(first: -1) {{ nodes {{ id }} }} }} }} }}',
    '{{ session(id: "{sid}") {{ ... on Session {{ turns(first: 0) {{ nodes {{ id }} }} }} }} }}',
    TURNS.format(args='after: "LTE="'),
    '{{ session(id: "{sid}") {{ ... on Session {{ turns(after: "xx") {{ nodes {{ id }} }} }} }} }}',
    '{{ sessions(first: 5, after: "LTE=") {{ __typename }} }}',
    '{{ sessions(first: 5, after: "-1") {{ __typename }} }}',
    "{{ sessions(first: -5) {{ __typename }} }}",
    '{{ lessons(first: 5, after: "LTE=") {{ __typename }} }}',
    '{{ search(query: "x", after: "LTE=") {{ __typename }} }}',
    '{{ search(query: "x", first: -1) {{ __typename }} }}',
    '{{ context(query: "support", asOf: "0001-01-01T00:00:00Z") {{ __typename }} }}',
    '{{ context(query: "support", asOf: "9999-12-31T23:59:59Z") {{ __typename }} }}',
    '{{ context(query: "support", knownAt: "0001-01-01T00:00:00Z") {{ __typename }} }}',
    '{{ sessions(asOf: "0001-01-01T00:00:00Z") {{ __typename }} }}',
    '{{ lessons(asOf: "9999-12-31T23:59:59Z") {{ __typename }} }}',
    '{{ facts(asOf: "0001-01-01T00:00:00+14:00") {{ __typename }} }}',
    '{{ context(query: "support", limit: -1) {{ __typename }} }}',
    '{{ context(query: "support", tokenBudget: -5) {{ __typename }} }}',
    '{{ context(query: "support", limit: 2147483647) {{ __typename }} }}',
    '{{ context(query: "", limit: 5) {{ __typename }} }}',
    REVIEW.format(status="accepted"),
    'mutation {{ reviewFinding(project: "alpha", id: "nope", status: "bogus") {{ __typename }} }}',
]


@pytest.mark.parametrize("template", HOSTILE)
async def test_client_mistake_is_not_an_internal_error(client, keys, seeded, template):
    q = template.format(sid=seeded.sessions["alpha"])
    r = await gql(client, q, keys["alpha"])
    assert r.status_code < 500, r.text
    body = r.json()
    for err in body.get("errors") or []:
        assert err.get("extensions", {}).get("code") != "INTERNAL", (q, err)
        assert "internal error" not in err["message"], (q, err)


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "x\ud83d"])
async def test_lone_surrogates_are_refused_as_typed_errors(client, keys, text):
    for q in (
        "query($q: String!) { context(query: $q) { __typename } }",
        "query($q: String!) { search(query: $q) { __typename } }",
        "query($q: String!) { session(id: $q) { __typename } }",
    ):
        # json.dumps escapes the surrogate as `\\udXXX`, as a hostile client would send it
        r = await client.post(
            "/graphql",
            content=json.dumps({"query": q, "variables": {"q": text}}),
            headers={
                "Authorization": f"Bearer {keys['alpha']}",
                "Content-Type": "application/json",
            },
        )
        assert r.status_code == 400, r.text
        assert "lone surrogate" in r.json()["errors"][0]["message"]
