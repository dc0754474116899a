import math
from typing import Any

import pytest

from consolidate.actions import undo_run
from consolidate.runner import run_job
from core.timeutil import OPEN, to_ms
from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Correction, Lesson
from graph.repositories.findings import FindingRepository
from graph.repositories.rem import RemRepository
from tests.integration.consolidate.seed import NOW, at, put_corrections, put_lessons, vec


def _lesson(id: str, title: str, v: tuple[float, ...], days: float = 10, **kw: Any) -> Lesson:
    return Lesson(
        id=id,
        project="p",
        title=title,
        embedding=v,
        valid_from=at(days),
        recorded_at=at(days),
        **kw,
    )


async def test_a_planted_duplicate_pair_merges_with_history_kept(graph_db, rem_settings):
    older = _lesson(
        "les_old",
        "always run migrations before tests",
        vec(3, 1),
        days=20,
        keywords=("migrations",),
        source_turn_ids=("t1",),
        usage_count=2,
    )
    newer = _lesson(
        "les_new",
        "Always run migrations before tests!",
        vec(3, 2),
        days=5,
        keywords=("tests",),
        source_turn_ids=("t2",),
        usage_count=3,
    )
    other = _lesson("les_other", "cache embeddings by content hash", vec(7, 3))
    # Cosine ≥ 0.90 to the pair, but a different statement: a finding, never a merge.
    para = _lesson("les_para", "run the migrations before the test suite", vec(3, 3), days=2)
    await put_lessons(graph_db, [older, newer, other, para])

    report = await run_job("duplicates", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    assert report.summary["merged_lessons"] == 1
    assert report.summary["review"] == 2  # les_para against each of the pair

    live = {r.lesson.id: r.lesson for r in await RemRepository(graph_db).lessons("p", to_ms(NOW))}
    assert set(live) == {"les_old", "les_other", "les_para"}  # the duplicate retired, not deleted
    kept = live["les_old"]
    assert kept.keywords == ("migrations", "tests")
    assert kept.source_turn_ids == ("t1", "t2")
    assert kept.usage_count == 5
    assert kept.version == 2
    versions = await graph_db.read(Q("lesson.versions"), lesson_id="les_old")
    assert [v["props"]["version"] for v in versions] == [1]
    dup_versions = await graph_db.read(Q("lesson.versions"), lesson_id="les_new")
    assert dup_versions[0]["props"]["title"] == "Always run migrations before tests!"
    # the duplicate is still in the graph, retired in record time (its valid time untouched)
    (closed,) = await graph_db.read(Q("lesson.get_many"), ids=["les_new"])
    assert closed["props"]["expired_at"] == to_ms(NOW)
    assert closed["props"]["valid_to"] == OPEN
    assert closed["props"]["title"] == "Always run migrations before tests!"

    again = await run_job("duplicates", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert again.summary["merged_lessons"] == 0

    # The job's merge is journalled under its run id, and undoing the run restores both.
    notes = await undo_run(graph_db, report.run_id, now=NOW)
    assert notes == ["merged les_new into les_old"]
    back = {r.lesson.id: r.lesson for r in await RemRepository(graph_db).lessons("p", to_ms(NOW))}
    assert set(back) == {"les_old", "les_new", "les_other", "les_para"}
    assert back["les_old"].keywords == ("migrations",)
    assert back["les_old"].usage_count == 2
    assert back["les_old"].version == older.version
    assert await undo_run(graph_db, report.run_id, now=NOW) == []  # nothing left to undo


async def test_close_pairs_become_review_findings_and_corrections_sum_reinforcement(
    graph_db, rem_settings
):
    base = vec(4, 1)
    # cosine ≈ 0.85: rotate a little towards another axis
    mixed = [0.0] * 384
    mixed[4], mixed[9] = 0.85, math.sqrt(1 - 0.85**2)
    await put_lessons(
        graph_db,
        [
            _lesson("les_a", "prefer uv", base),
            _lesson("les_b", "prefer uv for installs", tuple(mixed)),
        ],
    )
    await put_corrections(
        graph_db,
        [
            Correction(
                id="cor_1",
                project="p",
                rule_text="use tabs",
                reinforcement=2,
                sessions=("s1", "s2"),
                embedding=vec(6, 1),
                valid_from=at(9),
                recorded_at=at(9),
            ),
            Correction(
                id="cor_2",
                project="p",
                rule_text="Use tabs.",
                reinforcement=1,
                sessions=("s3",),
                embedding=vec(6, 2),
                valid_from=at(2),
                recorded_at=at(2),
            ),
        ],
    )
    report = await run_job("duplicates", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.summary["review"] == 1
    assert report.summary["merged_corrections"] == 1
    findings = await FindingRepository(graph_db).list_findings("p", status="open")
    assert [(f.kind, f.proposed_action, set(f.target_ids)) for f in findings] == [
        ("duplicate_lesson", "merge", {"les_a", "les_b"})
    ]
    live = {
        r.correction.id: r.correction
        for r in await RemRepository(graph_db).corrections("p", to_ms(NOW))
    }
    assert set(live) == {"cor_1"}
    assert live["cor_1"].reinforcement == 3
    assert live["cor_1"].sessions == ("s1", "s2", "s3")


async def test_a_stale_item_is_found_and_corrections_decay(graph_db, rem_settings):
    await put_lessons(
        graph_db,
        [
            _lesson("les_stale", "old unused trick", vec(1, 1), days=45),
            _lesson("les_fresh", "new trick", vec(2, 1), days=3),
            _lesson("les_busy", "heavily used lesson", vec(5, 1), days=400, usage_count=50),
        ],
    )
    await put_corrections(
        graph_db,
        [
            Correction(
                id="cor_old",
                project="p",
                rule_text="use black",
                confidence=0.8,
                half_life_days=30,
                last_seen=at(30),
                valid_from=at(30),
                recorded_at=at(30),
                usage_count=1,
            ),
            Correction(
                id="cor_new",
                project="p",
                rule_text="use ruff",
                confidence=0.8,
                half_life_days=30,
                last_seen=at(0),
                valid_from=at(0),
                recorded_at=at(0),
            ),
        ],
    )
    report = await run_job("staleness", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.status == "succeeded", report.error
    findings = {
        (f.kind, f.target_ids) for f in await FindingRepository(graph_db).list_findings("p")
    }
    assert ("stale", ("les_stale",)) in findings
    assert ("needs_refinement", ("les_busy",)) in findings
    assert not any("les_fresh" in t for _, t in findings)
    props = await _correction_props(graph_db, ["cor_old", "cor_new"])
    assert props["cor_old"]["decayed_confidence"] == pytest.approx(0.4, rel=1e-3)
    assert props["cor_new"]["decayed_confidence"] == pytest.approx(0.8, rel=1e-3)
    assert props["cor_old"]["effective_weight"] == pytest.approx(0.8 * math.exp(-1), rel=1e-3)
    # recomputed from the stored base: a second run does not compound the decay
    await run_job("staleness", db=graph_db, settings=rem_settings, now=NOW, project="p")
    props = await _correction_props(graph_db, ["cor_old"])
    assert props["cor_old"]["decayed_confidence"] == pytest.approx(0.4, rel=1e-3)


async def _correction_props(db: GraphDB, ids: list[str]) -> dict[str, dict[str, Any]]:
    rows = await db.read(Q("rem.corrections_for_review"), project="p", now=to_ms(NOW))
    return {r["node"]["id"]: r["node"] for r in rows if r["node"]["id"] in ids}


async def test_a_correction_graduates_and_contradiction_demotes(graph_db, rem_settings):
    five = tuple(f"s{i}" for i in range(5))
    await put_corrections(
        graph_db,
        [
            Correction(
                id="cor_rule",
                project="p",
                rule_text="use pnpm",
                sessions=five,
                reinforcement=5,
                last_seen=at(1),
                valid_from=at(20),
                recorded_at=at(20),
            ),
            Correction(
                id="cor_pat",
                project="p",
                rule_text="short commits",
                sessions=("a", "b"),
                reinforcement=2,
                last_seen=at(1),
                valid_from=at(20),
                recorded_at=at(20),
            ),
            Correction(
                id="cor_once",
                project="p",
                rule_text="one-off",
                sessions=("a",),
                last_seen=at(1),
                valid_from=at(20),
                recorded_at=at(20),
            ),
        ],
    )
    report = await run_job("graduation", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.summary["promoted"] == 2
    status = {
        k: v["status"]
        for k, v in (await _correction_props(graph_db, ["cor_rule", "cor_pat", "cor_once"])).items()
    }
    assert status == {"cor_rule": "rule", "cor_pat": "pattern", "cor_once": "correction"}

    # a newer correction contradicts the rule: it is demoted once, with a finding
    await put_corrections(
        graph_db,
        [
            Correction(
                id="cor_yarn",
                project="p",
                rule_text="use yarn",
                sessions=("s9",),
                last_seen=at(0),
                valid_from=at(0),
                recorded_at=at(0),
            )
        ],
    )
    await graph_db.write(
        Q("correction.link_contradicts"),
        rows=[{"source_id": "cor_yarn", "target_id": "cor_rule", "weight": 1.0}],
        now=to_ms(NOW),
    )
    report = await run_job("graduation", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert report.summary["demoted"] == 1
    again = await run_job("graduation", db=graph_db, settings=rem_settings, now=NOW, project="p")
    assert again.summary["demoted"] == 0
    assert again.summary["promoted"] == 0
    props = await _correction_props(graph_db, ["cor_rule"])
    assert props["cor_rule"]["status"] == "preference"
    kinds = {f.kind for f in await FindingRepository(graph_db).list_findings("p")}
    assert "contradicted" in kinds


async def test_reworded_lessons_embedded_by_the_real_model_wait_for_review(graph_db, rem_settings):
    from tests.shared_embedder import shared_local_embedder

    texts = {
        "les_first": "Always run the database migrations before running the test suite.",
        "les_again": "Run the database migrations before the test suite, always.",
        "les_other": "Cache embeddings by content hash to avoid recomputing them.",
    }
    vectors = await shared_local_embedder().embed(list(texts.values()))
    lessons = [
        _lesson(i, t, tuple(float(x) for x in v), days=20 - n)
        for n, ((i, t), v) in enumerate(zip(texts.items(), vectors, strict=True))
    ]
    await put_lessons(graph_db, lessons)
    report = await run_job("duplicates", db=graph_db, settings=rem_settings, now=NOW, project="p")
    # Cosine ≥ 0.90 is not enough: a rewording waits for a reviewer (issue 14), both stay live.
    assert report.summary["merged_lessons"] == 0
    assert report.summary["review"] == 1
    live = {r.lesson.id for r in await RemRepository(graph_db).lessons("p", to_ms(NOW))}
    assert live == {"les_first", "les_again", "les_other"}
