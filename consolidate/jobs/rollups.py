"""rollups: daily primers per session-day, ISO-weekly and monthly primers, within size budgets.

Idempotent: primer ids are deterministic (project, period, key) and a primer is only rewritten
when its sources changed, so a second run writes nothing. Rolled-up sources are archived (closed)
once their period is complete: dailies when their ISO week has ended, weeklies when their month has
ended. Nothing is deleted.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from consolidate.models import JobContext, JobResult
from consolidate.rollup import (
    SourceItem,
    day_key,
    item_from_row,
    month_key,
    render,
    week_end,
    week_key,
)
from consolidate.text import utf8_len
from core.ids import make_id
from graph.models import Primer, PrimerPeriod
from graph.repositories.primers import PrimerRepository


def _same(old: Primer | None, new: Primer) -> bool:
    return old is not None and old.text == new.text and old.source_ids == new.source_ids


async def run(ctx: JobContext) -> JobResult:
    """Build or refresh every daily, weekly and monthly primer of the project."""
    cfg = ctx.settings.consolidate
    repo = PrimerRepository(ctx.db)
    rows = await repo.sources(ctx.project_filter, 0, ctx.now_ms + 1, ctx.now_ms)
    items = [item_from_row(r) for r in rows]
    by_day: dict[str, list[SourceItem]] = defaultdict(list)
    for it in items:
        by_day[day_key(it.day)].append(it)
    existing: dict[PrimerPeriod, dict[str, Primer]] = {}
    for period in ("daily", "weekly", "monthly"):
        existing[period] = {
            p.id: p for p in await repo.list_primers(ctx.project, period, ctx.now_ms)
        }
    today = ctx.now.date()
    written: list[Primer] = []
    flagged: list[str] = []
    counts = {"daily": 0, "weekly": 0, "monthly": 0}

    def build(
        period: PrimerPeriod,
        key: str,
        heading: str,
        its: list[SourceItem],
        sources: list[str],
        start: datetime,
        budget: int,
    ) -> Primer:
        text, cut = render(heading, its, budget)
        p = Primer(
            id=make_id("primer", ctx.project, period, key),
            project=ctx.project,
            period=period,
            period_key=key,
            text=text,
            size_bytes=utf8_len(text),
            source_ids=tuple(sorted(sources)),
            flagged=cut,
            valid_from=start,
            recorded_at=ctx.now,
        )
        counts[period] += 1
        if cut:
            flagged.append(p.id)
        if not _same(existing[period].get(p.id), p):
            written.append(p)
        return p

    dailies: dict[str, Primer] = {}
    for key in sorted(by_day):
        d = by_day[key][0].day
        start = datetime(d.year, d.month, d.day, tzinfo=UTC)
        dailies[key] = build(
            "daily",
            key,
            f"Daily primer {key}",
            by_day[key],
            [i.id for i in by_day[key]],
            start,
            cfg.daily_budget,
        )
    weeks: dict[str, list[str]] = defaultdict(list)
    months: dict[str, list[str]] = defaultdict(list)
    for key in dailies:
        d = by_day[key][0].day
        weeks[week_key(d)].append(key)
        months[month_key(d)].append(key)
    weeklies: dict[str, Primer] = {}
    for wk, days in sorted(weeks.items()):
        first = by_day[days[0]][0].day
        its = [i for dk in days for i in by_day[dk]]
        start = datetime(first.year, first.month, first.day, tzinfo=UTC)
        weeklies[wk] = build(
            "weekly",
            wk,
            f"Weekly primer {wk}",
            its,
            [dailies[dk].id for dk in days],
            start,
            cfg.weekly_budget,
        )
    for mk, days in sorted(months.items()):
        first = by_day[days[0]][0].day
        its = [i for dk in days for i in by_day[dk]]
        wks = sorted({week_key(by_day[dk][0].day) for dk in days})
        build(
            "monthly",
            mk,
            f"Monthly primer {mk}",
            its,
            [weeklies[w].id for w in wks],
            datetime(first.year, first.month, 1, tzinfo=UTC),
            cfg.monthly_budget,
        )
    await repo.upsert_many(written)

    this_week_start = today.toordinal() - today.isoweekday() + 1
    month_start = today.replace(day=1)
    done_days = [
        p.id for k, p in dailies.items() if week_end(by_day[k][0].day).toordinal() < this_week_start
    ]
    done_weeks = [
        p.id
        for wk, p in weeklies.items()
        if max(by_day[dk][0].day for dk in weeks[wk]) < month_start
        and week_end(by_day[weeks[wk][0]][0].day) < month_start
    ]
    archived = await repo.archive(done_days + done_weeks, ctx.now_ms)
    return JobResult(
        summary={
            "sources": len(items),
            **counts,
            "written": len(written),
            "archived": len(archived),
            "flagged": len(flagged),
        },
        report={"gaps": [f"primer {i} was cut to its budget" for i in flagged[:20]]},
    )
