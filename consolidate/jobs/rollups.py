"""rollups: daily primers per session-day, ISO-weekly and monthly primers, within size budgets.

A daily primer narrates its sessions from their summaries and turns (`consolidate.digest`); a
weekly one summarises its days and a monthly one its weeks (themes, the sessions' summaries, a
capped share of their salient sentences, decisions, lessons, open items, changes).
Only days that are new, changed or recent are read again, with their weeks and months.

Idempotent: primer ids are deterministic (project, period, key) and a primer is only rewritten
when its sources changed, so a second run writes nothing. Rolled-up sources are archived (closed)
once their period is complete: dailies when their ISO week has ended, weeklies when their month has
ended. Nothing is deleted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from consolidate.config import ConsolidateSection
from consolidate.digest import (
    Line,
    SessionDigest,
    digest,
    merged_themes,
    repeats,
    summary_lines,
    when,
)
from consolidate.models import JobContext, JobResult
from consolidate.rollup import (
    Block,
    SourceItem,
    daily_heading,
    day_key,
    month_key,
    monthly_heading,
    narrate,
    week_end,
    week_key,
    weekly_heading,
)
from consolidate.text import utf8_len
from core.ids import make_id
from core.timeutil import from_ms, to_ms
from graph.models import Primer, PrimerPeriod
from graph.repositories.primers import PrimerRepository
from graph.rows import SessionTurn

PERIODS: tuple[PrimerPeriod, ...] = ("daily", "weekly", "monthly")
SUMMARY_LINES = 12
"""Most sentences a weekly primer shows per day, or a monthly one per week."""
SUMMARY_SHARE = 0.4
"""Share of a child's salient sentences a weekly or monthly primer shows at most."""
RECENT_DAYS = 2
"""Days this close to now are re-narrated every run (their sessions may still be growing)."""


def _same(old: Primer | None, new: Primer) -> bool:
    return (
        old is not None
        and old.text == new.text
        and old.source_ids == new.source_ids
        and old.turn_ids == new.turn_ids
    )


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

    def budget(self, period: PrimerPeriod) -> tuple[int, int]:
        """The tier's (target, max) bytes."""
        cfg = self.ctx.settings.consolidate
        return {
            "daily": (cfg.daily_target, cfg.daily_budget),
            "weekly": (cfg.weekly_target, cfg.weekly_budget),
            "monthly": (cfg.monthly_target, cfg.monthly_budget),
        }[period]

    def pid(self, period: PrimerPeriod, key: str) -> str:
        """The deterministic id of one period key's primer."""
        return make_id("primer", self.ctx.project, period, key)

    def build(
        self,
        period: PrimerPeriod,
        key: str,
        view: View,
        sources: Sequence[str],
        start: datetime,
    ) -> Primer:
        """The primer of one period key, within that period's byte budget."""
        target, budget = self.budget(period)
        text, cut, quoted = narrate(
            view.heading, view.items, budget, blocks=view.blocks, intro=view.intro, target=target
        )
        p = Primer(
            id=self.pid(period, key),
            project=self.ctx.project,
            period=period,
            period_key=key,
            text=text,
            size_bytes=utf8_len(text),
            source_ids=tuple(sorted(sources)),
            turn_ids=quoted if period == "daily" else (),
            flagged=cut,
            valid_from=start,
            recorded_at=self.ctx.now,
        )
        if cut:
            self.flagged.append(p.id)
        if not _same(self.existing[period].get(p.id), p):
            self.written.append(p)
        return p


@dataclass(frozen=True)
class View:
    """What one primer is rendered from."""

    heading: str
    items: Sequence[SourceItem]
    blocks: Sequence[Block]
    intro: Sequence[str]


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

    def sessions(self, days: Sequence[str]) -> list[SourceItem]:
        """The session items of these days, by start time."""
        return sorted((i for i in self.items(days) if i.kind == "session"), key=lambda i: i.at)


def _interleave(ds: Sequence[SessionDigest]) -> tuple[Line, ...]:
    return tuple(sorted((x for d in ds for x in d.lines), key=lambda x: (x.rank, x.at)))


def _stats(ds: Sequence[SessionDigest], days: int | None = None) -> list[str]:
    if not ds:
        return []
    speakers = sorted({s for d in ds for s in d.speakers})
    on = f" on {days} days" if days and days > 1 else ""
    line = f"{len(ds)} session{'s' if len(ds) > 1 else ''}{on}"
    if turns := sum(d.turns for d in ds):
        line += f", {turns} turns"
    if speakers:
        line += f"; speakers: {', '.join(speakers)}"
    out = [line + "."]
    if th := merged_themes(ds):
        out.append(f"Themes: {', '.join(th)}.")
    return out


