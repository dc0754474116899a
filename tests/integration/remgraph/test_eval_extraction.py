"""`remgraph eval extraction` on a small labelled slice of a real history, on each engine.

The first sessions of `minsky` (a real coding-agent history in `../shared/corpora`, labelled by
hand in `bench/labels/minsky.json`) go through ingest with extraction, a REM cycle and
`context`; the figures asserted are the issue's: the labels' quotes all found, distilled rules
matched by meaning and provenance, and no unrelated rule in the top 3 of any question.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.config import Engine
from remgraph.eval_extraction import evaluate_extraction, markdown
from remgraph.extraction_labels import LABEL_KINDS
from remgraph.settings import Settings
from tests.shared_embedder import shared_local_embedder

ROOT = Path(__file__).resolve().parents[3]
LABELS = ROOT / "bench" / "labels" / "minsky.json"
CORPUS = ROOT.parent / "shared" / "corpora" / "minsky.jsonl"
SESSIONS = 8

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.exists(), reason=f"no labelled history at {CORPUS}"),
]


async def test_a_labelled_slice_is_scored_and_no_unrelated_rule_opens_an_answer(
    engine_settings: Settings,
) -> None:
    out = await evaluate_extraction(
        LABELS,
        CORPUS,
        sessions=SESSIONS,
        settings=engine_settings,
        embedder=shared_local_embedder(),
    )
    data = json.loads(json.dumps(out.to_json()))
    assert data["meta"]["engine"] == engine_settings.engine.value
    assert data["meta"]["sessions"] == SESSIONS
    assert data["label_problems"] == []  # every quote is found in its session
    assert set(data["kinds"]) == set(LABEL_KINDS)
    rules = data["kinds"]["rule"]
    assert rules["labelled"] > 0
    # at least one labelled rule distilled with provenance: served, or stored as a candidate
    # that waits to be said again (8 sessions are few for repetition)
    assert rules["matched_labels"] + rules["candidates_matched"] >= 1
    assert rules["candidates_matched"] <= rules["candidates"]
    assert rules["precision"] is None or 0 <= rules["precision"] <= 1
    for k in LABEL_KINDS:
        r = data["kinds"][k]
        assert r["matched_items"] <= r["distilled"]
        assert r["matched_labels"] <= r["labelled"]
    q = data["questions"]
    assert q["total"] >= 1
    assert q["unrelated_rule_top3"] == 0, [d["unrelated_rules_top3"] for d in q["details"]]
    assert data["session_start_rules"]["served"] == len(data["session_start_rules"]["rules"])
    start = data["session_start_rules"]
    assert start["held_back"] == len(start["held_back_rules"])
    assert all(r["why"] for r in start["held_back_rules"])
    # the unanswerable questions are asked too, and are negatives of the AUC
    unknown = q["unanswerable"]
    assert len(unknown) >= 10
    assert all(u["items"] for u in unknown)
    assert q["answerable_auc_negatives"] >= len(unknown)
    assert q["answerable_auc"] is not None
    assert "| rule |" in markdown(out)
    if engine_settings.engine is Engine.NEO4J:
        assert data["meta"]["isolation"]["mode"] != "scratch graph"
