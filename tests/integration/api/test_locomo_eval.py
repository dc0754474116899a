"""The LoCoMo evaluation, reduced to one conversation (the full run is `make eval`)."""

from __future__ import annotations

import pytest

from remgraph.eval import EvalSettings, evaluate_locomo, write_results
from remgraph.eval_isolation import EvalIsolation
from tests.shared_embedder import shared_local_embedder


@pytest.mark.slow
async def test_locomo_one_conversation(graph_db, graph_settings, shared_dir, tmp_path):
    path = shared_dir / "benchmarks" / "locomo" / "locomo-dev.json"
    settings = EvalSettings(
        engine=graph_settings.engine,
        graph_name=graph_settings.graph_name,
        falkordb=graph_settings.falkordb,
        embedded=graph_settings.embedded,
    )
    out = await evaluate_locomo(
        await EvalIsolation.sharing(graph_db, settings, alone=True, run="t"),
        path,
        conversations=1,
        embedder=shared_local_embedder(),
        show_progress=False,
    )
    ours = out.reports["remgraph"]["categories"]["all"]
    bm25 = out.reports["bm25"]["categories"]["all"]
    vec = out.reports["vector"]["categories"]["all"]
    assert out.meta["conversations"] == 1
    assert ours["n"] == bm25["n"] == vec["n"] > 100
    # The ranking must beat both plain retrievers it is built from, by a margin.
    assert ours["hit@5"] >= bm25["hit@5"] + 0.05
    assert ours["hit@5"] >= vec["hit@5"] + 0.10
    assert ours["hit@5"] >= 0.65
    for k in (1, 5, 10, 25):
        assert 0.0 <= ours[f"all@{k}"] <= ours[f"hit@{k}"] <= 1.0
    json_path, md_path = write_results(out, tmp_path)
    assert "| remgraph | all |" in md_path.read_text()
    assert json_path.stat().st_size > 0
