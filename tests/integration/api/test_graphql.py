"""GraphQL end to end on the embedded engine: context, search, reads, pagination, errors."""

from __future__ import annotations

from dirty_equals import IsFloat, IsList, IsStr

from graph.repositories.sessions import SessionRepository
from tests.integration.api.conftest import gql
from tests.support.api import CONTEXT_FULL_QUERY as CONTEXT


async def test_context_ranks_the_evidence_turn_first_with_reasons(client, keys):
    r = await gql(
        client,
        CONTEXT,
        keys["alpha"],
        q="When did Caroline go to the support group?",
        p="alpha",
        budget=500,
        limit=4,
    )
    assert r.status_code == 200, r.text
    data = r.json()["data"]["context"]
    assert data["__typename"] == "ContextPayload"
    assert data["speakers"] == ["Caroline"]
    assert data["terms"] == ["support", "group"]
    # the evidence turn, after only what was distilled from it; the project's early correction
    # about the support group shares the query's words but does not stand out from other rules
    # by meaning (it has no embedding), so it does not open the answer
    top = next(i for i in data["items"] if i["kind"] == "TURN")
    before = data["items"][: data["items"].index(top)]
    assert all(top["id"] in i["provenance"]["turnIds"] for i in before)
    assert not any("rule_first" in {s["name"] for s in i["why"]} for i in data["items"])
    assert top["id"] == "trn_alpha_0"
    assert top["kind"] == "TURN"
    assert top["score"] == IsFloat(gt=0)
    assert {s["name"] for s in top["why"]} >= {"fused", "speaker", "session", "neighbour"}
    assert top["provenance"] == {
        "project": "alpha",
        "sessionId": "ses_alpha",
        "turnIds": ["trn_alpha_0"],
        "timestamp": IsStr(regex=r"2023-05-08T13:56:00.*"),
        "speaker": "Caroline",
    }
    assert len(data["items"]) <= 4
    assert data["totalTokens"] == sum(i["tokens"] for i in data["items"]) <= 500


async def test_context_packs_under_a_small_budget(client, keys):
    r = await gql(
        client,
        CONTEXT,
        keys["alpha"],
        q="support group painting adoption",
        p="alpha",
        budget=20,
        limit=10,
    )
    data = r.json()["data"]["context"]
    assert data["totalTokens"] <= 20
    assert all(i["tokens"] <= 20 for i in data["items"])


async def test_context_refuses_oversize_budget_and_limit(client, keys):
    r = await gql(client, CONTEXT, keys["alpha"], q="x", p="alpha", budget=10**9, limit=3)
    assert r.json()["data"]["context"] == {
        "__typename": "InvalidInput",
        "field": "tokenBudget",
        "message": IsStr(regex=".*32000.*"),
    }
    r = await gql(client, CONTEXT, keys["alpha"], q="x", p="alpha", budget=100, limit=10**6)
    assert r.json()["data"]["context"]["field"] == "limit"
    r = await gql(client, CONTEXT, keys["alpha"], q="  ", p="alpha", budget=100, limit=3)
    assert r.json()["data"]["context"]["field"] == "query"


async def test_context_for_another_project_is_forbidden(client, keys):
    r = await gql(client, CONTEXT, keys["alpha"], q="launch code", p="beta", budget=100, limit=3)
    assert r.json()["data"]["context"] == {
        "__typename": "Forbidden",
        "project": "beta",
        "message": IsStr(),
    }


SEARCH = """
query($q: String!, $mode: SearchMode!, $first: Int!, $after: String) {
  search(query: $q, mode: $mode, first: $first, after: $after) {
    __typename
    ... on SearchHitConnection {
      pageInfo { hasNextPage endCursor }
      edges { cursor node { id score kind turn { id text project session { id title } } } }
    }
  }
}"""


