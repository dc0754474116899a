"""`remgraph rem report --plot FILE.png`: a picture of one project's communities.

Every live topic, lesson, correction and fact of the project (read with `ExportRepository`, the
same scoped, current view `remgraph export` writes) is a dot coloured by its community in the
current Leiden run and sized by its weight (a topic's or lesson's weight, a correction's or fact's
confidence); the marker shows the kind (circle topic, square lesson, triangle correction, diamond
fact). The heaviest topics are labelled and the largest communities named in the legend. Each
community has an invisible hub on a circle and its members are laid out around it, so communities
come out as clusters.

matplotlib is an optional dependency (`pip install 'remgraph[plot]'`); without it the command
says so instead of failing on an import.
"""

from __future__ import annotations

import importlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import networkx as nx

from graph.db import GraphDB
from graph.models import Community, Correction, Fact, Lesson, Session, Topic
from graph.repositories.exports import ExportGraph, ExportRepository
from graph.rows import ExportNode

LABELLED_TOPICS = 12
"""How many of the heaviest topics get their title on the picture."""
LEGEND_COMMUNITIES = 10
"""How many of the largest communities the legend names."""
_SEED = 7
_UNASSIGNED = "#bbbbbb"
_MARKERS: dict[type[ExportNode], str] = {Topic: "o", Lesson: "s", Correction: "^", Fact: "D"}
"""Marker per kind: circle, square, triangle, diamond."""


class PlotError(Exception):
    """The picture cannot be drawn (matplotlib missing, nothing to draw); the message says why."""


@dataclass(frozen=True)
class PlotSummary:
    """What the picture shows."""

    path: Path
    items: int
    communities: int
    labelled: tuple[str, ...]
    """Titles of the labelled topics, heaviest first."""


def weight_of(node: ExportNode) -> float:
    """How big a dot is: a topic's or lesson's weight, a correction's or fact's confidence."""
    if isinstance(node, Topic | Lesson):
        return max(node.weight, 0.0)
    if isinstance(node, Correction | Fact):
        return node.confidence
    return 0.0


def _pyplot() -> Any:
    try:
        mpl = importlib.import_module("matplotlib")
    except ImportError as e:
        raise PlotError(
            "--plot needs matplotlib, an optional dependency: pip install 'remgraph[plot]'"
        ) from e
    mpl.use("Agg")  # files only, never a window
    return importlib.import_module("matplotlib.pyplot")


@dataclass(frozen=True)
class _Picture:
    items: list[Topic | Lesson | Correction | Fact]
    community_of: dict[str, str]
    communities: list[Community]
    """Largest first."""
    links: list[tuple[str, str, float]]


def _picture(graph: ExportGraph) -> _Picture:
    items = [n for n in graph.nodes if not isinstance(n, Community | Session)]
    ids = {n.id for n in items}
    community_of = {
        e.source_id: e.target_id
        for e in graph.edges
        if e.type == "IN_COMMUNITY" and e.source_id in ids
    }
    sizes = Counter(community_of.values())
    communities = sorted(
        (n for n in graph.nodes if isinstance(n, Community) and sizes[n.id]),
        key=lambda c: (-sizes[c.id], c.id),
    )
    links = [
        (e.source_id, e.target_id, e.weight or 0.5)
        for e in graph.edges
        if e.source_id in ids and e.target_id in ids
    ]
    return _Picture(items, community_of, communities, links)


def _layout(p: _Picture) -> dict[str, Any]:
    """Community hubs fixed on a circle (largest first), members sprung around their hub."""
    g = nx.Graph()
    g.add_nodes_from(sorted(n.id for n in p.items))
    hubs = [f"hub:{c.id}" for c in p.communities]
    g.add_nodes_from(hubs)
    for member, community in sorted(p.community_of.items()):
        g.add_edge(member, f"hub:{community}", weight=1.0)
    for a, b, w in p.links:
        g.add_edge(a, b, weight=w)
    fixed = nx.circular_layout(hubs) if len(hubs) > 1 else dict.fromkeys(hubs, (0.0, 0.0))
    k = 0.6 / max(len(g) ** 0.5, 1.0)
    pos = nx.spring_layout(
        g, pos=fixed, fixed=hubs, k=k, iterations=200, seed=_SEED, weight="weight"
    )
    return dict(pos)


def draw(graph: ExportGraph, path: Path, *, title: str) -> PlotSummary:
    """Draw `graph`'s communities to the PNG `path` (pure: no reads)."""
    p = _picture(graph)
    if not p.communities:
        raise PlotError(
            "no communities to draw: run `remgraph rem job communities` for this project first"
        )
    plt = _pyplot()
    pos = _layout(p)
    palette = plt.get_cmap("tab10").colors
    colour = {c.id: palette[i % len(palette)] for i, c in enumerate(p.communities)}
    top = max((weight_of(n) for n in p.items), default=0.0) or 1.0
    fig, ax = plt.subplots(figsize=(10, 7.5), dpi=90)
    for a, b, _ in p.links:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ax.plot([xa, xb], [ya, yb], color="#999999", alpha=0.25, linewidth=0.6, zorder=1)
    for kind, marker in _MARKERS.items():
        group = [n for n in p.items if isinstance(n, kind)]
        if not group:
            continue
        ax.scatter(
            [pos[n.id][0] for n in group],
            [pos[n.id][1] for n in group],
            s=[25 + 475 * weight_of(n) / top for n in group],
            c=[colour.get(p.community_of.get(n.id, ""), _UNASSIGNED) for n in group],
            marker=marker,
            edgecolors="white",
            linewidths=0.5,
            zorder=2,
        )
    topics = sorted(
        (n for n in p.items if isinstance(n, Topic)), key=lambda t: (-t.weight, t.title)
    )[:LABELLED_TOPICS]
    for t in topics:
        x, y = pos[t.id]
        text = t.title if len(t.title) <= 28 else t.title[:27] + "…"
        ax.annotate(text, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=8, zorder=3)
    sizes = Counter(p.community_of.values())
    for c in p.communities[:LEGEND_COMMUNITIES]:
        name = (c.title or c.id)[:40]
        ax.scatter([], [], color=colour[c.id], s=40, label=f"{name} ({sizes[c.id]})")
    for kind, marker in _MARKERS.items():
        ax.scatter([], [], color="#666666", marker=marker, s=40, label=kind.__name__.lower())
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title)
    ax.set_axis_off()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return PlotSummary(path, len(p.items), len(p.communities), tuple(t.title for t in topics))


async def plot_communities(
    db: GraphDB, project: str, path: Path, *, now: datetime | None = None
) -> PlotSummary:
    """Read `project`'s current knowledge and communities and draw them to the PNG `path`."""
    graph = await ExportRepository(db).project_graph(project, as_of=now, known_at=now)
    items = sum(1 for n in graph.nodes if not isinstance(n, Community))
    title = f"{project}: {items} knowledge items in their communities"
    return draw(graph, path, title=title)
