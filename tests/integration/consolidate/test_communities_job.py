from datetime import timedelta

from consolidate.runner import run_job
from graph.db import GraphDB
from graph.models import Correction, Lesson, Topic
from graph.repositories.communities import CommunityRepository
from tests.integration.consolidate.seed import (
    NOW,
    at,
    put_corrections,
    put_lessons,
    put_topics,
    vec,
)


def _suffix(project: str) -> str:
    return "" if project == "p" else f"_{project}"


async def _plant_two_clusters(db: GraphDB, project: str = "p") -> tuple[set[str], set[str]]:
    """Cluster A: topics/lessons about databases (direction 0, shared session s-a);
    cluster B: corrections/lessons about testing (direction 1, session s-b)."""
    topics = [
        Topic(
            id=f"top_a{i}{_suffix(project)}",
            title=f"graph database index {i}",
            keywords=("graph", "index"),
            project=project,
            projects=(project,),
            sessions=("s-a",),
            message_ids=(f"t-a{i}",),
            embedding=vec(0, i),
            valid_from=at(3),
            recorded_at=at(3),
        )
        for i in range(4)
    ]
    lessons = [
        Lesson(
            id=f"les_a{i}{_suffix(project)}",
            project=project,
            title=f"use the graph index for lookups {i}",
            keywords=("graph", "index"),
            source_turn_ids=(f"t-a{i}",),
            embedding=vec(0, 10 + i),
            valid_from=at(3),
            recorded_at=at(3),
        )
        for i in range(3)
    ] + [
        Lesson(
            id=f"les_b{i}{_suffix(project)}",
            project=project,
            title=f"run pytest with the embedded engine {i}",
            keywords=("pytest", "testing"),
            source_turn_ids=(f"t-b{i}",),
            embedding=vec(1, 20 + i),
            valid_from=at(3),
            recorded_at=at(3),
        )
        for i in range(3)
    ]
    corrections = [
        Correction(
            id=f"cor_b{i}{_suffix(project)}",
            project=project,
            rule_text=f"never mock the engine in tests {i}",
            sessions=("s-b",),
            source_turn_ids=(f"t-b{i}",),
            embedding=vec(1, 30 + i),
            valid_from=at(3),
            recorded_at=at(3),
        )
        for i in range(4)
    ]
    await put_topics(db, topics)
    await put_lessons(db, lessons)
    await put_corrections(db, corrections)
    a = {t.id for t in topics} | {x.id for x in lessons if x.id.startswith("les_a")}
    b = {c.id for c in corrections} | {x.id for x in lessons if x.id.startswith("les_b")}
    return a, b


async def test_two_planted_clusters_come_out_as_two_current_communities(graph_db, rem_settings):
    a, b = await _plant_two_clusters(graph_db)
    report = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    assert report.summary["communities"] == 2
    repo = CommunityRepository(graph_db)
    run = await repo.current_run("p")
    assert run is not None
    assert run.id == report.summary["run_id"]
    groups = {frozenset(c.member_ids) for c in await repo.list_communities(run.id)}
    assert groups == {frozenset(a), frozenset(b)}
    titles = {c.title for c in await repo.list_communities(run.id)}
    assert any("graph" in t for t in titles)
    assert any("pytest" in t or "testing" in t or "engine" in t for t in titles)
    members = await repo.of_members("p", ["les_a0", "cor_b1"])
    assert members["les_a0"][0] != members["cor_b1"][0]


async def test_same_seed_gives_the_same_partition_and_rerun_switches_runs(graph_db, rem_settings):
    await _plant_two_clusters(graph_db)
    repo = CommunityRepository(graph_db)
    first = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    second = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert first.summary["run_id"] != second.summary["run_id"]
    one = {frozenset(c.member_ids) for c in await repo.list_communities(first.summary["run_id"])}
    two = {frozenset(c.member_ids) for c in await repo.list_communities(second.summary["run_id"])}
    assert one == two
    assert second.summary["kept"] == 2
    assert second.summary["new"] == 0
    current = await repo.current_run("p")
    assert current is not None
    assert current.id == second.summary["run_id"]
    runs = await repo.list_runs("p")
    assert sum(r.current for r in runs) == 1


async def test_old_runs_are_purged_beyond_keep_runs(graph_db, rem_settings):
    await _plant_two_clusters(graph_db)
    repo = CommunityRepository(graph_db)
    reports = [
        await run_job(
            "communities",
            db=graph_db,
            settings=rem_settings,
            now=NOW + timedelta(minutes=i),
            project="p",
        )
        for i in range(5)
    ]
    runs = await repo.list_runs("p")
    keep = rem_settings.consolidate.keep_runs
    assert len(runs) == keep
    assert reports[0].summary["run_id"] not in {r.id for r in runs}
    assert await repo.list_communities(reports[0].summary["run_id"]) == []


async def test_an_isolated_item_is_reported_as_an_orphan(graph_db, rem_settings):
    await _plant_two_clusters(graph_db)
    await put_lessons(
        graph_db,
        [
            Lesson(
                id="les_lonely",
                project="p",
                title="lonely lesson",
                embedding=vec(5, 99),
                valid_from=at(1),
                recorded_at=at(1),
            )
        ],
    )
    report = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.summary["orphans"] == 1
    assert report.findings == 1


async def test_community_summaries_come_from_the_llm_when_configured(graph_db, rem_settings):
    from tests.openai_stub import chat_completion, run_stub

    await _plant_two_clusters(graph_db)
    with run_stub(
        lambda path, body: (200, chat_completion("These items share one theme."))
    ) as stub:
        s = rem_settings.model_copy(
            update={"llm": rem_settings.llm.model_copy(update={"base_url": stub.base_url})}
        )
        report = await run_job("communities", db=graph_db, settings=s, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    assert report.summary["llm_summaries"] == 2
    assert len(stub.requests) == 2
    repo = CommunityRepository(graph_db)
    summaries = {c.summary for c in await repo.list_communities(report.summary["run_id"])}
    assert summaries == {"These items share one theme."}


async def test_one_run_over_every_project_keeps_each_projects_communities(graph_db, rem_settings):
    planted = {p: await _plant_two_clusters(graph_db, p) for p in ("p", "q")}
    report = await run_job("communities", db=graph_db, settings=rem_settings, now=NOW)
    assert report.status == "succeeded", report.error
    repo = CommunityRepository(graph_db)
    for project, (a, b) in planted.items():
        run = await repo.current_run(project)
        assert run is not None
        assert run.project == project
        communities = await repo.list_communities(run.id)
        assert {frozenset(c.member_ids) for c in communities} == {frozenset(a), frozenset(b)}
        assert {c.project for c in communities} == {project}
