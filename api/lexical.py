"""Okapi BM25 over the engine's fulltext matches (pure).

Engines score fulltext differently (RediSearch TF-IDF without length normalisation, Lucene BM25),
so remgraph asks the engine only for the *set* of turns matching any query word (up to a pool
size), then scores that set itself with BM25. Document frequencies come from the match set, which
holds every turn containing a query word (exact while the pool is not full), and the collection
size and mean length from the project's turn statistics.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from typing import Any

from api.understand import STOPWORDS

_TOKEN = re.compile(r"[a-z0-9]+")


@cache
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def stem(word: str) -> str:
    """English Snowball stem of a lower-case word."""
    return str(_stemmer().stemWord(word))


@lru_cache(maxsize=50_000)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS and len(w) > 1)


def tokenize(text: str) -> list[str]:
    """Lower-case, drop stop words and one-letter words, stem (memoised per text)."""
    return list(_tokens(text))


def bm25(
    query: Iterable[str],
    docs: Mapping[str, str],
    *,
    n_docs: int,
    avgdl: float,
    k1: float = 1.2,
    b: float = 0.75,
) -> dict[str, float]:
    """BM25 score of every doc in `docs` (id → text) for the query words (already tokenized or not).

    Args:
        query: query words; they are tokenized again, so raw words are fine.
        docs: the candidate documents (every document matching any query word).
        n_docs: number of documents in the collection.
        avgdl: mean document length in tokens.
        k1: term-frequency saturation.
        b: length normalisation.
    """
    q = list(dict.fromkeys(t for w in query for t in tokenize(w)))
    if not q or not docs:
        return {}
    toks = {i: _tokens(t) for i, t in docs.items()}
    df: Counter[str] = Counter()
    for ts in toks.values():
        df.update(set(ts) & set(q))
    n = max(n_docs, len(docs))
    avg = avgdl if avgdl > 0 else (sum(len(t) for t in toks.values()) / len(toks) or 1.0)
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in q}
    out: dict[str, float] = {}
    for i, ts in toks.items():
        tf = Counter(ts)
        dl = len(ts)
        s = 0.0
        for t in q:
            f = tf.get(t, 0)
            if f:
                s += idf[t] * f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avg))
        if s > 0:
            out[i] = s
    return out
