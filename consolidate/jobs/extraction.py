"""extraction: knowledge the graph should hold but does not yet, as findings.

- themes: a topic discussed in `theme_sessions`+ sessions that no lesson covers (no shared source
  turn, no shared keyword) → `create_lesson`;
- todos pending for `todo_sessions`+ later sessions → `keep` (surface them);
- decisions without a lesson covering them → `create_lesson`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from consolidate.models import JobContext, JobResult
from consolidate.text import clip, generic_label
from core.text import content_words
from graph.models import Finding
from graph.repositories.communities import CommunityRepository
from graph.repositories.rem import RemRepository
from graph.rows import KnowledgeNode, OpenFact, TopicSummary

MAX_PER_KIND = 50
"""Findings proposed per kind and run (the rest are counted)."""

DONE_STATUSES = frozenset({"completed", "complete", "done", "cancelled", "canceled"})
"""Todo statuses that mean the todo is no longer pending."""

DECISION_OVERLAP = 0.6
"""A decision is covered when this share of its words appears in lessons."""


def words_of(titles: Iterable[str], keywords: Iterable[str]) -> set[str]:
    """Content words of some titles and keyword phrases."""
    return {w for text in (*titles, *keywords) for w in content_words(text)}


@dataclass(frozen=True)
class LessonCoverage:
    """What the live lessons already cover: their source turns and their words."""

    turns: frozenset[str]
    words: frozenset[str]

    @classmethod
    def of(cls, lessons: Sequence[KnowledgeNode]) -> LessonCoverage:
        turns = frozenset(t for n in lessons for t in n.turn_ids)
        words = frozenset(
            words_of((n.title for n in lessons), (k for n in lessons for k in n.keywords))
        )
        return cls(turns, words)

    def covers_topic(self, t: TopicSummary) -> bool:
        """A lesson shares a source turn with the topic, or every topic word is a lesson word."""
        words = words_of([t.title], t.keywords)
        return bool(set(t.message_ids) & self.turns) or bool(words and words <= self.words)

    def covers_decision(self, f: OpenFact) -> bool:
        """A lesson shares a source turn with the decision, or most of its words."""
        words = set(content_words(f.statement))
        if set(f.turn_ids) & self.turns:
            return True
        return bool(words) and len(words & self.words) >= DECISION_OVERLAP * len(words)


@dataclass
class Proposals:
    """Findings of one run, at most `MAX_PER_KIND` per kind; every candidate is counted."""

    counts: dict[str, int] = field(
        default_factory=lambda: {
            "themes": 0,
            "generic_themes_skipped": 0,
            "pending_todos": 0,
            "decisions": 0,
        }
    )
    findings: list[Finding] = field(default_factory=list)

    def add(self, counter: str, finding: Finding) -> None:
        self.counts[counter] += 1
        if self.counts[counter] <= MAX_PER_KIND:
            self.findings.append(finding)


def propose_themes(
    ctx: JobContext, topics: Sequence[TopicSummary], lessons: LessonCoverage, out: Proposals
) -> None:
    """Recurring topics (most sessions first) that no lesson covers."""
    for t in sorted(topics, key=lambda t: (-len(t.sessions), t.id)):
        sessions = set(t.sessions)
        if len(sessions) < ctx.settings.consolidate.theme_sessions or lessons.covers_topic(t):
            continue
        if generic_label(t.title):
            out.counts["generic_themes_skipped"] += 1
            continue
        out.add(
            "themes",
            ctx.finding(
                "theme_without_lesson",
                f"lesson to write about the recurring topic: {clip(t.title, 60)}",
                f"topic {t.id} came up in {len(sessions)} sessions ({t.message_count} mentions) "
                f"and no lesson shares a turn or its words"
                + (f" ({', '.join(t.keywords[:6])})" if t.keywords else "")
                + "; record what was learnt about it",
                [t.id],
                "create_lesson",
                evidence=f"sessions={len(sessions)}|{t.title}",
            ),
        )


def propose_from_facts(
    ctx: JobContext,
    facts: Sequence[OpenFact],
    starts: Sequence[int],
    lessons: LessonCoverage,
    out: Proposals,
) -> None:
    """Todos open across many later sessions, and decisions no lesson covers (oldest first)."""
    for f in sorted(facts, key=lambda f: (f.valid_from_ms, f.id)):
        if f.kind == "todo":
            if f.object.strip().lower() in DONE_STATUSES:
                continue  # a completed todo is not pending
            later = len(starts) - bisect_right(starts, f.valid_from_ms)
            if later >= ctx.settings.consolidate.todo_sessions:
                out.add("pending_todos", _pending_todo(ctx, f, later))
        elif f.kind == "decision" and not lessons.covers_decision(f):
            out.add("decisions", _decision(ctx, f))


def _pending_todo(ctx: JobContext, f: OpenFact, later: int) -> Finding:
    return ctx.finding(
        "pending_todo",
        f"todo still open: {clip(f.statement or f.subject, 60)}",
        f"fact {f.id} has been open for {later} later sessions: "
        f"{clip(f.statement or f.subject, 200)}; finish it, or close it if it no longer applies",
        [f.id],
        "keep",
    )


def _decision(ctx: JobContext, f: OpenFact) -> Finding:
    return ctx.finding(
        "decision_without_lesson",
        f"keep the decision as a lesson: {clip(f.statement, 60)}",
        f"decision {f.id} ({clip(f.statement, 200)}) is covered by no lesson; "
        "record why it was made and what it replaced",
        [f.id],
        "create_lesson",
    )


async def run(ctx: JobContext) -> JobResult:
    """Propose lessons for recurring themes and decisions; surface long-pending todos."""
    rem = RemRepository(ctx.db)
    pf = ctx.project_filter
    topics = await rem.topics(pf, ctx.now_ms)
    nodes = await CommunityRepository(ctx.db).project_nodes(pf, ctx.now_ms)
    lessons = LessonCoverage.of([n for n in nodes if n.kind == "lesson"])
    out = Proposals()
    propose_themes(ctx, topics, lessons, out)
    facts = await rem.open_facts(pf, ctx.now_ms)
    starts = await rem.session_starts(pf, ctx.now_ms)
    propose_from_facts(ctx, facts, starts, lessons, out)
    return JobResult(
        summary={"topics": len(topics), "facts": len(facts), **out.counts}, findings=out.findings
    )
