"""The context pack: latest monthly + latest weekly + the most recent days, within 35 KB.

The pack holds the latest monthly primer, the latest weekly primer, today's sessions (today's
daily primer, or one rendered on the spot from today's sessions when no rollup has covered them
yet), then the most recent earlier daily primers, newest first, while the pack stays within its
target (25 KB, the top of the seed's 20–25 KB range). A weekly primer whose days are all in the
pack already is left out in favour of one more day. Each primer is built within its own budget,
and the final cut at the pack's maximum is a safety net that should never trigger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from consolidate.config import ConsolidateSection
from consolidate.rollup import day_key
from consolidate.text import fit_bytes, utf8_len
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.models import Primer, utc_now
from graph.repositories.primers import PrimerRepository


@dataclass(frozen=True)
class ContextPack:
    """The assembled pack.

    Attributes:
        text: Markdown, monthly first, then weekly, then the days, today last.
        size_bytes: UTF-8 size of `text`.
        primer_ids: the primers used (a primer rendered live for today has its would-be id).
        cut: True if the safety cut trimmed the text.
    """

    text: str
    size_bytes: int
    primer_ids: tuple[str, ...]
    cut: bool = False


async def _today(
    repo: PrimerRepository, project: str, now: datetime, cfg: ConsolidateSection | None
) -> Primer | None:
    """Today's daily primer, rendered live when today's sessions are not all in the stored one."""
    from consolidate.jobs.rollups import live_daily

    ms = to_ms(now)
    stored = await repo.get_by_key(project, "daily", day_key(now.date()), ms)
    midnight = datetime(now.year, now.month, now.day, tzinfo=UTC)
    items = await repo.sources(project, to_ms(midnight), ms + 1, ms)
    if not items or (stored and {i.id for i in items} <= set(stored.source_ids)):
        return stored
    return await live_daily(repo, project, items, now, cfg)


def _fill(
    head: list[Primer], days: list[Primer], today: Primer | None, target: int
) -> list[Primer]:
    used = sum(p.size_bytes + 1 for p in head) + (today.size_bytes + 1 if today else 0)
    chosen: list[Primer] = []
    for p in days:  # newest first
        if used + p.size_bytes + 1 > target:
            break
        chosen.append(p)
        used += p.size_bytes + 1
    return [*head, *reversed(chosen), *([today] if today else [])]


async def context_pack(
    db: GraphDB,
    project: str,
    *,
    now: datetime | None = None,
    budget: int = 35_000,
    target: int = 25_000,
    settings: ConsolidateSection | None = None,
) -> ContextPack:
    """Assemble the context pack of `project` (or `*`) as of `now`.

    `settings` gives the daily budget and target of a primer rendered live for today.
    """
    now = now or utc_now()
    ms = to_ms(now)
    repo = PrimerRepository(db)
    goal = min(target, budget)
    monthly = await repo.latest(project, "monthly", ms)
    weekly = await repo.latest(project, "weekly", ms)
    today = await _today(repo, project, now, settings)
    key = day_key(now.date())
    days = sorted(
        (p for p in await repo.list_primers(project, "daily", ms) if p.period_key < key),
        key=lambda p: p.period_key,
        reverse=True,
    )
    head = [p for p in (monthly, weekly) if p is not None]
    used = _fill(head, days, today, goal)
    in_pack = {p.id for p in used}
    if weekly is not None and set(weekly.source_ids) <= in_pack:
        used = _fill([p for p in head if p is not weekly], days, today, goal)
    text = "\n".join(p.text for p in used)
    cut = utf8_len(text) > budget
    if cut:
        text = fit_bytes(text, budget)
    return ContextPack(
        text=text, size_bytes=utf8_len(text), primer_ids=tuple(p.id for p in used), cut=cut
    )
