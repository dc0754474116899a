"""`remgraph rem report --html FILE` on a graph built by the real pipeline (the bundled samples,
extraction, a full REM cycle), opened in headless Chromium: every plot renders."""

from __future__ import annotations

import asyncio
import os
from datetime import timedelta
from pathlib import Path

from typer.testing import CliRunner

from consolidate.report_html import STAGES
from consolidate.runner import run_job
from graph.models import Correction, utc_now
from graph.repositories.corrections import CorrectionRepository
from remgraph.cli import app
from tests.browser import chromium_page, require_chromium
from tests.engines import set_engine_env
from tests.support.samples import ingest_samples

ROOT = Path(__file__).resolve().parents[3]


async def _build(db, graph_settings) -> None:
    settings, _ = await ingest_samples(db, graph_settings)
    now = utc_now()
    await CorrectionRepository(db).upsert_many(
        [
            Correction(
                id=f"cor_report_{status}",
                project="webapp",
                status=status,
                rule_text=f"a {status}",
                valid_from=now - timedelta(days=1),
                recorded_at=now - timedelta(days=1),
            )
            for status in ("pattern", "preference", "rule")
        ]
    )
    for job in ("topic_weights", "graduation", "communities"):
        rep = await run_job(job, db=db, settings=settings, project="*")
        assert rep.status == "succeeded", rep


async def test_html_report_renders_every_plot(graph_db, graph_settings, tmp_path, monkeypatch):
    require_chromium()
    await _build(graph_db, graph_settings)
    for k in [k for k in os.environ if k.startswith("REMGRAPH_")]:
        monkeypatch.delenv(k)
    set_engine_env(monkeypatch, graph_settings)
    out = tmp_path / "report" / "rem.html"
    args = ["rem", "report", "--html", str(out), "--out", str(tmp_path / "md")]
    result = await asyncio.to_thread(CliRunner().invoke, app, args)  # the CLI runs its own loop
    assert result.exit_code == 0, result.output
    page_html = out.read_text()
    assert "No data yet" not in page_html

    async with chromium_page() as page:
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: problems.append(r.url) if r.url != out.as_uri() else None)
        await page.goto(out.as_uri())
        charts = {}
        for name in ("topic-weights", "graduation", "communities", "ingest"):
            svg = page.locator(f'svg[data-chart="{name}"]')
            box = await svg.bounding_box()
            assert box is not None, name
            assert box["width"] > 300, (name, box)
            assert box["height"] > 100, (name, box)
            charts[name] = svg
        assert await charts["topic-weights"].locator(".series").count() >= 1
        assert await charts["graduation"].locator("rect.bar").count() == len(STAGES)
        assert await charts["communities"].locator("rect.bar").count() >= 1
        assert await charts["ingest"].locator("rect.bar").count() >= 1
        funnel = await charts["graduation"].locator("text.value").all_text_contents()
        assert [int(v) for v in funnel] == sorted((int(v) for v in funnel), reverse=True)
        assert int(funnel[-1]) >= 1  # the seeded rule
        await page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        assert not problems, problems
