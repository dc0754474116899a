"""The admin report of a REM cycle, in Markdown (for people) and JSON (for tools).

Sections: per-job statistics and durations, deltas (communities new/merged/split), weight changes,
recommendations (open findings: the item, the reason, the action), gaps (reference layers, primers,
failed jobs), and what changed since the previous report of the same project in the same folder
(counters per job, findings opened and closed, gaps added and gone).
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
        "reason": f.detail,
        "action": f.proposed_action,
        "targets": list(f.target_ids),
    }


def _numbers(summary: dict[str, Any]) -> dict[str, float]:
    return {
        k: v for k, v in summary.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }


def _moved(current: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    counters: dict[str, dict[str, list[float]]] = {}
    before_stats = previous.get("statistics") or {}
    for job, summary in (current.get("statistics") or {}).items():
        old = _numbers(before_stats.get(job) or {})
        moved = {k: [old.get(k, 0), v] for k, v in _numbers(summary).items() if old.get(k, 0) != v}
        if moved:
            counters[job] = moved
    return counters


def compare(current: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """What changed between two reports' JSON: counters per job, findings, gaps."""
    counters = _moved(current, previous)
    now_f = {f["id"]: f for f in current.get("recommendations") or []}
    old_f = {f["id"]: f for f in previous.get("recommendations") or []}
    now_g, old_g = set(current.get("gaps") or []), set(previous.get("gaps") or [])
    return {
        "previous_started_at": previous.get("started_at"),
        "counters": counters,
        "findings_opened": [now_f[i] for i in sorted(now_f.keys() - old_f.keys())],
        "findings_closed": [old_f[i] for i in sorted(old_f.keys() - now_f.keys())],
        "gaps_added": sorted(now_g - old_g),
        "gaps_gone": sorted(old_g - now_g),
    }


def report_json(report: CycleReport, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report as JSON-able data; `previous` (an earlier report's JSON) adds `since_previous`."""
    data: dict[str, Any] = report.model_dump(mode="json")
    # a report of stored state (`rem report`) runs nothing: its time is that of the jobs' last runs
    data["duration_ms"] = round(report.duration_ms or sum(r.duration_ms for r in report.reports), 1)
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
    if previous is not None:
        data["since_previous"] = compare(data, previous)
    return data


def _cell(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 120 else text[:117] + "..."


def _changes(d: dict[str, Any]) -> list[str]:
    """Failures, deltas and weight changes."""
    lines: list[str] = []
    if d["failures"]:
        lines += ["", "## Failures", ""]
        for f in d["failures"]:
            flag = " (flagged)" if f["flagged"] else ""
            lines.append(f"- **{f['job']}** attempt {f['attempt']}{flag}: {_cell(f['error'])}")
    if d["deltas"]:
        lines += ["", "## Deltas", ""]
        lines += [f"- {job}: {_cell(delta)}" for job, delta in d["deltas"].items()]
    if d["weight_changes"]:
        lines += ["", "## Weight changes", "", "| item | before | after |", "| --- | --- | --- |"]
        for c in d["weight_changes"][:30]:
            lines.append(
                f"| {_cell(c.get('title') or c.get('id'))} | {c.get('before', 0):.3f} "
                f"| {c.get('after', 0):.3f} |"
            )
    return lines


def _since(s: dict[str, Any]) -> list[str]:
    lines = ["", f"## Since the previous report ({s['previous_started_at']})", ""]
    for job, moved in s["counters"].items():
        parts = [f"{k} {a:g} → {b:g}" for k, (a, b) in sorted(moved.items())]
        lines.append(f"- {job}: {_cell(', '.join(parts))}")
    for key, label in (("findings_opened", "opened"), ("findings_closed", "closed")):
        if s[key]:
            lines.append(f"- findings {label} ({len(s[key])}):")
            lines += [f"  - [{f['kind']}] {_cell(f['title'])}" for f in s[key][:20]]
    for key, label in (("gaps_added", "new gaps"), ("gaps_gone", "gaps closed")):
        if s[key]:
            lines.append(f"- {label} ({len(s[key])}): {_cell('; '.join(s[key][:5]))}")
    if len(lines) == 3:
        lines.append("Nothing changed.")
    return lines


def report_markdown(report: CycleReport, previous: dict[str, Any] | None = None) -> str:
    """The report as a Markdown document."""
    d = report_json(report, previous)
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
    lines += _changes(d)
    if d["gaps"]:
        lines += ["", "## Gaps", ""]
        lines += [f"- {_cell(g)}" for g in d["gaps"][:50]]
    if "since_previous" in d:
        lines += _since(d["since_previous"])
    lines += ["", "## Recommendations", ""]
    if not report.open_findings:
        lines.append("Nothing to review.")
    for f in report.open_findings[:100]:
        reason = f" — {_cell(f['reason'])}" if f.get("reason") else ""
        lines.append(f"- **{f['action']}**: {_cell(f['title'])}{reason} (`{f['id']}`)")
    return "\n".join(lines) + "\n"


def previous_report(folder: Path, project: str) -> dict[str, Any] | None:
    """The newest report JSON of `project` in `folder`, if any (the baseline of deltas)."""
    slug = "all" if project == "*" else project
    for path in sorted(folder.glob(f"rem-{slug}-*.json"), reverse=True):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged or half-written report is no baseline
        if isinstance(data, dict):
            return data
    return None


def write_report(report: CycleReport, folder: Path) -> tuple[Path, Path]:
    """Write `rem-<project>-<timestamp>.md` and `.json` into `folder`; returns both paths."""
    folder.mkdir(parents=True, exist_ok=True)
    previous = previous_report(folder, report.project)
    stamp = report.started_at.strftime("%Y%m%dT%H%M%S%fZ")
    slug = "all" if report.project == "*" else report.project
    base = folder / f"rem-{slug}-{stamp}"
    md = base.with_suffix(".md")
    js = base.with_suffix(".json")
    md.write_text(report_markdown(report, previous), encoding="utf-8")
    js.write_text(
        json.dumps(report_json(report, previous), indent=2, sort_keys=True, default=str) + "\n",
        encoding="utf-8",
    )
    return md, js