async def test_search_modes_and_cursor_pagination(client, keys):
    for mode in ("FULLTEXT", "VECTOR", "HYBRID"):
        r = await gql(client, SEARCH, keys["alpha"], q="support group", mode=mode, first=2)
        page = r.json()["data"]["search"]
        assert page["__typename"] == "SearchHitConnection", r.text
        assert page["edges"][0]["node"]["turn"]["id"] == "trn_alpha_0", mode
        assert page["edges"][0]["node"]["turn"]["session"] == {
            "id": "ses_alpha",
            "title": "alpha chat",
        }
    r = await gql(client, SEARCH, keys["alpha"], q="support group", mode="VECTOR", first=2)
    first = r.json()["data"]["search"]
    assert first["pageInfo"]["hasNextPage"] is True
    r = await gql(
        client,
        SEARCH,
        keys["alpha"],
        q="support group",
        mode="VECTOR",
        first=2,
        after=first["pageInfo"]["endCursor"],
    )
    second = r.json()["data"]["search"]
    ids1 = [e["node"]["id"] for e in first["edges"]]
    ids2 = [e["node"]["id"] for e in second["edges"]]
    assert ids2 == IsList(length=2)
    assert not set(ids1) & set(ids2)


async def test_bad_cursor_is_invalid_input(client, keys):
    r = await gql(
        client,
        """query { sessions(after: "nope") { __typename
        ... on InvalidInput { field message } } }""",
        keys["alpha"],
    )
    assert r.json()["data"]["sessions"] == {
        "__typename": "InvalidInput",
        "field": "after",
        "message": IsStr(),
    }


async def test_sessions_turns_and_projects(client, keys, seeded):
    q = """query { projects { ... on ProjectConnection { nodes { id sessions { nodes { id
        turns(first: 2) { pageInfo { hasNextPage } nodes { id ordinal speaker } } } } } } } }"""
    r = await gql(client, q, keys["alpha"])
    assert r.json()["data"]["projects"]["nodes"] == [
        {
            "id": "alpha",
            "sessions": {
                "nodes": [
                    {
                        "id": "ses_alpha",
                        "turns": {
                            "pageInfo": {"hasNextPage": True},
                            "nodes": [
                                {"id": "trn_alpha_0", "ordinal": 0, "speaker": "Caroline"},
                                {"id": "trn_alpha_1", "ordinal": 1, "speaker": "Melanie"},
                            ],
                        },
                    }
                ]
            },
        }
    ]
    r = await gql(
        client,
        """query { turn(id: "trn_alpha_2") { __typename ... on Turn { text } }
        session(id: "ses_alpha") { ... on Session { turnCount project } } }""",
        keys["alpha"],
    )
    assert r.json()["data"] == {
        "turn": {"__typename": "Turn", "text": IsStr(regex="The transgender.*")},
        "session": {"turnCount": 5, "project": "alpha"},
    }


async def test_session_shows_the_complexity_extraction_stored(client, keys, graph_db):
    q = 'query { session(id: "ses_alpha") { ... on Session { complexity quality } } }'
    r = await gql(client, q, keys["alpha"])
    assert r.json()["data"] == {"session": {"complexity": None, "quality": None}}
    repo = SessionRepository(graph_db)
    stored = await repo.get("ses_alpha")
    await repo.upsert_many([stored.model_copy(update={"complexity": 0.42})])
    r = await gql(client, q, keys["alpha"])
    assert r.json()["data"] == {"session": {"complexity": 0.42, "quality": None}}


async def test_not_found_is_a_schema_type(client, keys):
    r = await gql(
        client,
        """query { turn(id: "trn_nope") { __typename
        ... on NotFound { kind id message } } }""",
        keys["alpha"],
    )
    assert r.json()["data"]["turn"] == {
        "__typename": "NotFound",
        "kind": "turn",
        "id": "trn_nope",
        "message": "turn 'trn_nope' not found",
    }


async def test_health_and_readiness(client):
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    r = await client.get("/readyz")
    assert r.status_code == 200
    assert r.json()["status"] == "ready"


async def test_context_requests_are_recorded_with_what_they_returned(app, client, keys, graph_db):
    from graph.repositories.context_queries import ContextQueryRepository

    r = await gql(client, CONTEXT, keys["alpha"], q="support group", p="alpha", budget=500, limit=3)
    returned = [i["id"] for i in r.json()["data"]["context"]["items"]]
    assert returned
    await app.state.resources.recorder.flush()  # records are written in the background
    recent = await ContextQueryRepository(graph_db).recent("alpha")
    assert [(q.query, q.item_ids) for q in recent] == [("support group", tuple(returned))]
    assert await ContextQueryRepository(graph_db).recent("beta") == []
