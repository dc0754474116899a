"""Retrieval metrics for the LoCoMo evaluation (pure: no I/O).

- **hit@k**: share of questions (categories 1–4, non-empty evidence) with at least one evidence turn
  among the top k retrieved turns;
- **all@k**: share whose every evidence turn is in the top k;
- **AUC**: how well a question's score separates answerable (categories 1–4) from unanswerable
  (category 5) questions: the probability that a random answerable question's score beats a
  random unanswerable one's (Mann–Whitney U / (n_pos × n_neg), ties count one half). The score
  is `context`'s `answerable` for remgraph and the top hit's score for the baselines.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

KS = (1, 5, 10, 25)
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
_DIA = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def parse_evidence(evidence: Iterable[Any]) -> frozenset[str]:
    """Dialog ids (`D1:3`) from a LoCoMo `evidence` list.

    Tolerates the file's known typos: `D:1:3`, several ids in one string separated by `;` or `,`.
    """
    out: set[str] = set()
    for item in evidence:
        for m in _DIA.finditer(str(item)):
            out.add(f"D{int(m.group(1))}:{int(m.group(2))}")
    return frozenset(out)


@dataclass(frozen=True)
class QuestionResult:
    """One question's retrieval outcome."""

    category: int
    evidence: frozenset[str]
    """Evidence dialog ids."""
    ranked: tuple[str, ...]
    """Retrieved dialog ids, best first (deduplicated)."""
    top_score: float


def hit_at(r: QuestionResult, k: int) -> bool:
    """At least one evidence turn in the top k."""
    return bool(r.evidence & set(r.ranked[:k]))


def all_at(r: QuestionResult, k: int) -> bool:
    """Every evidence turn in the top k."""
    return bool(r.evidence) and r.evidence <= set(r.ranked[:k])


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """P(score of a random positive > a random negative); None when either side is empty."""
    if not positives or not negatives:
        return None
    neg = sorted(negatives)
    import bisect

    total = 0.0
    for p in positives:
        lo = bisect.bisect_left(neg, p)
        hi = bisect.bisect_right(neg, p)
        total += lo + 0.5 * (hi - lo)
    return total / (len(positives) * len(neg))


def summarize(results: Sequence[QuestionResult], ks: Sequence[int] = KS) -> dict[str, Any]:
    """hit@k and all@k per category (1–4) and overall, plus the category-5 AUC."""
    answerable = [r for r in results if r.category in (1, 2, 3, 4) and r.evidence]
    by_cat: dict[str, list[QuestionResult]] = defaultdict(list)
    for r in answerable:
        by_cat[str(r.category)].append(r)
    by_cat["all"] = answerable
    out: dict[str, Any] = {"questions": len(answerable), "categories": {}}
    for cat, rs in sorted(by_cat.items()):
        out["categories"][cat] = _category_row(rs, ks)
    adversarial = [r.top_score for r in results if r.category == 5]
    value = auc([r.top_score for r in answerable], adversarial)
    out["auc_answerable_vs_adversarial"] = None if value is None else round(value, 4)
    out["adversarial_questions"] = len(adversarial)
    return out


def _category_row(rs: Sequence[QuestionResult], ks: Sequence[int]) -> dict[str, Any]:
    """`n`, then hit@k and all@k for each k (None without questions), rounded to 4 places."""
    n = len(rs)
    return {
        "n": n,
        **{f"hit@{k}": _share(rs, k, hit_at) for k in ks},
        **{f"all@{k}": _share(rs, k, all_at) for k in ks},
    }


def _share(
    rs: Sequence[QuestionResult], k: int, metric: Callable[[QuestionResult, int], bool]
) -> float | None:
    return round(sum(metric(r, k) for r in rs) / len(rs), 4) if rs else None


def markdown_table(reports: Mapping[str, Mapping[str, Any]], ks: Sequence[int] = KS) -> str:
    """One row per (method, category) with hit@k and all@k; AUC per method."""
    head = ["method", "category", "n", *(f"hit@{k}" for k in ks), *(f"all@{k}" for k in ks)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for method, rep in reports.items():
        for cat, row in rep["categories"].items():
            name = cat if cat == "all" else f"{cat} {CATEGORY_NAMES.get(int(cat), '')}".strip()
            cells = [method, name, str(row["n"])]
            cells += [f"{row[f'hit@{k}']:.3f}" for k in ks]
            cells += [f"{row[f'all@{k}']:.3f}" for k in ks]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        "| method | AUC answerable vs category 5 (remgraph: `answerable`; baselines: top score) |"
    )
    lines.append("|---|---|")
    for method, rep in reports.items():
        a = rep.get("auc_answerable_vs_adversarial")
        lines.append(f"| {method} | {'n/a' if a is None else f'{a:.3f}'} |")
    return "\n".join(lines) + "\n"
