"""Faults on the real embedded engine: SIGKILL of the engine during ingest, the engine going away
under the API, SIGKILL of a worker mid-consolidation. Each test runs its own engine in its own
temporary data directory (the session's shared engine is never killed)."""

from __future__ import annotations

from pathlib import Path

from dirty_equals import IsStr

from tests.shared_embedder import shared_local_embedder
from tests.support.api import engine_down_api
from tests.support.crash import engine_kill_during_ingest, worker_kill_mid_consolidation


async def test_engine_sigkill_during_ingest_then_rerun_equals_a_clean_run(tmp_path: Path):
    out = await engine_kill_during_ingest(
        tmp_path,
        sessions=8,
        turns_per_session=40,
        kill_at=(0.3,),
        embedder=shared_local_embedder(),
    )
    assert out["all_equal"]
    assert out["data_lost"] == 0
    [r] = out["trials"]
    total = 8 * 40
    # the kill really happened while the ingest ran and took it down with it: mid-write, or
    # mid-drain (turns are written at writer speed, then embedded and extracted), by timing
    assert 0 < r["turns_when_killed"] <= total
    assert r["ingest_exit_code"] != 0
    assert "GraphUnavailableError" in r["ingest_error"]
    # acknowledged writes survived the SIGKILL (AOF replay on restart)
    assert r["turns_after_restart"] >= r["turns_when_killed"]
    assert r["rerun"]["turns_new"] + r["rerun"]["turns_unchanged"] == total
    cmp = r["comparison"]
    assert cmp["equal"], cmp
    assert cmp["labels_other"]["Turn"] == total
    assert (
        cmp["edges_other"]
        == cmp["edges_clean"]
        == {"HAS_SESSION": 8, "HAS_TURN": total, "NEXT": total - 8}
    )
    assert cmp["embeddings_compared"] == total
    assert r["idempotent_rerun_equal"]
    assert r["second_rerun"]["turns_new"] == 0
    assert r["data_lost"] == 0


async def test_api_answers_503_and_a_clear_error_while_the_engine_is_down_then_recovers(
    tmp_path: Path,
):
    r = await engine_down_api(tmp_path, embedder=shared_local_embedder())
    assert r["ready_before"] == 200
    assert r["context_before"] == {
        "status": 200,
        "typename": "ContextPayload",
        "top": ["trn_alpha_0"],
    }
    assert r["ready_down"]["status"] == 503
    assert r["ready_down"]["body"] == {"status": "unavailable", "reason": IsStr(regex=".+")}
    assert r["ready_down_bare"] == {"status": 503, "body": {"status": "unavailable"}}
    # a resolver that meets the outage: a GraphQL error that says what happened, not a 500
    assert r["graphql_down"] == {
        "status": 200,
        "code": "UNAVAILABLE",
        "error": "graph engine unavailable, retry shortly",
    }
    # a key that has to be looked up: a retryable 503, not a 500
    assert r["graphql_down_new_key"]["status"] == 503
    assert r["graphql_down_new_key"]["error"] == "graph engine unavailable, retry shortly"
    # the same app recovers by itself once the engine is back on the same socket
    assert r["ready_after"] == 200
    assert r["context_after"] == r["context_before"]


async def test_worker_sigkill_mid_consolidation_keeps_the_previous_run_current(tmp_path: Path):
    out = await worker_kill_mid_consolidation(tmp_path, per_cluster=200, lock_ttl_s=2.0)
    assert out["first_run"]["status"] == "succeeded"
    assert out["first_run"]["communities"] >= 6
    assert out["all_survived"]
    [r] = out["trials"]
    assert r["worker_exit_code"] == -9
    assert r["killed_at"] in ("job started", "new run written, not promoted")
    assert r["current_unchanged"]
    assert r["communities_unchanged"]
    # the dead worker's lock is taken over at once; the next run completes
    assert r["lock_taken_over"]
    assert r["next_run"]["status"] == "succeeded"
    assert r["next_run"]["is_current"]
    assert r["next_run"]["communities"] == out["first_run"]["communities"]
