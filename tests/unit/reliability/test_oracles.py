"""The judges of the reliability scenarios must be able to say no: the fuzz oracle flags 5xx,
masked errors and cross-project data; the graph comparison flags any drift; the plot draws."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.crash import Snapshot, compare
from tests.support.fuzz import check_response, leaks

ROOT = Path(__file__).resolve().parents[3]
BETA = frozenset({"ses_beta", "trn_beta_0"})


def test_fuzz_oracle_accepts_clean_answers():
    ok = json.dumps(
        {
            "data": {
                "turn": {
                    "__typename": "NotFound",
                    "id": "trn_beta_0",
                    "message": "turn 'trn_beta_0' not found",
                }
            }
        }
    )
    assert check_response(200, ok, BETA) is None
    assert check_response(401, json.dumps({"detail": "missing API key"}), BETA) is None
    assert check_response(400, "not json at all", BETA) is None


def test_fuzz_oracle_rejects_server_errors_masked_errors_and_leaks():
    assert check_response(500, "Internal Server Error", BETA).startswith("HTTP 500")
    assert check_response(599, "ValueError: boom", BETA).startswith("HTTP 599")
    masked = json.dumps({"data": None, "errors": [{"message": "internal error (request id x)"}]})
    assert "unexpected error" in check_response(200, masked, BETA)
    assert "message" in check_response(200, json.dumps({"errors": [{"message": " "}]}), BETA)
    leak = json.dumps({"data": {"turn": {"__typename": "Turn", "id": "trn_beta_0"}}})
    assert "leaked" in check_response(200, leak, BETA)
    text = json.dumps({"data": {"context": {"items": [{"text": "the code is tangerine"}]}}})
    assert "beta text leaked" in check_response(200, text, BETA)


def test_leak_walker_finds_nested_items_and_project_fields():
    data = {
        "search": {"edges": [{"node": {"turn": {"id": "x", "project": "beta"}}}]},
        "session": {"__typename": "NotFound", "id": "ses_beta"},
    }
    assert leaks(data, BETA) == ["data.search.edges[0].node.turn"]


def _snap(**digests: str) -> Snapshot:
    return Snapshot(
        labels={"Turn": len(digests)},
        digests=dict(digests),
        embeddings={k: [0.1, 0.2] for k in digests},
        edge_types={"NEXT": 1},
    )


def test_graph_comparison_flags_missing_changed_and_drifting_embeddings():
    clean = _snap(a="1", b="2")
    assert compare(clean, _snap(a="1", b="2"))["equal"]
    missing = compare(
        clean,
        Snapshot(
            labels={"Turn": 2},
            digests={"a": "1"},
            embeddings={"a": [0.1, 0.2]},
            edge_types={"NEXT": 1},
        ),
    )
    assert (missing["equal"], missing["missing"]) == (False, 1)
    changed = compare(clean, _snap(a="1", b="3"))
    assert (changed["equal"], changed["changed"]) == (False, 1)
    drift = _snap(a="1", b="2")
    drift.embeddings["b"] = [0.1, 0.3]
    assert not compare(clean, drift)["equal"]


def test_plot_writes_a_png(tmp_path: Path):
    rows = [
        {
            "turns": n,
            "turn_embeddings": "model",
            "ingest": {"seconds": n / 10},
            "context": {"latency_ms": {"p95": 50.0}},
            "api_rss_mib": 600.0,
            "engine_rss_mib": n / 100,
            "data_dir_bytes": n * 5000,
            "consolidation": {"seconds": 3.0},
        }
        for n in (10_000, 50_000)
    ]
    data = tmp_path / "scale.json"
    data.write_text(json.dumps({"sizes": rows, "machine": {"cpus": 2}}))
    out = tmp_path / "scale.png"
    # bench/ is run, never imported, by the tests
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "plot_scale.py"),
            "--input",
            str(data),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 10_000
