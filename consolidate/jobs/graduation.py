"""graduation: corrections move correction → pattern → preference → rule; contradiction demotes.

Promotion follows `knowledge.scoring.correction_status` with the shared `corrections` rules
(distinct sessions, sightings, human confirmation), the thresholds extraction applies too. A live,
newer correction that `CONTRADICTS` one demotes it one step, once per contradicting correction
(remembered in `demoted_for`), blocks further promotion while it lives, and yields a finding
proposing to archive the older correction.
"""

from __future__ import annotations

from consolidate.models import JobContext, JobResult
from consolidate.text import clip
from core.timeutil import to_ms
from graph.models import CorrectionStatus, Finding
from graph.repositories.rem import RemRepository
from graph.rows import CorrectionStatusChange
from knowledge.scoring import STATUS_ORDER, correction_status

_BY_ORDER: dict[int, CorrectionStatus] = {v: k for k, v in STATUS_ORDER.items()}


def demote(status: CorrectionStatus) -> CorrectionStatus:
    """One step down the ladder (a plain correction stays one)."""
    return _BY_ORDER[max(0, STATUS_ORDER[status] - 1)]


async def run(ctx: JobContext) -> JobResult:
    """Promote and demote corrections."""
    rules = ctx.settings.corrections
    repo = RemRepository(ctx.db)
    records = await repo.corrections(ctx.project_filter, ctx.now_ms)
    updates: list[CorrectionStatusChange] = []
    findings: list[Finding] = []
    promoted: dict[str, int] = {}
    demoted = 0
    for rec in records:
        c = rec.correction
        mine = to_ms(c.last_seen or c.recorded_at)
        newer = sorted(cid for cid, seen in rec.contradictions if (seen or 0) > mine)
        fresh = [cid for cid in newer if cid not in rec.demoted_for]
        if fresh:
            new_status = demote(c.status)
            demoted += 1
            demoted_for = tuple(sorted({*rec.demoted_for, *fresh}))
            updates.append(CorrectionStatusChange(c.id, new_status, ctx.now_ms, demoted_for))
            findings.append(
                ctx.finding(
                    "contradicted",
                    f"contradicted correction: {clip(c.rule_text, 60)}",
                    f"{len(fresh)} newer correction(s) contradict it; demoted {c.status} → "
                    f"{new_status}; archive it if the newer rule holds",
                    [c.id, *fresh],
                    "archive",
                )
            )
            continue
        if newer:
            continue  # still contradicted: no promotion until the contradiction is resolved
        sessions = len(set(c.sessions))
        sightings = max(round(c.reinforcement), sessions)
        new_status = correction_status(
            c.status,
            sessions=sessions,
            sightings=sightings,
            consistent=not rec.contradictions,
            confirmed=c.confirmed,
            rule_after=rules.rule_after_sessions,
            preference_after=rules.preference_after_sessions,
            pattern_after=rules.pattern_after_sessions,
        )
        if new_status != c.status:
            promoted[new_status] = promoted.get(new_status, 0) + 1
            updates.append(CorrectionStatusChange(c.id, new_status, ctx.now_ms))
    await repo.set_correction_status(updates)
    return JobResult(
        summary={
            "corrections": len(records),
            "demoted": demoted,
            "promoted": sum(promoted.values()),
            **{f"to_{k}": v for k, v in sorted(promoted.items())},
        },
        findings=findings,
    )
