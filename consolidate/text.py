"""Small, pure text helpers for extractive summaries: tokens, keywords, byte budgets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from core.text import STOPWORDS, content_words, words
from knowledge.labels import all_common


def top_keywords(
    texts: Iterable[str], given: Iterable[Sequence[str]] = (), k: int = 8
) -> list[str]:
    """The `k` most frequent keywords: explicit keyword lists count double, then title tokens.

    Ties break alphabetically so results are deterministic.
    """
    counts: Counter[str] = Counter()
    for kws in given:
        for kw in kws or ():
            w = kw.strip().lower()
            if w:
                counts[w] += 2
    for t in texts:
        counts.update(set(content_words(t)))
    return [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def clip(text: str, max_chars: int) -> str:
    """`text` on one line, cut at a word boundary to at most `max_chars` characters (… added)."""
    flat = " ".join((text or "").split())
    if len(flat) <= max_chars:
        return flat
    cut = flat[: max(1, max_chars - 1)]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def utf8_len(text: str) -> int:
    """Size of `text` in UTF-8 bytes."""
    return len(text.encode("utf-8"))


def fit_bytes(text: str, budget: int) -> str:
    """`text` cut (at a line, else a character boundary) so its UTF-8 size is ≤ `budget`."""
    if utf8_len(text) <= budget:
        return text
    lines = text.splitlines()
    out: list[str] = []
    size = 0
    for line in lines:
        add = utf8_len(line) + 1
        if size + add > budget:
            break
        out.append(line)
        size += add
    if out:
        return "\n".join(out)
    return text.encode("utf-8")[:budget].decode("utf-8", errors="ignore")


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def generic_label(label: str) -> bool:
    """True when every word of a label is a stopword or common English (`wait`, `shares image`).

    Such a topic is not worth a recommendation: it names no subject a person could act on.
    """
    return all_common([w for w in words(label) if w], STOPWORDS)
