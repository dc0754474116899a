"""`remgraph rem report --html FILE`: a self-contained HTML report with four plots.

- **topic weights over time**: each day's weight of the heaviest topics, recomputed from their
  mentions up to that day with the topic rule the `topic_weights` job uses
  (`knowledge.topics.topic_standing`), so the curve ends at the weight the job gives today;
- **graduation funnel**: how many open corrections reached each stage, candidate → correction →
  pattern → preference → rule (a confirmed correction counts as a rule);
- **community sizes**: members per community of the current Leiden run;
- **ingest volume per day**: turns recorded per day (when remgraph learned them).

The file needs nothing else: inline CSS and SVG, no script, no font or image to fetch (a
Content-Security-Policy forbids loading anything). All text from the graph is escaped.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from consolidate.config import ConsolidateSettings
from consolidate.models import ALL_PROJECTS
from core.timeutil import DAY_MS, to_ms
from graph.db import GraphDB
from graph.models import CorrectionStatus
from graph.repositories.communities import CommunityRepository
from graph.repositories.jobs import JobRepository
from graph.repositories.reports import IngestDay, ReportRepository, StatusCount, TopicDay
from knowledge.rules import status_with_confirmation
from knowledge.scoring import STATUS_ORDER
from knowledge.topics import TopicActivity, TopicRules, topic_standing

STAGES: tuple[CorrectionStatus, ...] = ("candidate", "correction", "pattern", "preference", "rule")
TOP_TOPICS = 6
MAX_DAYS = 180
"""Days shown in the time plots (the most recent ones)."""
PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777")


@dataclass(frozen=True)
class Series:
    """One topic's weight per day (`points`: day since the epoch, weight)."""

    topic_id: str
    title: str
    points: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class ReportData:
    """Everything the HTML report shows."""

    project: str
    generated_at: datetime
    topics: tuple[Series, ...]
    funnel: tuple[tuple[str, int], ...]
    communities: tuple[tuple[str, int], ...]
    ingest: tuple[IngestDay, ...]


# -- data -----------------------------------------------------------------------------------------


def weights_over_time(
    rows: Sequence[TopicDay], *, rules: TopicRules, top: int = TOP_TOPICS
) -> list[Series]:
    """Per topic, its weight as of the end of each day from its first mention to the last day.

    The heaviest `top` topics by their final weight, heaviest first.
    """
    if not rows:
        return []
    last_day = max(r.day for r in rows)
    by_topic: dict[str, list[TopicDay]] = defaultdict(list)
    for r in rows:
        by_topic[r.topic_id].append(r)
    out = []
    for topic_id, days in by_topic.items():
        by_day: dict[int, list[TopicDay]] = defaultdict(list)
        for r in days:
            by_day[r.day].append(r)
        count, sessions, projects, seen = 0, set[str](), set[str](), None
        points = []
        start = max(min(by_day), last_day - MAX_DAYS + 1)
        for day in range(min(by_day), last_day + 1):
            for r in by_day.get(day, ()):
                count += r.mentions
                sessions.update(r.sessions)
                projects.add(r.project)
                seen = day
            if seen is None or day < start:
                continue
            activity = TopicActivity(
                topic_id, count, max(1, len(sessions)), len(projects), seen * DAY_MS
            )
            points.append((day, round(topic_standing(activity, day * DAY_MS, rules).weight, 4)))
        out.append(Series(topic_id, days[0].title, tuple(points)))
    out.sort(key=lambda s: (-(s.points[-1][1] if s.points else 0.0), s.title))
    return out[:top]


def graduation_funnel(counts: Sequence[StatusCount]) -> list[tuple[str, int]]:
    """How many open corrections reached each stage (a status never moves backwards)."""
    reached = dict.fromkeys(STAGES, 0)
    for c in counts:
        status = c.status if c.status in STATUS_ORDER else "correction"
        rank = STATUS_ORDER[status_with_confirmation(status, c.confirmed)]
        for stage in STAGES:
            if STATUS_ORDER[stage] <= rank:
                reached[stage] += c.count
    return list(reached.items())


