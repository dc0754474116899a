"""`remgraph rem ...` and `remgraph worker`: the REM cycle from the command line.

The integrator mounts `rem_app` as `remgraph rem` and `worker` as `remgraph worker`. Commands only
parse options, build settings, open the graph and call `consolidate.runner` / `actions`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.table import Table

from consolidate.actions import apply_recommended, review_finding, undo_run
from consolidate.config import ConsolidateSettings
from consolidate.models import ALL_PROJECTS, CycleReport, JobReport
from consolidate.pack import context_pack
from consolidate.report import recommendation, write_report
from consolidate.report_plot import PlotError, plot_communities
from consolidate.runner import rem_status, run_cycle
from consolidate.worker import install_signal_handlers, run_worker
from graph.connect import graph_session
from graph.db import GraphDB
from graph.models import Finding, FindingStatus, utc_now
from graph.repositories.findings import FindingRepository

rem_app = typer.Typer(
    help="The REM cycle: consolidate the knowledge graph, review findings, report.",
    no_args_is_help=True,
)
console = Console()

ProjectOpt = Annotated[
    str, typer.Option("--project", "-p", help="Project slug, or * for all projects")
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", help="Folder for the Markdown and JSON report (default: data dir)"),
]


def settings() -> ConsolidateSettings:
    """Settings from the environment and `.env`."""
    return ConsolidateSettings()


def _summary(d: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v}" for k, v in d.items() if not k.endswith("_ms"))
    return text if len(text) <= 110 else text[:107] + "..."


def _print_cycle(report: CycleReport) -> None:
    table = Table(title=f"REM cycle ({report.project})")
    for col in ("job", "status", "ms", "findings", "summary"):
        table.add_column(col)
    for r in report.reports:
        colour = {"succeeded": "green", "failed": "red"}.get(r.status, "yellow")
        table.add_row(
            r.job,
            f"[{colour}]{r.status}[/]",
            f"{r.duration_ms:.0f}",
            str(r.findings),
            r.error or _summary(r.summary) or r.reason,
        )
    console.print(table)
    if not report.reports:
        console.print("no job was due (use --all or --job NAME to run anyway)")


def _print_finding(f: Finding) -> None:
    console.print(f"[bold]{f.title}[/] [dim]({f.kind}, {f.job}, {f.id})[/]")
    if f.detail:
        console.print(f"  {f.detail}")
    console.print(f"  targets: {', '.join(f.target_ids)}  proposed: [cyan]{f.proposed_action}[/]")


async def _walk(s: ConsolidateSettings, project: str, auto: bool) -> None:
    async with graph_session(s) as db:
        if auto:
            out = await apply_recommended(db, project, served_days=s.consolidate.served_days)
            console.print(
                f"applied {len(out.applied)} safe actions, left {len(out.left)} for review "
                f"(run {out.run_id}; undo: remgraph rem undo {out.run_id})"
            )
            return
        findings = await FindingRepository(db).list_findings(project, status="open", limit=500)
        for i, f in enumerate(findings, 1):
            console.print(f"\n[{i}/{len(findings)}]")
            _print_finding(f)
            answer = typer.prompt("approve / reject / skip / quit", default="skip")
            if answer.strip().lower() in {"q", "quit"}:
                break
            short = {"a": "approve", "r": "reject", "s": "skip"}
            decision = short.get(answer.strip().lower(), answer)
            updated = await review_finding(db, f.id, decision)
            console.print(f"  → {updated.status}")


async def _run(
    s: ConsolidateSettings, project: str, jobs: list[str] | None, force: bool, out: Path | None
) -> CycleReport:
    async with graph_session(s) as db:
        return await run_cycle(db=db, settings=s, project=project, jobs=jobs, force=force, out=out)


@rem_app.command("run")
def run(
    project: ProjectOpt = ALL_PROJECTS,
    job: Annotated[
        list[str] | None, typer.Option("--job", "-j", help="Run this job (repeatable)")
    ] = None,
    all_jobs: Annotated[bool, typer.Option("--all", help="Run every job, due or not")] = False,
    auto: Annotated[
        bool,
        typer.Option(
            "--auto", help="Apply the recommended actions that are safe by rule; the rest stay open"
        ),
    ] = False,
    review: Annotated[
        bool | None,
        typer.Option(
            "--review/--no-review",
            help="Walk open findings afterwards (default: when stdin is a terminal)",
        ),
    ] = None,
    out: OutOpt = None,
) -> None:
    """Run the due jobs (or --all, or --job NAME), then walk the findings (approve/reject/skip)."""
    s = settings()
    report = asyncio.run(_run(s, project, job or None, all_jobs, out))
    _print_cycle(report)
    if review is None:
        review = sys.stdin.isatty()
    if auto or review:
        asyncio.run(_walk(s, project, auto))
    _exit_if_locked(report)


def _exit_if_locked(report: CycleReport) -> None:
    """Exit 1 with one line when a job did not run because another live run holds its lock."""
    locked = [r.job for r in report.reports if r.status == "skipped"]
    if locked:
        typer.echo(
            f"not run: {', '.join(locked)} (locked by another run that is still going)", err=True
        )
        raise typer.Exit(1)


async def _undo(s: ConsolidateSettings, run_id: str) -> list[str]:
    async with graph_session(s) as db:
        return await undo_run(db, run_id)


@rem_app.command("undo")
def undo(run_id: Annotated[str, typer.Argument(help="A `rem run --auto` or job run id")]) -> None:
    """Undo every action a run applied: items back to their before-image, its edges removed."""
    notes = asyncio.run(_undo(settings(), run_id))
    for n in notes:
        console.print(f"  undone: {n}")
    console.print(f"undid {len(notes)} actions of run {run_id}")


@rem_app.command("job")
def job_cmd(
    name: Annotated[str, typer.Argument(help="Job name (see `remgraph rem status`)")],
    project: ProjectOpt = ALL_PROJECTS,
    out: OutOpt = None,
) -> None:
    """Run one job now, whatever its schedule."""
    report = asyncio.run(_run(settings(), project, [name], False, out))
    _print_cycle(report)
    if any(r.status == "failed" for r in report.reports):
        raise typer.Exit(1)
    _exit_if_locked(report)


async def _status(s: ConsolidateSettings, project: str) -> None:
    async with graph_session(s) as db:
        views = await rem_status(db=db, settings=s, project=project)
    table = Table(title=f"REM jobs ({project})")
    for col in ("job", "schedule", "last run", "status", "due", "why / next"):
        table.add_column(col)
    for v in views:
        last = v.last_run_at.strftime("%Y-%m-%d %H:%M") if v.last_run_at else "never"
        due = "[yellow]flagged[/]" if v.flagged else ("[green]yes[/]" if v.due else "no")
        table.add_row(v.job, v.schedule, last, v.last_status or "-", due, v.reason)
    console.print(table)


@rem_app.command("status")
def status(project: ProjectOpt = ALL_PROJECTS) -> None:
    """Each job's schedule, last run and whether it is due."""
    asyncio.run(_status(settings(), project))


