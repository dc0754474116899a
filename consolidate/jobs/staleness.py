"""staleness: find what nobody uses any more, and decay correction confidence by half-life.

- never used (usage 0) and neither recorded (a correction: seen) nor served for `stale_days` →
  `stale` finding, proposes `archive`. Serving is use: an item `context`, `rules` or the
  session-start hook returned (its `GOT` edges, `context_query.served`) was last used when it
  was last served, so its idle time counts from the later of that and its recording;
- high-use (usage ≥ `high_use`) but not refined for `refine_days` → `needs_refinement`, `keep`;
- keywords matching nothing asked in the last `query_window_days` (logged queries, else recent
  user turns), and not served in that window either → `unqueried`, `keep` (for review);
- every live correction gets
  `effective_weight = confidence × reinforcement^g × exp(−days/half-life)` and
  `decayed_confidence = confidence × 0.5^(days/half-life)` (days since last seen), recomputed
  from the stored base values on each run, so repeated runs never compound the decay. Decay
  follows sightings in transcripts, not servings (serving a rule must not keep it strong), but a
  `faded` finding says when the item was last served, and `rem run --auto` never archives an
  item served in the last `served_days` (`consolidate.policy`).
"""

from __future__ import annotations

from datetime import timedelta

from consolidate.models import JobContext, JobResult
from consolidate.text import clip
from core.text import content_words
from core.timeutil import days_between, to_ms
from graph.models import Finding
from graph.repositories.context_queries import ContextQueryRepository, Served
from graph.repositories.rem import RemRepository
from graph.rows import CorrectionDecay
from knowledge.scoring import correction_effective_weight

FADED = 0.05
"""Effective weight under which an ungraduated correction is proposed for archiving."""


def decayed_confidence(confidence: float, days: float, half_life_days: float) -> float:
    """`confidence × 0.5^(days / half_life)`: what is left after `days` without a sighting."""
    if half_life_days <= 0:
        return 0.0
    return float(confidence * 0.5 ** (max(0.0, days) / half_life_days))


def last_used_ms(since_ms: int, served: Served | None) -> int:
    """When an item was last used: its last serving, or `since_ms` (recorded, seen) if later."""
    return since_ms if served is None else max(since_ms, served.last_served_at)


def _served_note(served: Served | None, now_ms: int) -> str:
    if served is None:
        return "never served"
    days = days_between(served.last_served_at, now_ms)
    return f"served {served.served_count} times, last {days:.0f} days ago"


async def run(ctx: JobContext) -> JobResult:
    """Flag stale items and recompute correction decay."""
    cfg = ctx.settings.consolidate
    repo = RemRepository(ctx.db)
    now = ctx.now_ms
    lessons = await repo.lessons(ctx.project_filter, now)
    corrections = await repo.corrections(ctx.project_filter, now)
    served = await ContextQueryRepository(ctx.db).served(
        ctx.project_filter,
        [x.lesson.id for x in lessons] + [c.correction.id for c in corrections],
        now_ms=now,
    )
    since = to_ms(ctx.now - timedelta(days=cfg.query_window_days))
    texts = await repo.recent_texts(ctx.project_filter, since)
    queries = [t for t, src in texts if src == "query"]
    vocab = {w for t in (queries or [t for t, _ in texts]) for w in content_words(t)}
    findings: list[Finding] = []
    counts = {"stale": 0, "needs_refinement": 0, "unqueried": 0, "faded": 0}

    def check(
        kind: str,
        id: str,
        label: str,
        usage: int,
        recorded_ms: int,
        refined_ms: int | None,
        keywords: tuple[str, ...],
        archivable: bool,
    ) -> None:
        age = days_between(recorded_ms, now)
        use = served.get(id)
        idle = days_between(last_used_ms(recorded_ms, use), now)
        if usage == 0 and idle > cfg.stale_days and archivable:
            counts["stale"] += 1
            detail = (
                f"never retrieved in {age:.0f} days"
                if use is None
                else f"not used for {idle:.0f} days ({_served_note(use, now)})"
            )
            findings.append(
                ctx.finding(
                    "stale",
                    f"stale {kind}: {label}",
                    f"{detail} (threshold {cfg.stale_days:.0f})",
                    [id],
                    "archive",
                    evidence=f"usage={usage}|{label}",
                )
            )
            return
        refined_age = days_between(refined_ms or recorded_ms, now)
        if usage >= cfg.high_use and refined_age > cfg.refine_days:
            counts["needs_refinement"] += 1
            findings.append(
                ctx.finding(
                    "needs_refinement",
                    f"refresh {kind}: {label}",
                    f"used {usage} times but not refined for {refined_age:.0f} days",
                    [id],
                    "keep",
                )
            )
            return
        kw = {w for k in keywords for w in content_words(k)}
        if vocab and kw and idle > cfg.query_window_days and not (kw & vocab):
            counts["unqueried"] += 1
            findings.append(
                ctx.finding(
                    "unqueried",
                    f"unqueried {kind}: {label}",
                    f"none of its keywords ({', '.join(sorted(kw)[:6])}) matched anything asked in "
                    f"{cfg.query_window_days:.0f} days",
                    [id],
                    "keep",
                )
            )

    for rec in lessons:
        x = rec.lesson
        check(
            "lesson",
            x.id,
            clip(x.title or x.summary, 60),
            x.usage_count,
            to_ms(x.recorded_at),
            rec.last_refined_at,
            x.keywords,
            True,
        )
    updates: list[CorrectionDecay] = []
    for crec in corrections:
        c = crec.correction
        last = to_ms(c.last_seen or c.recorded_at)
        days = days_between(last, now)
        eff = correction_effective_weight(
            c.confidence,
            c.reinforcement,
            days,
            g=ctx.settings.corrections.reinforcement_exponent,
            half_life_days=c.half_life_days,
        )
        dec = decayed_confidence(c.confidence, days, c.half_life_days)
        updates.append(CorrectionDecay(c.id, round(eff, 6), round(dec, 6), now))
        label = clip(c.rule_text, 60)
        if c.status == "correction" and eff < FADED and c.usage_count == 0:
            counts["faded"] += 1
            findings.append(
                ctx.finding(
                    "faded",
                    f"faded correction: {label}",
                    f"effective weight {eff:.3f} after {days:.0f} days unseen; "
                    f"{_served_note(served.get(c.id), now)}",
                    [c.id],
                    "archive",
                    evidence=f"usage={c.usage_count}|status={c.status}|{label}",
                )
            )
            continue
        check("correction", c.id, label, c.usage_count, last, None, (), c.status == "correction")
    await repo.set_correction_decay(updates)
    return JobResult(
        summary={
            "lessons": len(lessons),
            "corrections": len(corrections),
            "decayed": len(updates),
            "served": len(served),
            "recent_texts": len(texts),
            "query_source": "queries" if queries else "user turns",
            **counts,
        },
        findings=findings,
    )