async def _communities(db: GraphDB, project: str) -> list[tuple[str, int]]:
    """Members per community of the current Leiden run of `project`.

    For `*`, of each project's run (communities are computed per project), labelled with it.
    """
    cr = CommunityRepository(db)
    projects = await JobRepository(db).projects() if project == ALL_PROJECTS else [project]
    out: list[tuple[str, int]] = []
    for p in projects:
        run = await cr.current_run(p)
        if run is None:
            continue
        label = "" if project != ALL_PROJECTS else f"{p}: "
        out += [
            (label + (c.title or c.id), c.size)
            for c in await cr.list_communities(run.id)
            if c.size > 0
        ]
    return out


async def collect(
    db: GraphDB, project: str, settings: ConsolidateSettings, now: datetime | None = None
) -> ReportData:
    """Read what the report shows for `project` (`*` = every project)."""
    now = now or datetime.now(UTC)
    ms = to_ms(now)
    repo = ReportRepository(db)
    scope = [project]
    topics = weights_over_time(
        await repo.topic_mentions_by_day(scope, ms),
        rules=settings.topics,
    )
    funnel = graduation_funnel(await repo.correction_statuses(scope, ms))
    communities = await _communities(db, project)
    ingest = (await repo.turns_per_day(scope, ms))[-MAX_DAYS:]
    return ReportData(
        project=project,
        generated_at=now,
        topics=tuple(topics),
        funnel=tuple(funnel),
        communities=tuple(communities),
        ingest=tuple(ingest),
    )


# -- SVG ------------------------------------------------------------------------------------------

W, H = 880, 340
PAD_L, PAD_R, PAD_T, PAD_B = 56, 24, 16, 96


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _day(d: int) -> str:
    return (date(1970, 1, 1) + timedelta(days=d)).isoformat()


def _axis(y_max: float, label: str) -> list[str]:
    parts = [
        f'<line class="axis" x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}"/>',
        f'<line class="axis" x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{H - PAD_B}"/>',
    ]
    for i in range(5):
        v = y_max * i / 4
        y = H - PAD_B - (H - PAD_T - PAD_B) * i / 4
        text = f"{v:.2f}" if y_max <= 1.5 else f"{v:.0f}"
        parts.append(
            f'<text class="tick" x="{PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end">{text}</text>'
        )
        if i:
            parts.append(
                f'<line class="grid" x1="{PAD_L}" y1="{y:.1f}" x2="{W - PAD_R}" y2="{y:.1f}"/>'
            )
    parts.append(
        f'<text class="tick" x="14" y="{PAD_T + (H - PAD_T - PAD_B) / 2:.0f}" '
        f'transform="rotate(-90 14 {PAD_T + (H - PAD_T - PAD_B) / 2:.0f})" '
        f'text-anchor="middle">{_esc(label)}</text>'
    )
    return parts


def _svg(name: str, label: str, body: Sequence[str], height: int = H) -> str:
    return (
        f'<svg class="chart" data-chart="{name}" role="img" aria-label="{_esc(label)}" '
        f'viewBox="0 0 {W} {height}" width="{W}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(body)}</svg>'
    )


