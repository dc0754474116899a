"""Pure graph building for the communities job: projection rows → weighted edges → summaries.

Edge sources, each summed into one undirected weight per pair:
- shared provenance: items derived from (or topics mentioned in) the same turn get 1.0; items from
  the same session share 0.5 spread over the session's items (big sessions do not dominate);
- explicit links: `RELATED_TO` (its co-occurrence weight), `DUPLICATE_OF` 1.0, `SUPERSEDES` and
  `CONTRADICTS` 0.5;
- embedding similarity: cosine ≥ threshold to one of an item's `k` nearest neighbours (blocked
  matrix products, so memory stays bounded).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from consolidate.text import clip, jaccard, top_keywords
from graph.rows import KnowledgeLink, KnowledgeNode, Provenance

LINK_WEIGHTS = {"RELATED_TO": 1.0, "DUPLICATE_OF": 1.0, "SUPERSEDES": 0.5, "CONTRADICTS": 0.5}
"""Default weight per explicit link type (RELATED_TO uses its stored weight when present)."""

SESSION_CLIQUE_MAX = 200
"""Sessions with more items than this are linked as a ring instead of a clique."""


@dataclass
class EdgeBuilder:
    """Accumulates undirected weighted edges between known node ids."""

    known: set[str]
    weights: dict[tuple[str, str], float] = field(default_factory=dict)

    def add(self, a: str, b: str, w: float) -> None:
        if a == b or w <= 0 or a not in self.known or b not in self.known:
            return
        key = (a, b) if a < b else (b, a)
        self.weights[key] = self.weights.get(key, 0.0) + w

    def edges(self) -> list[tuple[str, str, float]]:
        return [(a, b, w) for (a, b), w in sorted(self.weights.items())]


def _group_edges(
    eb: EdgeBuilder, groups: Mapping[str, set[str]], *, total: float, per_pair: bool
) -> None:
    for _, members in sorted(groups.items()):
        items = sorted(members)
        k = len(items)
        if k < 2:
            continue
        if k > SESSION_CLIQUE_MAX:
            for i in range(k):
                eb.add(items[i], items[(i + 1) % k], total)
            continue
        w = total if per_pair else total / (k - 1)
        for i in range(k):
            for j in range(i + 1, k):
                eb.add(items[i], items[j], w)


def build_edges(
    nodes: Sequence[KnowledgeNode],
    provenance: Iterable[Provenance] = (),
    links: Iterable[KnowledgeLink] = (),
    similar: Iterable[tuple[str, str, float]] = (),
) -> list[tuple[str, str, float]]:
    """All weighted edges between `nodes` (sorted, deterministic)."""
    eb = EdgeBuilder(known={n.id for n in nodes})
    by_turn: dict[str, set[str]] = defaultdict(set)
    by_session: dict[str, set[str]] = defaultdict(set)
    for n in nodes:
        for t in n.turn_ids:
            by_turn[t].add(n.id)
        for s in n.session_ids:
            by_session[s].add(n.id)
    for r in provenance:
        if r.turn_id:
            by_turn[r.turn_id].add(r.item_id)
        if r.session_id:
            by_session[r.session_id].add(r.item_id)
    _group_edges(eb, by_turn, total=1.0, per_pair=True)
    _group_edges(eb, by_session, total=0.5, per_pair=False)
    for link in links:
        w = link.weight
        if link.type != "RELATED_TO" or w is None:
            w = LINK_WEIGHTS.get(link.type, 0.5)
        eb.add(link.source_id, link.target_id, w)
    for a, b, sim in similar:
        eb.add(a, b, float(sim))
    return eb.edges()


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: np.ndarray = matrix / norms
    return out


def similar_pairs(
    ids: Sequence[str],
    vectors: np.ndarray,
    *,
    threshold: float,
    k: int = 10,
    block: int | None = None,
) -> list[tuple[str, str, float]]:
    """Pairs (a < b) whose cosine ≥ `threshold`, among each item's `k` nearest neighbours."""
    n = len(ids)
    if n < 2:
        return []
    unit = normalize_rows(np.asarray(vectors, dtype=np.float32))
    found: dict[tuple[str, str], float] = {}
    kk = min(k, n - 1)
    # about 32M similarities (128 MB of float32) per block, whatever n
    step = block or max(16, min(4_096, 32_000_000 // n))
    for start in range(0, n, step):
        sims = unit[start : start + step] @ unit.T
        rows_idx = np.arange(sims.shape[0])
        sims[rows_idx, start + rows_idx] = -1.0  # never pair an item with itself
        rr, cc = np.nonzero(sims >= threshold)
        if not len(rr):
            continue
        vals = sims[rr, cc]
        order = np.lexsort((cc, -vals, rr))  # by row, most similar first, ties by column
        rr, cc, vals = rr[order], cc[order], vals[order]
        rank = np.arange(len(rr)) - np.searchsorted(rr, rr)  # position within its row
        keep = rank < kk
        for r, c, val in zip(
            rr[keep].tolist(), cc[keep].tolist(), vals[keep].tolist(), strict=True
        ):
            a, b = ids[start + r], ids[c]
            key = (a, b) if a < b else (b, a)
            found[key] = max(found.get(key, 0.0), val)
    return [(a, b, s) for (a, b), s in sorted(found.items())]


@dataclass(frozen=True)
class Description:
    """Extractive description of a community."""

    title: str
    keywords: tuple[str, ...]
    summary: str


def describe(members: Sequence[KnowledgeNode], *, max_keywords: int = 8) -> Description:
    """Title, keywords and summary of a group of items, extractively (no model needed).

    Keywords: most frequent explicit keywords and title words. Title: the top three keywords.
    Summary: the titles of the heaviest members, one per kind first.
    """
    kws = top_keywords([m.title for m in members], [m.keywords for m in members], k=max_keywords)
    title = ", ".join(kws[:3]) if kws else clip(members[0].title if members else "", 60)
    ranked = sorted(members, key=lambda m: (-m.weight, m.id))
    picked: list[KnowledgeNode] = []
    seen_kinds: set[str] = set()
    for m in ranked:
        if m.kind not in seen_kinds and m.title:
            picked.append(m)
            seen_kinds.add(m.kind)
    for m in ranked:
        if len(picked) >= 5:
            break
        if m not in picked and m.title:
            picked.append(m)
    summary = "; ".join(f"{m.kind}: {clip(m.title, 120)}" for m in picked)
    return Description(title=title or "untitled", keywords=tuple(kws), summary=summary)


@dataclass(frozen=True)
class Delta:
    """How a new partition relates to the previous one."""

    new: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()
    merged: tuple[int, ...] = ()
    split: tuple[str, ...] = ()
    dissolved: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, int]:
        return {
            "new": len(self.new),
            "kept": len(self.kept),
            "merged": len(self.merged),
            "split": len(self.split),
            "dissolved": len(self.dissolved),
        }


def _feeds(
    previous: Mapping[str, set[str]], current: Sequence[set[str]], share: float
) -> tuple[dict[str, list[int]], dict[int, list[str]]]:
    """Which current communities each previous one feeds, and the reverse."""
    where = {m: i for i, members in enumerate(current) for m in members}
    feeds: dict[str, list[int]] = defaultdict(list)
    fed_by: dict[int, list[str]] = defaultdict(list)
    for pid, pmembers in sorted(previous.items()):
        counts: dict[int, int] = defaultdict(int)
        for m in pmembers:
            if m in where:
                counts[where[m]] += 1
        for i, c in counts.items():
            if pmembers and c / len(pmembers) >= share:
                feeds[pid].append(i)
                fed_by[i].append(pid)
    return feeds, fed_by


def compare(
    previous: Mapping[str, set[str]], current: Sequence[set[str]], share: float = 0.3
) -> Delta:
    """Classify current communities against the previous run's.

    A previous community *feeds* a current one when at least `share` of its members moved there.
    Current fed by ≥ 2 previous → merged; fed by one with Jaccard ≥ 0.5 → kept; else new.
    A previous community feeding ≥ 2 current ones → split; feeding none → dissolved.
    """
    feeds, fed_by = _feeds(previous, current, share)
    new: list[int] = []
    kept: list[int] = []
    merged: list[int] = []
    for i, members in enumerate(current):
        srcs = fed_by.get(i, [])
        if len(srcs) >= 2:
            merged.append(i)
        elif len(srcs) == 1 and jaccard(previous[srcs[0]], members) >= 0.5:
            kept.append(i)
        else:
            new.append(i)
    split = tuple(p for p in sorted(previous) if len(feeds.get(p, [])) >= 2)
    dissolved = tuple(p for p in sorted(previous) if not feeds.get(p))
    return Delta(tuple(new), tuple(kept), tuple(merged), split, dissolved)
