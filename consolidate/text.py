"""Small, pure text helpers for extractive summaries: tokens, keywords, byte budgets."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_\-+.#]{2,}")

_STOPWORDS_TEXT = """
a about above after again against all also am an and any are aren't as at be because been
before being below between both but by can could did do does doing don't down during each
few for from further had has have having he her here hers herself him himself his how i if
in into is it its itself just let like me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up
use used using very was we were what when where which while who whom why will with would you
your yours yourself yourselves yes yeah okay ok get got make made one two also really thing
things way want need know think going go see say said lot instead actually please thanks
thank sure well right just still much many every something anything
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


def tokens(text: str) -> list[str]:
    """Lower-cased content words of `text` (≥ 3 characters, no stopwords)."""
    out = []
    for m in _WORD.finditer(text or ""):
        w = m.group(0).lower().strip(".-")
        if len(w) >= 3 and w not in STOPWORDS:
            out.append(w)
    return out


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
        counts.update(set(tokens(t)))
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
