"""Scoped bi-temporal invalidation of facts.

A new fact invalidates **only** current facts with the same subject and predicate (or that it
explicitly CONTRADICTS) whose validity overlaps it: the old fact gets `valid_to` = the new fact's
`valid_from` (valid time only: it ended, it was not wrong, so `expired_at` stays open and as-of
reads at knownAt = now keep it; the end believed before is kept for earlier knownAt), plus
`(new)-[:SUPERSEDES]->(old)`. Unrelated facts are never retired. A restatement of a fact that
still holds (same subject, predicate and object) adds provenance instead of a new node; the same
object after the old one ended (moving back) is a new fact. A fact learned late about an earlier
time (its `valid_from` precedes a stored fact's) is stored already ended at the earliest such
`valid_from`, and that fact supersedes it; nothing current is closed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.ids import make_id, normalize_key
from core.timeutil import OPEN, from_ms, to_ms
from graph.models import Fact
from graph.repositories.facts import FactRepository, Supersession
from ingest.extract.text import statement_category, with_category

__all__ = ["FactOutcome", "assert_facts", "fact_id"]


def fact_id(project: str, subject: str, predicate: str, obj: str, valid_from_ms: int) -> str:
    """Deterministic fact id: the same statement at the same event time is the same node."""
    return make_id(
        "fact",
        project,
        normalize_key(subject),
        normalize_key(predicate),
        normalize_key(obj),
        valid_from_ms,
    )


@dataclass
class FactOutcome:
    """What `assert_facts` did."""

    added: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    invalidated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def _key(f: Fact) -> tuple[str, str]:
    return normalize_key(f.subject), normalize_key(f.predicate)


@dataclass
class _Plan:
    """The writes one `assert_facts` call decides on."""

    to_write: dict[str, Fact] = field(default_factory=dict)
    supersede: list[Supersession] = field(default_factory=list)
    """Current facts the new ones close."""
    late_links: list[Supersession] = field(default_factory=list)
    """Current facts that supersede a new fact learned late about an earlier time."""
    retract: list[tuple[str, str]] = field(default_factory=list)
    """`(new, old)`: current facts a new one says were wrong, retracted in record time."""


def _holds(old: Fact, f: Fact) -> bool:
    """`old` still holds when `f` is said: a restatement, not a return to an ended state."""
    return old.valid_to is None or to_ms(old.valid_to) > to_ms(f.valid_from)


def _restated(same: Fact, f: Fact) -> Fact:
    """A current fact said again: the new sighting's turns added, confidence nudged up."""
    return same.model_copy(
        update={
            "source_turn_ids": tuple(dict.fromkeys((*same.source_turn_ids, *f.source_turn_ids))),
            "confidence": min(0.99, max(same.confidence, f.confidence) + 0.05),
        }
    )


def _correct(
    f: Fact, live: list[Fact], now_ms: int, plan: _Plan, out: FactOutcome
) -> tuple[Fact, list[Fact]]:
    """Fit a fact that says the current value of its key was wrong ("I misspoke: ...").

    The wrong one is retracted in record time (reads at an earlier knownAt still show it); the
    new one holds from when the wrong one did, since it was true all along.
    """
    f_from = to_ms(f.valid_from)
    wrong = [o for o in live if o.valid_to is None and to_ms(o.valid_from) <= f_from]
    start = min([f.valid_from, *(o.valid_from for o in wrong)])
    new = f.model_copy(update={"recorded_at": from_ms(now_ms), "valid_from": start})
    plan.retract.extend((f.id, o.id) for o in wrong)
    out.invalidated.extend(o.id for o in wrong)
    return new, [*(o for o in live if o not in wrong), new]


def _place(
    f: Fact, live: list[Fact], now_ms: int, plan: _Plan, out: FactOutcome
) -> tuple[Fact, list[Fact]]:
    """Fit a new fact among the current facts of its key; returns it and the new current list.

    A current fact that started no later than `f` and overlaps it is closed at `f`'s start; one
    that starts later means `f` was learned late, so `f` is stored already ended where it starts.
    """
    new = f.model_copy(update={"recorded_at": from_ms(now_ms)})
    f_from = to_ms(f.valid_from)
    keep: list[Fact] = []
    for old in live:
        o_from = to_ms(old.valid_from)
        o_to = OPEN if old.valid_to is None else to_ms(old.valid_to)
        if o_to <= f_from:  # no overlap: old already ended before the new one starts
            keep.append(old)
        elif o_from <= f_from:
            # The new value of the same subject and predicate is the same kind of thing: a
            # database replaced by ClickHouse keeps saying "(database)" for search.
            new = new.model_copy(
                update={
                    "statement": with_category(new.statement, statement_category(old.statement))
                }
            )
            plan.supersede.append(Supersession(old.id, f.id, f_from))
            out.invalidated.append(old.id)
            keep.append(old.model_copy(update={"valid_to": f.valid_from}))  # ended, still known
        else:
            # Learned late: the new fact describes an earlier time that `old` ended. Store it
            # already ended (valid time only; the record stays current) and link old → new.
            end = old.valid_from if new.valid_to is None else min(new.valid_to, old.valid_from)
            new = new.model_copy(update={"valid_to": end})
            plan.late_links.append(Supersession(f.id, old.id, o_from))
            keep.append(old)
    keep.append(new)
    return new, keep


