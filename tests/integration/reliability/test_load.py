"""16 GraphQL clients against a real uvicorn on 127.0.0.1 while an ingest subprocess writes into
the same graph (a bounded run of `bench/bench_load.py`): zero errors. Latency goes to the bench."""

from __future__ import annotations

from pathlib import Path

from tests.shared_embedder import shared_local_embedder
from tests.support.load import load


async def test_sixteen_clients_during_an_ingest_get_no_errors(tmp_path: Path):
    r = await load(tmp_path, clients=16, duration_s=15.0, embedder=shared_local_embedder())
    assert r["errors"] == 0, r["error_examples"]
    assert r["requests"] >= 16
    assert r["status_codes"] == {"200": r["requests"]}
    # the ingest really ran during the window (on a slow machine a batch may not land in 15 s)
    assert r["turns_ingested_during_window"] > 0 or r["ingest_ran_whole_window"]
