"""The admin report of a REM cycle, in Markdown (for people) and JSON (for tools).

Sections: per-job statistics and durations, deltas (communities new/merged/split), weight changes,
recommendations (open findings), and gaps (reference layers, failed jobs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from consolidate.models import CycleReport
from graph.models import Finding


def recommendation(f: Finding) -> dict[str, Any]:
    """An open finding as the report lists it under recommendations."""
    return {
        "id": f.id,
        "job": f.job,
        "kind": f.kind,
        "title": f.title,
        "action": f.proposed_action,
        "targets": list(f.target_ids),
    }


def report_json(report: CycleReport) -> dict[str, Any]:
    """The report as JSON-able data."""
    data: dict[str, Any] = report.model_dump(mode="json")
    data["duration_ms"] = round(report.duration_ms, 1)
    data["statistics"] = {r.job: r.summary for r in report.reports}
    data["durations_ms"] = {r.job: r.duration_ms for r in report.reports}
    data["deltas"] = {r.job: r.report["deltas"] for r in report.reports if "deltas" in r.report}
    data["weight_changes"] = [c for r in report.reports for c in r.report.get("weight_changes", [])]
    data["gaps"] = [g for r in report.reports for g in r.report.get("gaps", [])]
    data["failures"] = [
        {"job": r.job, "error": r.error, "attempt": r.attempt, "flagged": r.flagged}
        for r in report.reports
        if r.status == "failed"
    ]
    data["recommendations"] = list(report.open_findings)
    return data


def _cell(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def report_markdown(report: CycleReport) -> str:
    """The report as a Markdown document."""
    d = report_json(report)
    lines = [
        f"# REM cycle report: {report.project}",
        "",
        f"- started: {report.started_at.isoformat()}",
        f"- duration: {d['duration_ms']:.0f} ms",
        f"- jobs: {len(report.reports)}; open findings: {len(report.open_findings)}",
        "",
        "## Jobs",
        "",
        "| job | status | attempt | ms | findings | summary |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in report.reports:
        lines.append(
            f"| {r.job} | {r.status} | {r.attempt} | {r.duration_ms:.0f} | {r.findings} "
            f"| {_cell(r.summary or r.reason)} |"
        )
    if d["failures"]:
        lines += ["", "## Failures", ""]
        for f in d["failures"]:
            flag = " (flagged)" if f["flagged"] else ""
            lines.append(f"- **{f['job']}** attempt {f['attempt']}{flag}: {_cell(f['error'])}")
    if d["deltas"]:
        lines += ["", "## Deltas", ""]
        for job, delta in d["deltas"].items():
            lines.append(f"- {job}: {_cell(delta)}")
    if d["weight_changes"]:
        lines += ["", "## Weight changes", "", "| item | before | after |", "| --- | --- | --- |"]
        for c in d["weight_changes"][:30]:
            lines.append(
                f"| {_cell(c.get('title') or c.get('id'))} | {c.get('before', 0):.3f} "
                f"| {c.get('after', 0):.3f} |"
            )
    if d["gaps"]:
        lines += ["", "## Gaps", ""]
        lines += [f"- {_cell(g)}" for g in d["gaps"][:50]]
    lines += ["", "## Recommendations", ""]
    if not report.open_findings:
        lines.append("Nothing to review.")
    for f in report.open_findings[:100]:
        lines.append(f"- [{f['kind']}] {_cell(f['title'])} → **{f['action']}** (`{f['id']}`)")
    return "\n".join(lines) + "\n"


def write_report(report: CycleReport, folder: Path) -> tuple[Path, Path]:
    """Write `rem-<project>-<timestamp>.md` and `.json` into `folder`; returns both paths."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = report.started_at.strftime("%Y%m%dT%H%M%S%fZ")
    slug = "all" if report.project == "*" else report.project
    base = folder / f"rem-{slug}-{stamp}"
    md = base.with_suffix(".md")
    js = base.with_suffix(".json")
    md.write_text(report_markdown(report), encoding="utf-8")
    js.write_text(
        json.dumps(report_json(report), indent=2, sort_keys=True, default=str) + "\n",
        encoding="utf-8",
    )
    return md, js
