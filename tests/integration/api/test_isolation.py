"""A key for project A never reads project B, through any query field or search mode.

Every root field of `Query` is exercised (the test fails when a new field is added without being
covered here), each with arguments that would reach project B's data if scoping leaked.
"""

from __future__ import annotations

import json
from datetime import timedelta

from api.schema import build_schema
from core.timeutil import frozen_clock, utc_now
from graph.repositories.api_keys import ApiKeyRepository
from tests.integration.api.conftest import gql

B_MARKERS = ("beta", "Jon", "Gina", "tangerine", "dance")

# Every root query field, asked the way that could leak "beta" to an "alpha" key.
QUERIES = {
    "context": '{ context(query: "secret launch code tangerine dance studio", limit: 50) {'
    " ... on ContextPayload { items { id text provenance { project } } } } }",
    "search": '{ a: search(query: "launch code tangerine", mode: FULLTEXT, first: 50) {'
    " ... on SearchHitConnection { nodes { id turn { text project } } } }"
    ' b: search(query: "launch code tangerine", mode: VECTOR, first: 50) {'
    " ... on SearchHitConnection { nodes { id turn { text project } } } }"
    ' c: search(query: "dance studio", mode: HYBRID, first: 50) {'
    " ... on SearchHitConnection { nodes { id turn { text project } } } } }",
    "rules": "{ rules(limit: 50) { ... on RulesPayload { items { id project text } } } }",
    "project": '{ project(id: "beta") { __typename ... on Project { id } } }',
    "projects": "{ projects(first: 50) { ... on ProjectConnection { nodes { id } } } }",
    "session": '{ session(id: "ses_beta") { __typename ... on Session { id title } } }',
    "sessions": "{ sessions(first: 50) { ... on SessionConnection { nodes { id project } } } }",
    "turn": '{ turn(id: "trn_beta_0") { __typename ... on Turn { text } } }',
    "lesson": '{ lesson(id: "les_beta") { __typename ... on Lesson { title } } }',
    "lessons": "{ lessons(first: 50) { ... on LessonConnection { nodes { id project } } } }",
    "corrections": "{ corrections(first: 50) { ... on CorrectionConnection {"
    " nodes { id project ruleText } } } }",
    "facts": "{ facts(first: 50) { ... on FactConnection { nodes { id project statement } } } }",
    "topic": '{ topic(id: "top_beta") { __typename ... on Topic { title } } }',
    "topics": "{ topics(first: 50) { ... on TopicConnection { nodes { id title projects } } } }",
    "remStatus": '{ remStatus(project: "beta") { __typename } }',
    "remFindings": '{ remFindings(project: "beta") { __typename } }',
}
# Asking for project B by name must be refused outright.
NAMED = {
    "context": '{ context(query: "launch code", project: "beta") { __typename } }',
    "search": '{ search(query: "launch code", project: "beta") { __typename } }',
    "rules": '{ rules(project: "beta") { __typename } }',
    "sessions": '{ sessions(project: "beta") { __typename } }',
    "lessons": '{ lessons(project: "beta") { __typename } }',
    "corrections": '{ corrections(project: "beta") { __typename } }',
    "facts": '{ facts(project: "beta") { __typename } }',
    "topics": '{ topics(project: "beta") { __typename } }',
    "remStatus": '{ remStatus(project: "beta") { __typename } }',
    "remFindings": '{ remFindings(project: "beta") { __typename } }',
}


def test_every_query_field_is_covered():
    fields = set(build_schema()._schema.query_type.fields)
    assert set(QUERIES) == fields


async def test_alpha_key_never_sees_beta(client, keys):
    for name, q in QUERIES.items():
        r = await gql(client, q, keys["alpha"])
        assert r.status_code == 200, (name, r.text)
        body = r.json()
        assert "errors" not in body, (name, body)
        text = json.dumps(body)
        for marker in B_MARKERS:
            assert marker not in text, (name, marker, text[:500])


async def test_the_same_queries_do_reach_beta_with_its_key(client, keys):
    # Proves the isolation test could fail: with beta's key the markers are there.
    leaked = set()
    for name, q in QUERIES.items():
        r = await gql(client, q, keys["beta"])
        if any(m in json.dumps(r.json()) for m in B_MARKERS):
            leaked.add(name)
    assert leaked >= {
        "context",
        "search",
        "project",
        "projects",
        "session",
        "sessions",
        "turn",
        "lesson",
        "lessons",
        "corrections",
        "facts",
        "topic",
        "topics",
    }


async def test_naming_another_project_is_forbidden(client, keys):
    for name, q in NAMED.items():
        r = await gql(client, q, keys["alpha"])
        assert r.json()["data"][name] == {"__typename": "Forbidden"}, name


async def test_mutations_on_another_project_are_forbidden(client, keys):
    muts = [
        'mutation { recordFeedback(input: {project: "beta", itemId: "les_beta", signal: HELPFUL})'
        " { __typename } }",
        'mutation { confirmCorrection(project: "beta", id: "cor_beta") { __typename } }',
        'mutation { closeFact(project: "beta", id: "fct_beta") { __typename } }',
        'mutation { ingestTurns(input: {project: "beta", sessionKey: "x",'
        ' turns: [{role: "user", text: "hi"}]}) { __typename } }',
    ]
    for m in muts:
        r = await gql(client, m, keys["alpha"])
        assert next(iter(r.json()["data"].values())) == {"__typename": "Forbidden"}, m
    # An alpha-scoped write naming a beta item id finds nothing: scoping is in the query.
    r = await gql(
        client,
        'mutation { confirmCorrection(project: "alpha", id: "cor_beta") { __typename } }',
        keys["alpha"],
    )
    assert r.json()["data"]["confirmCorrection"] == {"__typename": "NotFound"}


async def test_missing_unknown_and_revoked_keys_are_refused(client, keys, graph_db):
    r = await gql(client, "{ projects { __typename } }", None)
    assert r.status_code == 401
    assert "missing API key" in r.text
    r = await gql(client, "{ projects { __typename } }", "rg_not-a-real-key")
    assert r.status_code == 401
    r = await client.post(
        "/graphql",
        json={"query": "{ projects { __typename } }"},
        headers={"X-API-Key": keys["alpha"]},
    )
    assert r.status_code == 200


async def test_an_expired_key_is_refused_on_the_next_request_even_when_cached(client, graph_db):
    start = utc_now()
    _, secret = await ApiKeyRepository(graph_db).create(
        "temp", ["alpha"], expires_at=start + timedelta(hours=1)
    )
    r = await gql(client, "{ projects { __typename } }", secret)
    assert r.status_code == 200  # and now the key is in the resolver's cache
    with frozen_clock(start + timedelta(hours=2)):
        r = await gql(client, "{ projects { __typename } }", secret)
        assert r.status_code == 401
        assert await ApiKeyRepository(graph_db).find_by_secret(secret) is None