def line_chart(series: Sequence[Series]) -> str:
    """Weights (0–1) per day, one polyline per topic, dated x axis."""
    days = [d for s in series for d, _ in s.points]
    lo, hi = min(days), max(days)
    span = max(1, hi - lo)
    y_max = max(0.05, max(w for s in series for _, w in s.points))
    y_max = min(1.0, round(y_max * 1.1 + 0.005, 2))

    def xy(d: int, w: float) -> str:
        x = PAD_L + (W - PAD_L - PAD_R) * (d - lo) / span
        y = H - PAD_B - (H - PAD_T - PAD_B) * min(w, y_max) / y_max
        return f"{x:.1f},{y:.1f}"

    body = _axis(y_max, "weight")
    for i, s in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        pts = " ".join(xy(d, w) for d, w in s.points)
        if len(s.points) == 1:
            cx, cy = xy(*s.points[0]).split(",")
            body.append(f'<circle class="series" cx="{cx}" cy="{cy}" r="4" fill="{colour}"/>')
        else:
            body.append(
                f'<polyline class="series" points="{pts}" fill="none" stroke="{colour}" '
                f'stroke-width="2"><title>{_esc(s.title)}</title></polyline>'
            )
    for d in sorted({lo, hi, lo + span // 2}):
        x = PAD_L + (W - PAD_L - PAD_R) * (d - lo) / span
        anchor = "start" if d == lo else "end" if d == hi else "middle"
        body.append(
            f'<text class="tick" x="{x:.1f}" y="{H - PAD_B + 18}" '
            f'text-anchor="{anchor}">{_day(d)}</text>'
        )
    return _svg("topic-weights", "Topic weights over time", body)


def bar_chart(name: str, label: str, items: Sequence[tuple[str, int]], y_label: str) -> str:
    """Vertical bars with their values on top and (rotated) labels below."""
    y_max = -(-max(1, max(v for _, v in items)) // 4) * 4  # a multiple of 4: whole-number ticks
    n = len(items)
    slot = (W - PAD_L - PAD_R) / n
    bar = min(64.0, max(2.0, slot * 0.7))
    body = _axis(float(y_max), y_label)
    for i, (text, value) in enumerate(items):
        x = PAD_L + slot * i + (slot - bar) / 2
        h = (H - PAD_T - PAD_B) * value / y_max
        y = H - PAD_B - h
        body.append(
            f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
            f'fill="{PALETTE[0]}"><title>{_esc(text)}: {value}</title></rect>'
        )
        if n <= 40:
            body.append(
                f'<text class="value" x="{x + bar / 2:.1f}" y="{y - 4:.1f}" '
                f'text-anchor="middle">{value}</text>'
            )
        if n <= 40 or i % max(1, n // 12) == 0:
            short = text if len(text) <= 18 else text[:17] + "…"
            lx, ly = x + bar / 2, H - PAD_B + 12
            body.append(
                f'<text class="tick" x="{lx:.1f}" y="{ly:.1f}" text-anchor="end" '
                f'transform="rotate(-35 {lx:.1f} {ly:.1f})">{_esc(short)}</text>'
            )
    return _svg(name, label, body)


def funnel_chart(stages: Sequence[tuple[str, int]]) -> str:
    """Horizontal bars, widest first: correction → pattern → preference → rule."""
    top = max(1, max(v for _, v in stages))
    row, height = 44, 44 * len(stages) + 16
    body = []
    for i, (stage, value) in enumerate(stages):
        w = (W - 260) * value / top
        x = 140 + (W - 260 - w) / 2
        y = 8 + i * row
        body.append(
            f'<rect class="bar" x="{x:.1f}" y="{y}" width="{max(w, 1.0):.1f}" height="{row - 10}" '
            f'fill="{PALETTE[i % len(PALETTE)]}"><title>{stage}: {value}</title></rect>'
        )
        body.append(
            f'<text class="label" x="130" y="{y + row / 2:.0f}" text-anchor="end">{stage}</text>'
        )
        body.append(f'<text class="value" x="{W - 110}" y="{y + row / 2:.0f}">{value}</text>')
    return _svg("graduation", "Graduation funnel", body, height)


# -- HTML -----------------------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, -apple-system, Segoe UI, sans-serif; margin: 2em auto;
       max-width: 960px; color: #1f2937; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.2em; margin-top: 2em; }
.meta, figcaption, .empty { color: #6b7280; font-size: 0.9em; }
svg.chart { max-width: 100%; height: auto; background: #fff; }
.axis { stroke: #9ca3af; } .grid { stroke: #e5e7eb; }
.tick { font-size: 11px; fill: #4b5563; } .value, .label { font-size: 12px; fill: #111827; }
.legend { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; margin: 0.4em 0; font-size: 0.9em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em;
          vertical-align: -0.1em; border-radius: 2px; }
table { border-collapse: collapse; font-size: 0.85em; margin-top: 0.5em; }
td, th { border: 1px solid #e5e7eb; padding: 0.2em 0.6em; text-align: left; }
"""


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    th = "".join(f"<th>{_esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<details><summary>data</summary><table><tr>{th}</tr>{body}</table></details>"


def _section(id: str, title: str, figure: str | None, caption: str, table: str) -> str:
    inner = (
        f"<figure>{figure}<figcaption>{_esc(caption)}</figcaption></figure>{table}"
        if figure
        else f'<p class="empty">No data yet. {_esc(caption)}</p>'
    )
    return f'<section id="{id}"><h2>{_esc(title)}</h2>{inner}</section>'


def render_html(data: ReportData) -> str:
    """The report as one HTML document."""
    label = "all projects" if data.project == "*" else f"project {data.project}"
    parts = []
    if data.topics and any(s.points for s in data.topics):
        legend = "".join(
            f'<span><span class="swatch" style="background:{PALETTE[i % len(PALETTE)]}"></span>'
            f"{_esc(s.title)}</span>"
            for i, s in enumerate(data.topics)
        )
        figure = f'<div class="legend">{legend}</div>' + line_chart(data.topics)
        rows = [(s.title, _day(s.points[-1][0]), s.points[-1][1]) for s in data.topics]
        table = _table(("topic", "last day", "weight"), rows)
    else:
        figure, table = None, ""
    parts.append(
        _section(
            "topic-weights",
            "Topic weights over time",
            figure,
            "Each day's weight (0.3·frequency + 0.3·recency + 0.2·depth + 0.2·engagement) of the "
            f"{TOP_TOPICS} heaviest topics, from their mentions up to that day.",
            table,
        )
    )
    has_corrections = any(v for _, v in data.funnel)
    parts.append(
        _section(
            "graduation",
            "Graduation funnel",
            funnel_chart(data.funnel) if has_corrections else None,
            "Open corrections that reached each stage: correction → pattern (2 sessions) → "
            "preference (4) → rule (5, or confirmed).",
            _table(("stage", "corrections"), data.funnel) if has_corrections else "",
        )
    )
    parts.append(
        _section(
            "communities",
            "Community sizes",
            bar_chart("communities", "Community sizes", data.communities, "members")
            if data.communities
            else None,
            "Members per community of the current Leiden run (`remgraph rem job communities`).",
            _table(("community", "members"), data.communities) if data.communities else "",
        )
    )
    ingest_items = [(_day(d.day), d.turns) for d in data.ingest]
    parts.append(
        _section(
            "ingest",
            "Ingest volume per day",
            bar_chart("ingest", "Ingest volume per day", ingest_items, "turns")
            if ingest_items
            else None,
            "Turns recorded per day (the day remgraph ingested them).",
            _table(
                ("day", "turns", "sessions"),
                [(_day(d.day), d.turns, d.sessions) for d in data.ingest],
            )
            if ingest_items
            else "",
        )
    )
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>remgraph report: {_esc(label)}</title><style>{CSS}</style></head><body>"
        f"<h1>remgraph report: {_esc(label)}</h1>"
        f'<p class="meta">Generated {_esc(data.generated_at.isoformat(timespec="seconds"))} '
        "by <code>remgraph rem report --html</code>.</p>" + "".join(parts) + "</body></html>\n"
    )


def write_html(path: Path, data: ReportData) -> None:
    """Write the report to `path` (folders created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(data), encoding="utf-8")