def _themes_note(ds: Sequence[SessionDigest], k: int = 6) -> tuple[str, ...]:
    th = merged_themes(ds, k)
    return (f"Themes: {', '.join(th)}.",) if th else ()


def session_block(item: SourceItem, d: SessionDigest, *, alone: bool = False) -> Block:
    """A daily primer's block for one session: its summary, then the quotes it does not restate."""
    head = when(item.at)
    if d.speakers:
        head += f" · {', '.join(d.speakers)}"
    head += f" · {d.turns} turns"
    notes = list(_themes_note([d])) if alone is False else []
    if not d.lines and item.title:
        notes.append(f"{item.title}" + (f" — {item.text}" if item.text else ""))
    lead = summary_lines(d)
    quotes = tuple(x for x in d.lines if not repeats(x, lead))
    return Block(head, tuple(notes), quotes, frozenset({item.id}), lead=lead)


@dataclass
class Narrator:
    """Session digests of the days being rebuilt, and the views built from them."""

    cal: Calendar
    digests: dict[str, SessionDigest]

    def of(self, days: Sequence[str]) -> list[SessionDigest]:
        """The digests of the sessions of these days, by start time."""
        return [self.digests[s.id] for s in self.cal.sessions(days) if s.id in self.digests]

    def daily(self, key: str) -> View:
        """A daily primer: one block per session."""
        sessions = self.cal.sessions([key])
        ds = [self.digests.get(s.id) or SessionDigest(s.id, s.at) for s in sessions]
        blocks = [
            session_block(s, d, alone=len(sessions) == 1) for s, d in zip(sessions, ds, strict=True)
        ]
        return View(daily_heading(self.cal.day(key)), self.cal.by_day[key], blocks, _stats(ds))

    def _block(self, heading: str, days: Sequence[str], *, alone: bool = False) -> Block:
        """One day of a weekly or one week of a monthly: its sessions' summaries, then quotes.

        The summaries say what happened; the quotes that restate a summary sentence are left
        out, and the rest are capped (a share of the child's sentences), so the block summarises
        its child rather than copying it.
        """
        ds = self.of(days)
        n = len(self.cal.sessions(days))
        head = f"{heading} · {n} session{'s' if n != 1 else ''}"
        if ds:
            head += f", {sum(d.turns for d in ds)} turns"
        ids = frozenset(s.id for s in self.cal.sessions(days))
        lead = tuple(
            sorted((x for d in ds for x in summary_lines(d)), key=lambda x: (x.rank, x.at))
        )
        pool = _interleave(ds)
        cap = min(SUMMARY_LINES, max(3, math.ceil(SUMMARY_SHARE * len(pool))))
        quotes = tuple(x for x in pool if not repeats(x, lead))
        notes = () if alone else _themes_note(ds)
        return Block(head, notes, quotes, ids, cap, lead)

    def weekly(self, days: Sequence[str]) -> View:
        """A weekly primer: one block per day, summarising it."""
        blocks = [
            self._block(f"{self.cal.day(k):%a %d %b}", [k], alone=len(days) == 1) for k in days
        ]
        return View(
            weekly_heading(self.cal.day(days[0])),
            self.cal.items(days),
            blocks,
            _stats(self.of(days), len(days)),
        )

    def monthly(self, days: Sequence[str]) -> View:
        """A monthly primer: one block per ISO week, summarising it."""
        weeks: dict[str, list[str]] = defaultdict(list)
        for k in days:
            weeks[week_key(self.cal.day(k))].append(k)
        blocks = [
            self._block(
                weekly_heading(self.cal.day(ks[0])).removeprefix("Weekly primer "),
                ks,
                alone=len(weeks) == 1,
            )
            for _, ks in sorted(weeks.items())
        ]
        return View(
            monthly_heading(self.cal.day(days[0])),
            self.cal.items(days),
            blocks,
            _stats(self.of(days), len(days)),
        )


@dataclass(frozen=True)
class Plan:
    """Which period keys are rebuilt this run (the rest keep their stored primer)."""

    days: frozenset[str]
    weeks: frozenset[str]
    months: frozenset[str]

    def read_days(self, cal: Calendar) -> set[str]:
        """Days whose turns must be read: every day of a week or month being rebuilt."""
        out = set(self.days)
        for wk in self.weeks:
            out.update(cal.weeks[wk])
        for mk in self.months:
            out.update(cal.months[mk])
        return out


