"""`Topic.summary`: each key reads the summaries of its own projects' topics, never another's."""

from __future__ import annotations

import json

from consolidate.config import ConsolidateSection, ConsolidateSettings
from consolidate.runner import run_job
from graph.repositories.topics import TopicRepository
from tests.integration.api.conftest import gql
from tests.support.api import BETA_SECRETS

TOPICS = (
    "{ topics(first: 50) { ... on TopicConnection { nodes { id projects"
    " summary { version text takeaways sourceItemIds } } } } }"
)


async def test_a_key_reads_only_its_projects_topic_summaries(
    client, keys, seeded, graph_db, graph_settings, tmp_path
):
    topics = TopicRepository(graph_db)
    for project, turn_ids in seeded.turns.items():
        [topic] = await topics.get_many([f"top_{project}"])
        assert topic is not None
        await topics.upsert_many([topic.model_copy(update={"message_count": len(turn_ids)})])
        await topics.link_mentions([(t, f"top_{project}") for t in turn_ids])
    settings = ConsolidateSettings(
        **graph_settings.model_dump(exclude={"consolidate"}),
        consolidate=ConsolidateSection(report_dir=tmp_path, topic_summary_min_mentions=1),
        _env_file=None,
    )
    for project in ("alpha", "beta"):
        report = await run_job("topic_summaries", db=graph_db, settings=settings, project=project)
        assert report.summary["built"] == 1, report

    alpha = (await gql(client, TOPICS, keys["alpha"])).json()["data"]["topics"]["nodes"]
    assert [t["id"] for t in alpha] == ["top_alpha"]
    brief = alpha[0]["summary"]
    assert "Caroline went to a LGBTQ support group" in brief["text"]
    assert "The alpha user attends a support group." in brief["takeaways"]
    assert set(brief["sourceItemIds"]) >= {"fct_alpha", "cor_alpha"}
    text = json.dumps(alpha)
    assert not any(s in text for s in (*BETA_SECRETS, "beta", "Jon", "Gina"))

    by_id = '{ topic(id: "top_beta") { __typename ... on Topic { summary { text } } } }'
    assert (await gql(client, by_id, keys["alpha"])).json()["data"]["topic"] == {
        "__typename": "NotFound"
    }
    named = '{ topics(project: "beta") { __typename } }'
    assert (await gql(client, named, keys["alpha"])).json()["data"]["topics"] == {
        "__typename": "Forbidden"
    }

    # the same query with beta's key does return beta's summary: the check above could fail
    beta = (await gql(client, TOPICS, keys["beta"])).json()["data"]["topics"]["nodes"]
    assert [t["id"] for t in beta] == ["top_beta"]
    assert "dance studio" in beta[0]["summary"]["text"]
    assert "Caroline" not in json.dumps(beta)
