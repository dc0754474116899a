"""Applying findings: a reviewer (or `--auto`) approves, rejects or skips; approval acts.

Actions: `merge` (duplicate lessons or corrections, history kept), `archive` (close the first
target), `link` (`RELATED_TO` between the first two targets), `create_lesson` (a draft lesson from
the finding, derived from the same evidence) and `keep` (nothing to change). `--auto` applies only
what `consolidate.policy` deems reversible and safe; every applied action is journalled with the
before-image of what it changed (`RemAction`), and `undo_run` puts a run back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from consolidate.merge import merge_corrections, merge_lessons, order_pair
from consolidate.models import ALL_PROJECTS
from consolidate.policy import SERVED_DAYS, auto_refusal
from core.ids import make_id
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.models import Finding, FindingStatus, Lesson, utc_now
from graph.repositories.context_queries import ContextQueryRepository
from graph.repositories.findings import FindingRepository
from graph.repositories.rem import CorrectionMerge, LessonMerge, RemRepository
from graph.repositories.rem_actions import RemActionRepository
from graph.rows import RemActionRecord

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


async def apply_action(
    db: GraphDB, finding: Finding, now: datetime, *, run_id: str | None = None, seq: int = 0
) -> str:
    """Carry out the finding's proposed action; returns a short note of what happened.

    The action is journalled under `run_id` (default: one id per review) with the before-image of
    the items it changes and the edges it creates, so `undo_run` can put it back.
    """
    ms = to_ms(now)
    journal = RemActionRepository(db)
    before = await journal.snapshot(finding.target_ids[:2], ms)
    note, edges = await _act(db, finding, now)
    changed = _changed_ids(finding, note)
    if changed or edges:
        await journal.record(
            [
                RemActionRecord(
                    id=make_id("rem_action", run_id or "", finding.id, ms),
                    run_id=run_id or make_id("rem_run", "review", finding.id, ms),
                    project=finding.project,
                    finding_id=finding.id,
                    action=finding.proposed_action,
                    note=note,
                    before={i: before[i] for i in changed if i in before},
                    edges=tuple(edges),
                    applied_at=ms,
                    seq=seq,
                )
            ]
        )
    return note


def _changed_ids(finding: Finding, note: str) -> list[str]:
    """Items whose properties the applied action changed."""
    if finding.proposed_action == "archive" and note.startswith("archived"):
        return list(finding.target_ids[:1])
    if finding.proposed_action == "merge" and note.startswith("merged"):
        return list(finding.target_ids[:2])
    return []


async def _act(
    db: GraphDB, finding: Finding, now: datetime
) -> tuple[str, list[tuple[str, str, str]]]:
    ms = to_ms(now)
    rem = RemRepository(db)
    targets = finding.target_ids
    action = finding.proposed_action
    if action == "keep":
        return "kept as is", []
    if action == "archive":
        closed = await rem.archive(targets[:1], ms)
        return (f"archived {closed[0]}" if closed else "already archived"), []
    if action == "link":
        if len(targets) < 2:
            return "nothing to link", []
        n = await rem.link_related([(targets[0], targets[1], 0.5)], ms)
        if not n:
            return "targets no longer exist", []
        return f"linked {targets[0]} → {targets[1]}", [("RELATED_TO", targets[0], targets[1])]
    if action == "merge":
        note = await _merge(rem, finding, now)
        if not note.startswith("merged"):
            return note, []
        a, b = targets[:2]
        keep = note.rsplit(" into ", 1)[1]
        dup = b if keep == a else a
        return note, [("DUPLICATE_OF", dup, keep)]
    if action == "create_lesson":
        return await _create_lesson(db, rem, finding, now)
    raise InvalidInputError("proposed_action", f"unknown action {action!r}")


async def _create_lesson(
    db: GraphDB, rem: RemRepository, finding: Finding, now: datetime
) -> tuple[str, list[tuple[str, str, str]]]:
    """A draft lesson in the finding's project.

    A cross-project finding takes its target's one project; without one, nothing is created (no
    phantom project).
    """
    project = finding.project
    if project == "*":
        image = await RemActionRepository(db).snapshot(finding.target_ids[:1], to_ms(now))
        props = next(iter(image.values()), {})
        owners = props.get("projects") or ([props["project"]] if props.get("project") else [])
        if len(owners) != 1:
            return "no single project to hold the lesson: nothing created", []
        project = str(owners[0])
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
    edges: list[tuple[str, str, str]] = []
    if finding.target_ids:
        await rem.link_related([(lesson.id, finding.target_ids[0], 1.0)], to_ms(now))
        edges.append(("RELATED_TO", lesson.id, finding.target_ids[0]))
    return f"created lesson {lesson.id}", edges


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


@dataclass
class AutoOutcome:
    """What `apply_recommended` did: the run id to undo, applied findings and those left open."""

    run_id: str
    applied: list[Finding] = field(default_factory=list)
    left: list[tuple[Finding, str]] = field(default_factory=list)
    """Findings left for review, each with the reason."""


async def apply_recommended(
    db: GraphDB,
    project: str,
    *,
    now: datetime | None = None,
    limit: int = 1_000,
    run_id: str | None = None,
    served_days: float = SERVED_DAYS,
) -> AutoOutcome:
    """`--auto`: apply the open findings of `project` that `consolidate.policy` deems safe.

    The rest stay open for review. An item served (`context`, `rules`, the session-start hook)
    in the `served_days` before `now` is never archived. Every applied action is journalled under
    one run id, which `undo_run` (`remgraph rem undo RUN_ID`) takes.
    """
    now = now or utc_now()
    ms = to_ms(now)
    out = AutoOutcome(run_id or make_id("rem_run", "auto", project, ms))
    repo = FindingRepository(db)
    journal = RemActionRepository(db)
    findings = await repo.list_findings(project, status="open", limit=limit)
    archived = [
        f.target_ids[0] for f in findings if f.proposed_action == "archive" and f.target_ids
    ]
    scope = None if project == ALL_PROJECTS else project
    served = {
        i: s.last_served_at
        for i, s in (await ContextQueryRepository(db).served(scope, archived, now_ms=ms)).items()
    }
    for seq, f in enumerate(findings):
        images = await journal.snapshot(f.target_ids[:2], ms)
        why = auto_refusal(f, images, served, now_ms=ms, served_days=served_days)
        if why is not None:
            out.left.append((f, why))
            continue
        note = await apply_action(db, f, now, run_id=out.run_id, seq=seq)
        out.applied.append(await repo.set_status(f.id, "applied", note=note, now_ms=ms))
    return out


async def undo_run(db: GraphDB, run_id: str, *, now: datetime | None = None) -> list[str]:
    """Undo every action journalled under `run_id`, latest first; returns the notes undone.

    Items go back to their before-image (properties the action added are removed), edges the
    action created are deleted, and the findings it applied reopen.
    """
    ms = to_ms(now or utc_now())
    journal = RemActionRepository(db)
    findings = FindingRepository(db)
    actions = await journal.of_run(run_id)
    for a in actions:
        after = await journal.snapshot(list(a.before), ms, current=False)
        await journal.restore(a.before, after)
        await journal.unlink(a.edges, a.applied_at)
        if a.finding_id and (await findings.get_many([a.finding_id]))[0] is not None:
            await findings.set_status(a.finding_id, "open", note=f"undone: {a.note}", now_ms=ms)
    await journal.mark_undone([a.id for a in actions], ms)
    return [a.note for a in actions]
