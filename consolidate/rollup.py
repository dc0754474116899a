"""Pure rollup rendering: source items and session digests → a Markdown primer within budget.

A daily primer narrates what happened (per session: time, speakers, themes, its stored summary,
then the salient sentences the summary does not restate, attributed), then lists corrections
and rules, decisions, lessons, open items and facts. A weekly primer summarises its days and a
monthly one its weeks the same way: one block per child with its themes, its sessions' summaries
and a capped share of their most salient sentences, then the period's decisions, lessons and
changes. The knowledge sections are always whole; the narrative fills the room left up to the
tier's target size (the top of the seed's range), round-robin by salience across blocks so every
session or day gets its summary and best sentences first. If the knowledge alone exceeds the
tier's maximum even with the tightest per-item length, the narrative shrinks to one line per
block at the end and the text is cut at a line boundary and flagged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from consolidate.digest import Line, pick
from consolidate.text import clip, fit_bytes, utf8_len
from graph.rows import RollupSource

CLIPS = (320, 160, 100, 60, 40)
"""Per-item character limits tried in turn."""

_SECTIONS = (
    ("correction", "Corrections and rules"),
    ("decision", "Decisions"),
    ("lesson", "Lessons"),
    ("todo", "Open items"),
    ("fact", "Facts and changes"),
    ("session", "Sessions"),
)


SourceItem = RollupSource
"""One thing a primer mentions (a `primer.sources` row)."""


@dataclass(frozen=True)
class Block:
    """One child of a primer's narrative: a session (daily), a day (weekly) or a week (monthly).

    Attributes:
        heading: the block's heading line (without `###`).
        notes: fixed lines under it (themes, a stored summary).
        pool: its sentences, most salient first; as many as fit are shown, in time order.
        ids: the session ids it covers (their `session` items are not listed again).
        cap: most quoted sentences shown (weekly and monthly blocks summarise, they do not copy).
        lead: sentences of its sessions' stored summaries, offered before any quote and shown
            as a `Summary:` paragraph per session (weekly and monthly blocks).
    """

    heading: str
    notes: tuple[str, ...] = ()
    pool: tuple[Line, ...] = ()
    ids: frozenset[str] = field(default_factory=frozenset)
    cap: int | None = None
    lead: tuple[Line, ...] = ()

    @property
    def offered(self) -> tuple[Line, ...]:
        """What the block may show, best first: its summary sentences, then its capped quotes."""
        return self.lead + self.pool[: self.cap]


def section(item: SourceItem) -> str:
    """The primer section an item is listed in: decisions and todos have their own."""
    if item.kind == "fact":
        return item.sub if item.sub in {"decision", "todo"} else "fact"
    return item.kind


def day_key(d: date) -> str:
    """`2026-11-22`."""
    return d.isoformat()


def week_key(d: date) -> str:
    """ISO week, `2026-W47`."""
    y, w, _ = d.isocalendar()
    return f"{y}-W{w:02d}"


def month_key(d: date) -> str:
    """`2026-11`."""
    return f"{d.year:04d}-{d.month:02d}"


def week_end(d: date) -> date:
    """Sunday of `d`'s ISO week."""
    return d + timedelta(days=7 - d.isoweekday())


def daily_heading(d: date) -> str:
    """`Daily primer 2026-11-22 (Sunday)`."""
    return f"Daily primer {day_key(d)} ({d.strftime('%A')})"


def weekly_heading(d: date) -> str:
    """`Weekly primer 2026-W47 (16 Nov – 22 Nov 2026)` for any day `d` of the week."""
    start = d - timedelta(days=d.isoweekday() - 1)
    end = week_end(d)
    return f"Weekly primer {week_key(d)} ({start:%d %b} – {end:%d %b %Y})"


def monthly_heading(d: date) -> str:
    """`Monthly primer 2026-11 (November 2026)`."""
    return f"Monthly primer {month_key(d)} ({d:%B %Y})"


def _line(item: SourceItem, limit: int) -> str:
    head = clip(item.title, limit) or item.id
    if item.kind == "correction" and item.sub and item.sub != "correction":
        head = f"[{item.sub}] {head}"
    rest = item.text.strip()
    if rest and limit >= 100 and rest != item.title and rest not in item.title:
        head += f" — {clip(rest, limit // 2)}"
    return f"- {head}"


