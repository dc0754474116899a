"""How big an MCP `context` answer is against the `token_budget` asked (issue 44).

A real history's first sessions (`--sessions`, default 12 of `minsky`) go through the real
pipeline on a scratch graph with extraction and one REM cycle, as `remgraph eval extraction`
does; then every question of its labels is asked through the same GraphQL document the MCP
`context` tool runs, at each budget, and the answer is sized three ways: the text the tool now
returns (`api.mcp_text.context_text`), the JSON it returned before (pretty-printed), and the
item texts alone. Sizes in tokens are `core.text.estimate_tokens` (characters / 4).

    .venv/bin/python -m bench.bench_mcp_answer [--corpus ../shared/corpora/minsky.jsonl]

Writes `bench/results/mcp_answer.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUDGETS = (200, 600, 1000)


async def _sizes(labels: Path, corpus: Path, sessions: int) -> dict[str, Any]:
    from ai.embed import make_embedder
    from api.mcp import CONTEXT_DOC
    from api.mcp_text import context_text
    from core.text import estimate_tokens
    from core.timeutil import frozen_clock, parse_time
    from remgraph.eval_extraction import _ingest_and_consolidate, _write_slice, load_slice
    from remgraph.eval_isolation import EvalIsolation
    from remgraph.eval_scenarios import eval_settings, served_app

    cfg = eval_settings()
    lab, history, keep = load_slice(labels, corpus, sessions)
    end = parse_time(history.last_timestamp()) + timedelta(minutes=1)
    emb = make_embedder(cfg.embedding)
    rows: list[dict[str, Any]] = []
    async with EvalIsolation.open(cfg, prefix="mcpbench") as iso:
        with tempfile.TemporaryDirectory() as tmp:
            file = Path(tmp) / corpus.name
            _write_slice(corpus, keep, file)
            async with iso.namespace(lab.project, paths=[str(file)]) as ns:
                project = ns.project(lab.project)
                with frozen_clock(end):
                    await _ingest_and_consolidate(ns.db, ns.settings, file, project, emb, end)
                    async with served_app(ns.db, ns.settings, emb, project, "mcp bench", end) as (
                        client,
                        _,
                    ):
                        for q in lab.questions:
                            for budget in BUDGETS:
                                variables = {
                                    "query": q.query,
                                    "project": project,
                                    "tokenBudget": budget,
                                    "limit": 10,
                                    "asOf": None,
                                }
                                payload = await client.call(CONTEXT_DOC, variables, "context")
                                text = context_text(payload, budget)
                                items = " ".join(i["text"] for i in payload.get("items", []))
                                rows.append(
                                    {
                                        "budget": budget,
                                        "text_tokens": estimate_tokens(text),
                                        "json_tokens": estimate_tokens(
                                            json.dumps(payload, indent=2)
                                        ),
                                        "item_text_tokens": estimate_tokens(items),
                                    }
                                )
    per_budget = {}
    for budget in BUDGETS:
        mine = [r for r in rows if r["budget"] == budget]
        per_budget[str(budget)] = {
            "questions": len(mine),
            "text_tokens_median": statistics.median(r["text_tokens"] for r in mine),
            "text_tokens_max": max(r["text_tokens"] for r in mine),
            "text_over_budget": sum(r["text_tokens"] > budget for r in mine),
            "json_tokens_median": statistics.median(r["json_tokens"] for r in mine),
            "json_over_text_median": round(
                statistics.median(r["json_tokens"] / max(1, r["text_tokens"]) for r in mine), 2
            ),
            "item_text_tokens_median": statistics.median(r["item_text_tokens"] for r in mine),
        }
    return {"corpus": corpus.name, "sessions": sessions, "per_budget": per_budget}


def main(argv: list[str] | None = None) -> None:
    """Measure and write the results (see the module)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--labels", type=Path, default=ROOT / "bench/labels/minsky.json")
    p.add_argument("--corpus", type=Path, default=ROOT.parent / "shared/corpora/minsky.jsonl")
    p.add_argument("--sessions", type=int, default=12)
    p.add_argument("--out", type=Path, default=ROOT / "bench/results/mcp_answer.json")
    a = p.parse_args(argv)
    result = asyncio.run(_sizes(a.labels, a.corpus, a.sessions))
    result["machine"] = {"cpus": 2, "memory_gib": 24, "python": platform.python_version()}
    a.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