def _plan(
    project: str,
    fresh: Sequence[Fact],
    live: dict[tuple[str, str], list[Fact]],
    now_ms: int,
    out: FactOutcome,
    corrects: frozenset[str] = frozenset(),
) -> _Plan:
    """Decide, oldest event first, what each new fact adds, restates or closes."""
    plan = _Plan()
    for f in sorted(fresh, key=lambda x: (to_ms(x.valid_from), x.id)):
        if f.project != project:
            raise ValueError(f"fact {f.id} belongs to {f.project!r}, not {project!r}")
        k = _key(f)
        obj = normalize_key(f.object)
        same = next((o for o in live[k] if normalize_key(o.object) == obj and _holds(o, f)), None)
        if same is not None:
            merged = _restated(same, f)
            plan.to_write[merged.id] = merged
            live[k] = [merged if o.id == same.id else o for o in live[k]]
            out.reinforced.append(same.id)
            continue
        fit = _correct if f.id in corrects else _place
        new, live[k] = fit(f, live[k], now_ms, plan, out)
        plan.to_write[new.id] = new
        out.added.append(new.id)
    return plan


async def _write(repo: FactRepository, plan: _Plan, out: FactOutcome, now_ms: int) -> None:
    await repo.upsert_many(list(plan.to_write.values()))
    if plan.supersede:
        await repo.supersede(plan.supersede, now=now_ms)
    if plan.late_links:
        await repo.link_supersedes(plan.late_links)
    if plan.retract:
        await repo.retract([old for _, old in plan.retract], now=now_ms)
        await repo.link_contradicts(plan.retract)
    pairs = [
        (fid, t)
        for fid in (*out.added, *out.reinforced)
        for t in plan.to_write[fid].source_turn_ids
    ]
    await repo.link_sources(pairs)


async def _close_contradicted(
    repo: FactRepository,
    fresh: Sequence[Fact],
    contradicts: Sequence[tuple[str, str]],
    out: FactOutcome,
    now_ms: int,
) -> None:
    """Close current facts an added fact explicitly `CONTRADICTS`, whatever their predicate."""
    if contradicts:
        await repo.link_contradicts(contradicts)
    by_id = {f.id: f for f in fresh}
    extra: list[Supersession] = []
    for new_id, old in await repo.contradicted_by(out.added, now=now_ms):
        nf = by_id.get(new_id)
        if old.id in out.invalidated or old.id == new_id or nf is None:
            continue
        extra.append(Supersession(old.id, new_id, to_ms(nf.valid_from)))
        out.invalidated.append(old.id)
    if extra:
        await repo.supersede(extra, now=now_ms)


async def assert_facts(
    repo: FactRepository,
    project: str,
    facts: Sequence[Fact],
    *,
    now_ms: int,
    contradicts: Sequence[tuple[str, str]] = (),
    corrects: frozenset[str] = frozenset(),
) -> FactOutcome:
    """Add `facts` to `project`, applying the scoped invalidation rule.

    Args:
        repo: the fact repository.
        project: project slug (every fact must belong to it).
        facts: new facts; ids should come from `fact_id` so re-runs are no-ops.
        now_ms: record time of this change (epoch ms).
        contradicts: explicit `(new_id, old_id)` contradiction links; the old fact is invalidated
            like a same-key one, whatever its predicate.
        corrects: ids of new facts that say the current value of their key was wrong: that one
            is retracted in record time, and the new one holds from when it did.

    Returns:
        Ids added, reinforced (restated), invalidated and left unchanged (already stored).
    """
    out = FactOutcome()
    if not facts:
        return out
    existing = {f.id for f in await repo.get_many([f.id for f in facts]) if f is not None}
    fresh = [f for f in facts if f.id not in existing]
    out.unchanged.extend(f.id for f in facts if f.id in existing)
    if not fresh:
        return out
    live: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in await repo.live_by_keys(project, sorted({_key(f) for f in fresh}), now=now_ms):
        live[_key(f)].append(f)
    await _write(repo, _plan(project, fresh, live, now_ms, out, corrects), out, now_ms)
    await _close_contradicted(repo, fresh, contradicts, out, now_ms)
    return out