def _knowledge(items: Sequence[SourceItem], limit: int, covered: set[str]) -> list[str]:
    lines: list[str] = []
    for name, title in _SECTIONS:
        group = sorted(
            (i for i in items if section(i) == name and i.id not in covered),
            key=lambda i: (i.at, i.id),
        )
        seen: set[str] = set()
        body: list[str] = []
        for it in group:
            line = _line(it, limit)
            if line not in seen:  # identical lines (repeated sessions, facts) are listed once
                seen.add(line)
                body.append(line)
        if body:
            lines += [f"## {title} ({len(group)})", *body, ""]
    return lines


def _narrative(blocks: Sequence[Block], shown: Iterable[Line], limit: int) -> list[str]:
    by_block: dict[int, list[Line]] = {}
    index = {x: i for i, b in enumerate(blocks) for x in (*b.lead, *b.pool)}
    for x in shown:
        by_block.setdefault(index[x], []).append(x)
    lines = ["## What happened", ""]
    for i, b in enumerate(blocks):
        lines.append(f"### {b.heading}")
        lines += [clip(n, max(limit * 2, 120)) for n in b.notes]
        lines += _shown(by_block.get(i, []))
        lines.append("")
    return lines


_LABEL = re.compile(r"^[A-Z][\w.' -]{0,40}: ")
"""`Caroline: ` / `User: `: a summary sentence kept as its speaker's words (not third person)."""


def _session(xs: Sequence[Line]) -> list[str]:
    """One session's shown lines: its summary as a paragraph, then the quotes it leaves out.

    An agent session's summary is its labelled lines (`User: ...`): then all are bullets, in
    conversation order.
    """
    said = sorted((x for x in xs if x.summary), key=lambda x: x.rank)
    quotes = [x for x in xs if not x.summary]
    if not said or all(_LABEL.match(x.text) for x in said):
        return [f"- {x.text}" for x in sorted(xs, key=lambda x: (x.at, x.ordinal, x.rank))]
    return ["Summary: " + " ".join(x.text for x in said), *(f"- {x.text}" for x in quotes)]


def _shown(xs: Sequence[Line]) -> list[str]:
    """A block's shown lines, session by session (in the order they start)."""
    by_session: dict[str, list[Line]] = {}
    for x in xs:
        by_session.setdefault(x.session_id, []).append(x)
    return [line for group in by_session.values() for line in _session(group)]


def _compose(
    heading: str,
    intro: Sequence[str],
    items: Sequence[SourceItem],
    blocks: Sequence[Block],
    limit: int,
    shown: Sequence[Line] = (),
) -> str:
    covered = {i for b in blocks for i in b.ids}
    lines = [f"# {heading}", ""]
    if intro:
        lines += [*intro, ""]
    if blocks:
        lines += _narrative(blocks, shown, limit)
    lines += _knowledge(items, limit, covered)
    return "\n".join(lines).rstrip() + "\n"


def render(
    heading: str,
    items: Iterable[SourceItem],
    budget: int,
    clips: Sequence[int] = CLIPS,
    *,
    blocks: Sequence[Block] = (),
    intro: Sequence[str] = (),
    target: int | None = None,
) -> tuple[str, bool]:
    """Primer text within `budget` UTF-8 bytes, and whether it had to be cut (flag).

    The narrative of `blocks` fills the room up to `target` bytes (default: `budget`).
    """
    text, cut, _ = narrate(heading, items, budget, clips, blocks=blocks, intro=intro, target=target)
    return text, cut


def narrate(
    heading: str,
    items: Iterable[SourceItem],
    budget: int,
    clips: Sequence[int] = CLIPS,
    *,
    blocks: Sequence[Block] = (),
    intro: Sequence[str] = (),
    target: int | None = None,
) -> tuple[str, bool, tuple[str, ...]]:
    """`render`, plus the ids of the turns whose sentences the text quotes."""
    its = list(items)
    goal = min(target or budget, budget)
    for limit in clips:
        fixed = _compose(heading, intro, its, blocks, limit)
        if utf8_len(fixed) <= budget:
            room = max(0, goal - utf8_len(fixed))
            shown = pick([b.offered for b in blocks], room)
            text = _compose(heading, intro, its, blocks, limit, shown)
            if utf8_len(text) <= budget:
                quoted = tuple(dict.fromkeys(x.turn_id for x in shown if x.turn_id))
                return text, False, quoted
    # too much knowledge for the budget: sessions become one line each, at the end, then cut
    text = _compose(heading, intro, its, (), clips[-1])
    return fit_bytes(text, budget), True, ()