async def _findings(
    s: ConsolidateSettings, project: str, st: FindingStatus | None, job: str | None, as_json: bool
) -> None:
    async with graph_session(s) as db:
        found = await FindingRepository(db).list_findings(project, status=st, job=job, limit=500)
    if as_json:
        console.print_json(json.dumps([f.model_dump(mode="json") for f in found]))
        return
    for f in found:
        _print_finding(f)
    console.print(f"{len(found)} findings")


@rem_app.command("findings")
def findings(
    project: ProjectOpt = ALL_PROJECTS,
    status_: Annotated[
        str | None, typer.Option("--status", help="open, applied, rejected, skipped")
    ] = "open",
    job: Annotated[str | None, typer.Option(help="Only this job's findings")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List findings."""
    st = None if status_ in (None, "all") else cast(FindingStatus, status_)
    asyncio.run(_findings(settings(), project, st, job, as_json))


async def _report(
    s: ConsolidateSettings,
    project: str,
    out: Path | None,
    html: Path | None = None,
    plot: Path | None = None,
) -> tuple[CycleReport, Path]:
    """A report of the latest state: each job's last summary plus open findings; runs nothing.

    With `html`, also the self-contained HTML report with plots (`consolidate/report_html.py`);
    with `plot`, a PNG of the project's communities (`consolidate/report_plot.py`).
    """
    async with graph_session(s) as db:
        views = await rem_status(db=db, settings=s, project=project)
        open_ = await FindingRepository(db).list_findings(project, status="open", limit=200)
        if html is not None:
            from consolidate.report_html import collect, write_html

            write_html(html, await collect(db, project, s))
            console.print(f"wrote {html}")
        if plot is not None:
            drawn = await plot_communities(db, project, plot)
            console.print(f"wrote {plot}: {drawn.items} items in {drawn.communities} communities")
    now = utc_now()
    reports = tuple(
        JobReport(
            job=v.job,
            project=project,
            run_id="",
            status=("failed" if v.last_status == "failed" else "succeeded"),
            attempt=max(1, v.attempts),
            started_at=v.last_run_at or now,
            finished_at=v.last_run_at or now,
            duration_ms=v.last_duration_ms,
            summary=v.last_summary,
            report=v.last_report,
            flagged=v.flagged,
        )
        for v in views
        if v.last_run_at is not None
    )
    report = CycleReport(
        project=project,
        started_at=now,
        finished_at=now,
        reports=reports,
        open_findings=tuple(recommendation(f) for f in open_),
    )
    folder = out or s.consolidate.report_dir or (s.embedded.data_dir / "reports")
    md, js = write_report(report, folder)
    console.print(f"wrote {md} and {js}")
    return report, md


@rem_app.command("report")
def report(
    project: ProjectOpt = ALL_PROJECTS,
    out: OutOpt = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write a self-contained HTML report with plots (topic weights over time, "
            "graduation funnel, community sizes, ingest per day) to this file",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Also draw one project's communities (coloured, sized by weight, heaviest "
            "topics labelled) to this PNG; needs matplotlib (pip install 'remgraph[plot]')",
        ),
    ] = None,
) -> None:
    """Write (and print) the admin report: last results per job, recommendations, gaps."""
    if plot is not None and project == ALL_PROJECTS:
        raise typer.BadParameter("--plot draws one project's communities: pass --project")
    try:
        _, md = asyncio.run(_report(settings(), project, out, html, plot))
    except PlotError as e:
        console.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from e
    console.print(md.read_text(encoding="utf-8"), highlight=False, markup=False)


async def _pack(s: ConsolidateSettings, project: str) -> None:
    async with graph_session(s) as db:
        pack = await context_pack(
            db,
            project,
            budget=s.consolidate.pack_budget,
            target=s.consolidate.pack_target,
            settings=s.consolidate,
        )
    console.print(pack.text, highlight=False, markup=False)
    console.print(f"[dim]{pack.size_bytes} bytes from {len(pack.primer_ids)} primers[/]")


@rem_app.command("pack")
def pack(project: ProjectOpt = ALL_PROJECTS) -> None:
    """Print the context pack: latest monthly + weekly + today's daily primer (≤ 35 KB)."""
    asyncio.run(_pack(settings(), project))


CYCLE_HOOKS: list[Callable[[GraphDB], Awaitable[None]]] = []
"""Awaited at the start of every worker cycle; the composition root adds the embedding backlog's
drain (`consolidate` knows nothing of ingest)."""


async def _worker(s: ConsolidateSettings, once: bool) -> int:
    stop = asyncio.Event()
    install_signal_handlers(stop)
    async with graph_session(s) as db:
        console.print(f"worker started: scopes {', '.join(s.consolidate.projects)}")

        async def before_cycle() -> None:
            for hook in CYCLE_HOOKS:
                await hook(db)

        stats = await run_worker(
            db, s, stop=stop, max_cycles=1 if once else None, before_cycle=before_cycle
        )
    console.print(
        f"worker stopped after {stats.cycles} cycles and {len(stats.runs)} job runs "
        f"at {utc_now().isoformat(timespec='seconds')}"
    )
    return 0


def worker(
    once: Annotated[bool, typer.Option("--once", help="Run one cycle and exit")] = False,
    interval: Annotated[
        float | None, typer.Option(help="Seconds between checks (default from settings)")
    ] = None,
) -> None:
    """Run due REM jobs on their schedules until SIGTERM/SIGINT (graceful shutdown)."""
    s = settings()
    if interval is not None:
        s = s.model_copy(
            update={"consolidate": s.consolidate.model_copy(update={"worker_interval_s": interval})}
        )
    raise typer.Exit(asyncio.run(_worker(s, once)))