def plan(cal: Calendar, b: PrimerBuilder, today: date) -> Plan:
    """Days that are new, changed, recent or in an older format, and their weeks and months."""

    def stale(period: PrimerPeriod, key: str, heading: str, sources: set[str]) -> bool:
        old = b.existing[period].get(b.pid(period, key))
        return old is None or set(old.source_ids) != sources or not old.text.startswith(heading)

    days = {
        k
        for k in cal.by_day
        if (today - cal.day(k)).days < RECENT_DAYS
        or stale("daily", k, f"# {daily_heading(cal.day(k))}", {i.id for i in cal.by_day[k]})
    }
    weeks = {wk for wk, ks in cal.weeks.items() if days & set(ks)} | {
        wk
        for wk, ks in cal.weeks.items()
        if stale(
            "weekly",
            wk,
            f"# {weekly_heading(cal.day(ks[0]))}",
            {b.pid("daily", k) for k in ks},
        )
    }
    months = {mk for mk, ks in cal.months.items() if days & set(ks)} | {
        mk
        for mk, ks in cal.months.items()
        if stale(
            "monthly",
            mk,
            f"# {monthly_heading(cal.day(ks[0]))}",
            {b.pid("weekly", week_key(cal.day(k))) for k in ks},
        )
    }
    return Plan(frozenset(days), frozenset(weeks), frozenset(months))


def build_all(
    cal: Calendar, b: PrimerBuilder, n: Narrator, p: Plan
) -> tuple[dict[str, Primer], dict[str, Primer]]:
    """Dailies, then weeklies over the dailies, then monthlies over the weeklies.

    Keys outside the plan keep their stored primer.
    """
    dailies: dict[str, Primer] = {}
    for key in sorted(cal.by_day):
        old = b.existing["daily"].get(b.pid("daily", key))
        dailies[key] = (
            old
            if key not in p.days and old is not None
            else b.build(
                "daily",
                key,
                n.daily(key),
                [i.id for i in cal.by_day[key]],
                # known once its newest source happened: an as-of read earlier that day must not
                # see what was said later
                from_ms(max(i.at for i in cal.by_day[key])),
            )
        )
    weeklies: dict[str, Primer] = {}
    for wk, days in sorted(cal.weeks.items()):
        old = b.existing["weekly"].get(b.pid("weekly", wk))
        weeklies[wk] = (
            old
            if wk not in p.weeks and old is not None
            else b.build(
                "weekly",
                wk,
                n.weekly(days),
                [dailies[dk].id for dk in days],
                max(dailies[dk].valid_from for dk in days),
            )
        )
    for mk, days in sorted(cal.months.items()):
        if mk not in p.months and b.pid("monthly", mk) in b.existing["monthly"]:
            continue
        wks = sorted({week_key(cal.day(dk)) for dk in days})
        b.build(
            "monthly",
            mk,
            n.monthly(days),
            [weeklies[w].id for w in wks],
            max(weeklies[w].valid_from for w in wks),
        )
    b.counts.update(daily=len(cal.by_day), weekly=len(cal.weeks), monthly=len(cal.months))
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


async def _narrator(repo: PrimerRepository, cal: Calendar, p: Plan, now_ms: int) -> Narrator:
    sessions = cal.sessions(sorted(p.read_days(cal)))
    by_session: dict[str, list[SessionTurn]] = defaultdict(list)
    for t in await repo.turns([s.id for s in sessions], now_ms):
        by_session[t.session_id].append(t)
    digests = {s.id: digest(s.id, s.at, by_session.get(s.id, []), s.text) for s in sessions}
    return Narrator(cal, digests)


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
    p = plan(cal, b, ctx.now.date())
    narrator = await _narrator(repo, cal, p, ctx.now_ms)
    dailies, weeklies = build_all(cal, b, narrator, p)
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


async def live_daily(
    repo: PrimerRepository,
    project: str,
    items: Sequence[SourceItem],
    now: datetime,
    cfg: ConsolidateSection | None = None,
) -> Primer:
    """Today's daily primer rendered on the spot (not stored), as the rollup would write it."""
    cfg = cfg or ConsolidateSection()
    cal = Calendar.of(items)
    key = day_key(now.date())
    plan_ = Plan(frozenset({key}), frozenset(), frozenset())
    narrator = await _narrator(repo, cal, plan_, to_ms(now))
    view = narrator.daily(key)
    text, cut, quoted = narrate(
        view.heading,
        view.items,
        cfg.daily_budget,
        blocks=view.blocks,
        intro=view.intro,
        target=cfg.daily_target,
    )
    return Primer(
        id=make_id("primer", project, "daily", key),
        project=project,
        period="daily",
        period_key=key,
        text=text,
        size_bytes=utf8_len(text),
        source_ids=tuple(sorted(i.id for i in items)),
        turn_ids=quoted,
        flagged=cut,
        valid_from=_midnight(now.date()),
        recorded_at=now,
    )
