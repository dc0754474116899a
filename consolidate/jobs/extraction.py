"""extraction: knowledge the graph should hold but does not yet, as findings.

- themes: a topic discussed in `theme_sessions`+ sessions that no lesson covers (no shared source
  turn, no shared keyword) → `create_lesson`;
- todos pending for `todo_sessions`+ later sessions → `keep` (surface them);
- decisions without a lesson covering them → `create_lesson`.
"""

from __future__ import annotations

from bisect import bisect_right

from consolidate.models import JobContext, JobResult
from consolidate.text import clip
from core.text import content_words
from graph.models import Finding
from graph.repositories.communities import CommunityRepository
from graph.repositories.rem import RemRepository

MAX_PER_KIND = 50
"""Findings proposed per kind and run (the rest are counted)."""


async def run(ctx: JobContext) -> JobResult:
    """Propose lessons for recurring themes and decisions; surface long-pending todos."""
    cfg = ctx.settings.consolidate
    rem = RemRepository(ctx.db)
    pf = ctx.project_filter
    topics = await rem.topics(pf, ctx.now_ms)
    nodes = await CommunityRepository(ctx.db).project_nodes(pf, ctx.now_ms)
    lessons = [n for n in nodes if n["kind"] == "lesson"]
    lesson_turns = {t for n in lessons for t in n["turn_ids"] or []}
    lesson_words = {w for n in lessons for k in (n["keywords"] or []) for w in content_words(k)}
    lesson_words |= {w for n in lessons for w in content_words(n["title"] or "")}
    findings: list[Finding] = []
    counts = {"themes": 0, "pending_todos": 0, "decisions": 0}

    for t in sorted(topics, key=lambda t: (-len(t["sessions"] or []), t["id"])):
        sessions = set(t["sessions"] or [])
        if len(sessions) < cfg.theme_sessions:
            continue
        covered_by_turns = bool(set(t["message_ids"] or []) & lesson_turns)
        words = {w for k in (t["keywords"] or []) for w in content_words(k)} | set(
            content_words(t["title"])
        )
        if covered_by_turns or (words and words <= lesson_words):
            continue
        counts["themes"] += 1
        if counts["themes"] <= MAX_PER_KIND:
            findings.append(
                ctx.finding(
                    "theme_without_lesson",
                    f"recurring theme without a lesson: {clip(t['title'], 60)}",
                    f"discussed in {len(sessions)} sessions "
                    f"({int(t['message_count'] or 0)} mentions); "
                    f"keywords: {', '.join((t['keywords'] or [])[:8])}",
                    [t["id"]],
                    "create_lesson",
                )
            )

    facts = await rem.open_facts(pf, ctx.now_ms)
    starts = await rem.session_starts(pf, ctx.now_ms)
    for f in sorted(facts, key=lambda f: (int(f["valid_from"] or 0), f["id"])):
        if f["kind"] == "todo":
            later = len(starts) - bisect_right(starts, int(f["valid_from"] or 0))
            if later >= cfg.todo_sessions:
                counts["pending_todos"] += 1
                if counts["pending_todos"] <= MAX_PER_KIND:
                    findings.append(
                        ctx.finding(
                            "pending_todo",
                            f"todo pending for {later} sessions",
                            clip(f["statement"] or f["subject"] or "", 200),
                            [f["id"]],
                            "keep",
                        )
                    )
        elif f["kind"] == "decision":
            turns = set(f["turn_ids"] or [])
            words = set(content_words(f["statement"] or ""))
            if turns & lesson_turns or (words and len(words & lesson_words) >= 0.6 * len(words)):
                continue
            counts["decisions"] += 1
            if counts["decisions"] <= MAX_PER_KIND:
                findings.append(
                    ctx.finding(
                        "decision_without_lesson",
                        f"decision to keep as a lesson: {clip(f['statement'] or '', 60)}",
                        clip(f["statement"] or "", 300),
                        [f["id"]],
                        "create_lesson",
                    )
                )
    return JobResult(
        summary={"topics": len(topics), "facts": len(facts), **counts}, findings=findings
    )
