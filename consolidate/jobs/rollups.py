"""rollups: daily primers per session-day, ISO-weekly and monthly primers, within size budgets.

Idempotent: primer ids are deterministic (project, period, key) and a primer is only rewritten
when its sources changed, so a second run writes nothing. Rolled-up sources are archived (closed)
once their period is complete: dailies when their ISO week has ended, weeklies when their month has
ended. Nothing is deleted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from consolidate.models import JobContext, JobResult
from consolidate.rollup import SourceItem, day_key, month_key, render, week_end, week_key
from consolidate.text import utf8_len
from core.ids import make_id
from graph.models import Primer, PrimerPeriod
from graph.repositories.primers import PrimerRepository

PERIODS: tuple[PrimerPeriod, ...] = ("daily", "weekly", "monthly")


def _same(old: Primer | None, new: Primer) -> bool:
    return old is not None and old.text == new.text and old.source_ids == new.source_ids


def _midnight(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


@dataclass
class PrimerBuilder:
    """Renders primers of one run and keeps those that differ from what is stored."""

    ctx: JobContext
    existing: Mapping[PrimerPeriod, Mapping[str, Primer]]
    written: list[Primer] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PERIODS, 0))

    def build(
        self,
        period: PrimerPeriod,
        key: str,
        items: Sequence[SourceItem],
        sources: Sequence[str],
        start: datetime,
    ) -> Primer:
        """The primer of one period key, within that period's byte budget."""
        cfg = self.ctx.settings.consolidate
        budget = {
            "daily": cfg.daily_budget,
            "weekly": cfg.weekly_budget,
            "monthly": cfg.monthly_budget,
        }[period]
        text, cut = render(f"{period.capitalize()} primer {key}", items, budget)
        p = Primer(
            id=make_id("primer", self.ctx.project, period, key),
            project=self.ctx.project,
            period=period,
            period_key=key,
            text=text,
            size_bytes=utf8_len(text),
            source_ids=tuple(sorted(sources)),
            flagged=cut,
            valid_from=start,
            recorded_at=self.ctx.now,
        )
        self.counts[period] += 1
        if cut:
            self.flagged.append(p.id)
        if not _same(self.existing[period].get(p.id), p):
            self.written.append(p)
        return p


@dataclass(frozen=True)
class Calendar:
    """Source items grouped by day, and days grouped by ISO week and by month."""

    by_day: dict[str, list[SourceItem]]
    weeks: dict[str, list[str]]
    months: dict[str, list[str]]

    @classmethod
    def of(cls, items: Sequence[SourceItem]) -> Calendar:
        by_day: dict[str, list[SourceItem]] = defaultdict(list)
        for it in items:
            by_day[day_key(it.day)].append(it)
        weeks: dict[str, list[str]] = defaultdict(list)
        months: dict[str, list[str]] = defaultdict(list)
        for key in sorted(by_day):
            d = by_day[key][0].day
            weeks[week_key(d)].append(key)
            months[month_key(d)].append(key)
        return cls(dict(by_day), dict(weeks), dict(months))

    def day(self, key: str) -> date:
        """The date of a day key."""
        return self.by_day[key][0].day

    def items(self, days: Sequence[str]) -> list[SourceItem]:
        """Every item of these days, in order."""
        return [i for dk in days for i in self.by_day[dk]]


def build_all(cal: Calendar, b: PrimerBuilder) -> tuple[dict[str, Primer], dict[str, Primer]]:
    """Dailies, then weeklies over the dailies, then monthlies over the weeklies."""
    dailies = {
        key: b.build(
            "daily", key, cal.by_day[key], [i.id for i in cal.by_day[key]], _midnight(cal.day(key))
        )
        for key in sorted(cal.by_day)
    }
    weeklies = {
        wk: b.build(
            "weekly",
            wk,
            cal.items(days),
            [dailies[dk].id for dk in days],
            _midnight(cal.day(days[0])),
        )
        for wk, days in sorted(cal.weeks.items())
    }
    for mk, days in sorted(cal.months.items()):
        wks = sorted({week_key(cal.day(dk)) for dk in days})
        first = cal.day(days[0])
        b.build(
            "monthly",
            mk,
            cal.items(days),
            [weeklies[w].id for w in wks],
            datetime(first.year, first.month, 1, tzinfo=UTC),
        )
    return dailies, weeklies


def finished(
    cal: Calendar, dailies: Mapping[str, Primer], weeklies: Mapping[str, Primer], today: date
) -> list[str]:
    """Dailies whose ISO week has ended and weeklies whose month has ended (to archive)."""
    this_week_start = today.toordinal() - today.isoweekday() + 1
    month_start = today.replace(day=1)
    done_days = [
        p.id for k, p in dailies.items() if week_end(cal.day(k)).toordinal() < this_week_start
    ]
    done_weeks = [
        p.id
        for wk, p in weeklies.items()
        if max(cal.day(dk) for dk in cal.weeks[wk]) < month_start
        and week_end(cal.day(cal.weeks[wk][0])) < month_start
    ]
    return done_days + done_weeks


async def run(ctx: JobContext) -> JobResult:
    """Build or refresh every daily, weekly and monthly primer of the project."""
    repo = PrimerRepository(ctx.db)
    items = await repo.sources(ctx.project_filter, 0, ctx.now_ms + 1, ctx.now_ms)
    existing = {
        period: {p.id: p for p in await repo.list_primers(ctx.project, period, ctx.now_ms)}
        for period in PERIODS
    }
    cal = Calendar.of(items)
    b = PrimerBuilder(ctx, existing)
    dailies, weeklies = build_all(cal, b)
    await repo.upsert_many(b.written)
    archived = await repo.archive(finished(cal, dailies, weeklies, ctx.now.date()), ctx.now_ms)
    return JobResult(
        summary={
            "sources": len(items),
            **b.counts,
            "written": len(b.written),
            "archived": len(archived),
            "flagged": len(b.flagged),
        },
        report={"gaps": [f"primer {i} was cut to its budget" for i in b.flagged[:20]]},
    )
