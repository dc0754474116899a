"""Applying findings: a reviewer (or `--auto`) approves, rejects or skips; approval acts.

Actions: `merge` (duplicate lessons or corrections, history kept), `archive` (close the first
target), `link` (`RELATED_TO` between the first two targets), `create_lesson` (a draft lesson from
the finding, derived from the same evidence) and `keep` (nothing to change).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from consolidate.merge import merge_corrections, merge_lessons, order_pair
from core.ids import make_id
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.models import Finding, FindingStatus, Lesson, utc_now
from graph.repositories.findings import FindingRepository
from graph.repositories.rem import CorrectionMerge, LessonMerge, RemRepository

Decision = Literal["approve", "reject", "skip"]

_DECISIONS: dict[str, Decision] = {
    "approve": "approve",
    "approved": "approve",
    "apply": "approve",
    "applied": "approve",
    "reject": "reject",
    "rejected": "reject",
    "skip": "skip",
    "skipped": "skip",
}


def parse_decision(value: str) -> Decision:
    """`approve`/`approved`, `reject`/`rejected` or `skip`/`skipped`."""
    try:
        return _DECISIONS[value.strip().lower()]
    except KeyError:
        raise InvalidInputError(
            "decision", f"{value!r} is not one of approve, reject, skip"
        ) from None


async def apply_action(db: GraphDB, finding: Finding, now: datetime) -> str:
    """Carry out the finding's proposed action; returns a short note of what happened."""
    ms = to_ms(now)
    rem = RemRepository(db)
    targets = finding.target_ids
    action = finding.proposed_action
    if action == "keep":
        return "kept as is"
    if action == "archive":
        closed = await rem.archive(targets[:1], ms)
        return f"archived {closed[0]}" if closed else "already archived"
    if action == "link":
        if len(targets) < 2:
            return "nothing to link"
        n = await rem.link_related([(targets[0], targets[1], 0.5)], ms)
        return f"linked {targets[0]} → {targets[1]}" if n else "targets no longer exist"
    if action == "merge":
        return await _merge(rem, finding, now)
    if action == "create_lesson":
        project = finding.project if finding.project != "*" else "global"
        title = finding.title.split(": ", 1)[-1]
        lesson = Lesson(
            id=make_id("lesson", project, finding.id),
            project=project,
            category="pattern",
            title=title,
            content=finding.detail,
            summary=title,
            keywords=(),
            source_turn_ids=(),
            valid_from=now,
            recorded_at=now,
        )
        await rem.create_lessons([lesson])
        if targets:
            await rem.link_related([(lesson.id, targets[0], 1.0)], ms)
        return f"created lesson {lesson.id}"
    raise InvalidInputError("proposed_action", f"unknown action {action!r}")


async def _merge(rem: RemRepository, finding: Finding, now: datetime) -> str:
    if len(finding.target_ids) < 2:
        return "nothing to merge"
    a, b = finding.target_ids[:2]
    ms = to_ms(now)
    if finding.kind == "duplicate_lesson":
        lessons = {r.lesson.id: r.lesson for r in await rem.lessons(None, ms)}
        if a not in lessons or b not in lessons:
            return "already merged or closed"
        keep, dup = order_pair(lessons[a], lessons[b])
        merged, kv, dv = merge_lessons(lessons[keep], lessons[dup], now)
        await rem.merge_lessons([LessonMerge(merged, dup, kv, dv, 0.0)], ms)
        return f"merged {dup} into {keep}"
    if finding.kind == "duplicate_correction":
        cs = {r.correction.id: r.correction for r in await rem.corrections(None, ms)}
        if a not in cs or b not in cs:
            return "already merged or closed"
        keep, dup = order_pair(cs[a], cs[b])
        await rem.merge_corrections(
            [CorrectionMerge(merge_corrections(cs[keep], cs[dup]), dup, 0.0)], ms
        )
        return f"merged {dup} into {keep}"
    return f"cannot merge a {finding.kind} finding"


async def review_finding(
    db: GraphDB, finding_id: str, decision: str, *, now: datetime | None = None
) -> Finding:
    """Record a decision on a finding; approval applies its action and marks it `applied`.

    Raises:
        NotFoundError: no finding has this id.
        InvalidInputError: the decision is not approve, reject or skip.
    """
    now = now or utc_now()
    d = parse_decision(decision)
    repo = FindingRepository(db)
    finding = await repo.get(finding_id)
    status: FindingStatus
    if d == "approve":
        note = await apply_action(db, finding, now)
        status = "applied"
    else:
        note = ""
        status = "rejected" if d == "reject" else "skipped"
    return await repo.set_status(finding_id, status, note=note, now_ms=to_ms(now))


async def apply_recommended(
    db: GraphDB, project: str, *, now: datetime | None = None, limit: int = 1_000
) -> list[Finding]:
    """`--auto`: approve every open finding of `project`; returns them as updated."""
    open_ = await FindingRepository(db).list_findings(project, status="open", limit=limit)
    return [await review_finding(db, f.id, "approve", now=now) for f in open_]
