"""Mutations end to end: ingestTurns through the real pipeline, feedback, confirm, close."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from dirty_equals import IsList, IsStr

from tests.integration.api.conftest import gql

INGEST = """mutation($input: IngestTurnsInput!) { ingestTurns(input: $input) { __typename
  ... on IngestTurnsPayload { sessionId turnIds added failures }
  ... on InvalidInput { field message } } }"""


async def test_ingest_turns_then_find_them_in_context(client, keys):
    turns = [
        {
            "role": "user",
            "text": "Our deploy pipeline uses the zebra-cluster on Fridays.",
            "speaker": "Ana",
        },
        {"role": "assistant", "text": "Noted: zebra-cluster deploys happen on Fridays."},
    ]
    inp = {"project": "alpha", "sessionKey": "agent-1", "title": "deploys", "turns": turns}
    r = await gql(client, INGEST, keys["alpha"], input=inp)
    out = r.json()["data"]["ingestTurns"]
    assert out == {
        "__typename": "IngestTurnsPayload",
        "sessionId": IsStr(),
        "turnIds": IsList(IsStr(), IsStr()),
        "added": 2,
        "failures": [],
    }
    again = (await gql(client, INGEST, keys["alpha"], input=inp)).json()["data"]["ingestTurns"]
    assert again["added"] == 0  # idempotent
    assert again["turnIds"] == out["turnIds"]
    q = """{ context(query: "which cluster do deploys use", project: "alpha", limit: 3) {
      ... on ContextPayload { items { id } } } }"""
    items = (await gql(client, q, keys["alpha"])).json()["data"]["context"]["items"]
    assert items[0]["id"] in out["turnIds"]


async def test_ingest_turns_rejects_bad_input(client, keys):
    bad = {"project": "alpha", "sessionKey": "s", "turns": [{"role": "robot", "text": "x"}]}
    r = await gql(client, INGEST, keys["alpha"], input=bad)
    assert r.json()["data"]["ingestTurns"] == {
        "__typename": "InvalidInput",
        "field": "turns[0].role",
        "message": IsStr(),
    }
    empty = {"project": "alpha", "sessionKey": "s", "turns": []}
    r = await gql(client, INGEST, keys["alpha"], input=empty)
    assert r.json()["data"]["ingestTurns"]["field"] == "turns"


FEEDBACK = """mutation($input: RecordFeedbackInput!) { recordFeedback(input: $input) {
  __typename ... on FeedbackPayload { id kind usageCount helpfulCount harmfulCount effectiveness }
  ... on NotFound { id } ... on InvalidInput { field } } }"""


async def test_feedback_counts_and_effectiveness(client, keys):
    for signal in ("USED", "HELPFUL", "HELPFUL", "HARMFUL"):
        r = await gql(
            client,
            FEEDBACK,
            keys["alpha"],
            input={"project": "alpha", "itemId": "les_alpha", "signal": signal},
        )
    assert r.json()["data"]["recordFeedback"] == {
        "__typename": "FeedbackPayload",
        "id": "les_alpha",
        "kind": "LESSON",
        "usageCount": 4,
        "helpfulCount": 2,
        "harmfulCount": 1,
        "effectiveness": (2 - 1) / (2 + 1 + 2),
    }
    r = await gql(
        client,
        FEEDBACK,
        keys["alpha"],
        input={"project": "alpha", "itemId": "cor_alpha", "signal": "HELPFUL"},
    )
    assert r.json()["data"]["recordFeedback"]["kind"] == "CORRECTION"
    r = await gql(
        client,
        FEEDBACK,
        keys["alpha"],
        input={"project": "alpha", "itemId": "les_nope", "signal": "USED"},
    )
    assert r.json()["data"]["recordFeedback"] == {"__typename": "NotFound", "id": "les_nope"}
    r = await gql(
        client,
        FEEDBACK,
        keys["alpha"],
        input={"project": "alpha", "itemId": "xyz", "signal": "USED"},
    )
    assert r.json()["data"]["recordFeedback"] == {"__typename": "InvalidInput", "field": "kind"}
    q = (
        '{ lesson(id: "les_alpha") { ... on Lesson { usageCount effectiveness versions {'
        " version } } } }"
    )
    assert (await gql(client, q, keys["alpha"])).json()["data"]["lesson"] == {
        "usageCount": 4,
        "effectiveness": 0.2,
        "versions": [{"version": 1}, {"version": 2}],
    }


async def test_confirm_correction_makes_a_rule(client, keys):
    m = """mutation { confirmCorrection(project: "alpha", id: "cor_alpha") {
      __typename ... on Correction { id status confirmed } } }"""
    r = await gql(client, m, keys["alpha"])
    assert r.json()["data"]["confirmCorrection"] == {
        "__typename": "Correction",
        "id": "cor_alpha",
        "status": "rule",
        "confirmed": True,
    }


async def test_close_fact_keeps_it_for_earlier_as_of_reads(client, keys):
    m = """mutation { closeFact(project: "alpha", id: "fct_alpha",
      validTo: "2024-01-01T00:00:00Z") { __typename ... on Fact { id validTo } } }"""
    r = await gql(client, m, keys["alpha"])
    assert r.json()["data"]["closeFact"] == {
        "__typename": "Fact",
        "id": "fct_alpha",
        "validTo": "2024-01-01T00:00:00+00:00",
    }
    q = """query($at: DateTime) { facts(project: "alpha", asOf: $at) {
      ... on FactConnection { nodes { id } } } }"""
    now = (await gql(client, q, keys["alpha"])).json()["data"]["facts"]["nodes"]
    then = (await gql(client, q, keys["alpha"], at="2023-06-01T00:00:00Z")).json()
    assert now == []
    assert then["data"]["facts"]["nodes"] == [{"id": "fct_alpha"}]
    r = await gql(client, m, keys["alpha"])
    assert r.json()["data"]["closeFact"]["__typename"] == "NotFound"  # already closed


_CORRECTIONS = """query($at: DateTime, $known: DateTime) {
  corrections(project: "alpha", asOf: $at, knownAt: $known) {
    ... on CorrectionConnection { nodes { id validTo } } } }"""


async def test_close_correction_ends_it_for_later_reads_only(client, keys):
    m = """mutation { closeCorrection(project: "alpha", id: "cor_alpha",
      validTo: "2024-01-01T00:00:00Z") { __typename ... on Correction { id validTo } } }"""
    # another project's key cannot touch it
    assert (await gql(client, m, keys["beta"])).json()["data"]["closeCorrection"]["__typename"] in (
        "Forbidden",
        "NotFound",
    )
    r = await gql(client, m, keys["alpha"])
    assert r.json()["data"]["closeCorrection"] == {
        "__typename": "Correction",
        "id": "cor_alpha",
        "validTo": "2024-01-01T00:00:00+00:00",
    }
    now = (await gql(client, _CORRECTIONS, keys["alpha"])).json()["data"]["corrections"]
    then = (await gql(client, _CORRECTIONS, keys["alpha"], at="2023-06-01T00:00:00Z")).json()
    assert now["nodes"] == []
    assert [n["id"] for n in then["data"]["corrections"]["nodes"]] == ["cor_alpha"]
    r = await gql(client, m, keys["alpha"])
    assert r.json()["data"]["closeCorrection"]["__typename"] == "NotFound"  # already closed


async def test_retract_correction_keeps_what_was_believed_before(client, keys):
    believed = datetime.now(UTC).isoformat()  # after the seed was recorded
    await asyncio.sleep(0.01)
    m = """mutation { retractCorrection(project: "alpha", id: "cor_alpha") {
      __typename ... on Correction { id } } }"""
    r = await gql(client, m, keys["alpha"])
    assert r.json()["data"]["retractCorrection"] == {"__typename": "Correction", "id": "cor_alpha"}
    now = (await gql(client, _CORRECTIONS, keys["alpha"])).json()["data"]["corrections"]
    assert now["nodes"] == []
    earlier = (await gql(client, _CORRECTIONS, keys["alpha"], known=believed)).json()["data"][
        "corrections"
    ]
    assert [n["id"] for n in earlier["nodes"]] == ["cor_alpha"]
    again = (await gql(client, m, keys["alpha"])).json()["data"]["retractCorrection"]
    assert again["__typename"] == "NotFound"


async def test_context_returns_knowledge_items_with_provenance(client, keys, seeded):
    q = """{ context(query: "support group", project: "alpha", limit: 20,
                     kinds: [LESSON, CORRECTION, FACT]) {
      ... on ContextPayload { items { id kind provenance { turnIds } } } } }"""
    items = (await gql(client, q, keys["alpha"])).json()["data"]["context"]["items"]
    assert {i["kind"] for i in items} == {"LESSON", "CORRECTION", "FACT"}
    assert all(i["provenance"]["turnIds"] == [seeded.turns["alpha"][0]] for i in items)


async def test_context_returns_topics_pointing_at_their_turns(client, keys, seeded):
    q = """{ context(query: "support group", project: "alpha", limit: 5, kinds: [TOPIC]) {
      ... on ContextPayload { items { id kind text provenance { turnIds } } } } }"""
    items = (await gql(client, q, keys["alpha"])).json()["data"]["context"]["items"]
    assert items == [
        {
            "id": "top_alpha",
            "kind": "TOPIC",
            "text": "alpha support group",
            "provenance": {"turnIds": [seeded.turns["alpha"][0]]},
        }
    ]
