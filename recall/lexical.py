"""Okapi BM25 over the engine's fulltext matches (pure).

Engines score fulltext differently (RediSearch TF-IDF without length normalisation, Lucene BM25),
so remgraph asks the engine only for the *set* of turns matching any query word (up to a pool
size), then scores that set itself with BM25. Document frequencies come from the match set, which
holds every turn containing a query word (exact while the pool is not full), and the collection
size and mean length from the project's turn statistics.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from core.text import search_tokens as _tokens


def tokenize(text: str) -> list[str]:
    """Lower-case, drop stop words and one-letter words, stem (`core.text.search_tokens`)."""
    return list(_tokens(text))


def prune_terms(df_all: Mapping[str, int], budget: int) -> list[str]:
    """The words a fulltext query should search for, given each word's index-wide match count.

    Words are taken rarest first while their summed document frequency stays within `budget` (the
    rarest word always), so a query never makes the engine enumerate most of the collection for a
    word that occurs everywhere. Dropped words still count in BM25 for the documents found.
    `budget` <= 0 keeps every word.
    """
    words = list(df_all)
    if budget <= 0:
        return words
    out: list[str] = []
    total = 0
    for w in sorted(words, key=lambda x: (df_all[x], x)):
        if out and total + df_all[w] > budget:
            break
        out.append(w)
        total += df_all[w]
    return out


def bm25(
    query: Iterable[str],
    docs: Mapping[str, str],
    *,
    n_docs: int,
    avgdl: float,
    k1: float = 1.2,
    b: float = 0.75,
    df: Mapping[str, int] | None = None,
) -> dict[str, float]:
    """BM25 score of every doc in `docs` (id → text) for the query words (already tokenized or not).

    Args:
        query: query words; they are tokenized again, so raw words are fine.
        docs: the candidate documents (every document matching any query word).
        n_docs: number of documents in the collection.
        avgdl: mean document length in tokens.
        k1: term-frequency saturation.
        b: length normalisation.
        df: document frequency per query word in the collection, when known (from the engine);
            words without one count the documents in `docs` that hold them.
    """
    q = list(dict.fromkeys(t for w in query for t in tokenize(w)))
    if not q or not docs:
        return {}
    toks = {i: _tokens(t) for i, t in docs.items()}
    qset = frozenset(q)
    matched = {i: qset.intersection(ts) for i, ts in toks.items()}  # query terms per document
    freq = _document_frequency(q, matched, df)
    n = max(n_docs, len(docs), *freq.values())
    avg = avgdl if avgdl > 0 else (sum(len(t) for t in toks.values()) / len(toks) or 1.0)
    idf = {t: bm25_idf(n, freq[t]) for t in q}
    out: dict[str, float] = {}
    k1p = k1 + 1
    for i, ts in toks.items():
        norm = k1 * (1 - b + b * len(ts) / avg)
        s = _doc_score(q, ts, matched[i], idf, norm, k1p)
        if s > 0:
            out[i] = s
    return out


def bm25_idf(n: int, df: int) -> float:
    """BM25's inverse document frequency of a term `df` of `n` documents hold."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def add_bm25_term(
    scores: np.ndarray,
    rows: np.ndarray,
    tf: np.ndarray,
    lengths: np.ndarray,
    idf: float,
    *,
    k1: float,
    b: float,
    avgdl: float,
) -> None:
    """Add one query term's BM25 share to `scores[rows]`, the rows holding it.

    `tf`: the term's count in each of `rows`; `lengths`: their lengths in terms. The same float
    operations as `bm25` does per document (`_doc_score`), so the in-process indexes, which add
    their terms in query order, score exactly as it does.
    """
    norm = k1 * (1 - b + b * lengths / avgdl)
    scores[rows] += idf * tf * (k1 + 1) / (tf + norm)


def _document_frequency(
    q: Sequence[str], matched: Mapping[str, frozenset[str]], df: Mapping[str, int] | None
) -> dict[str, int]:
    """Documents holding each query term, from the engine's count and the candidates.

    The engine's count (`df`, per raw word) where known, never fewer than the candidate documents
    that hold the term.
    """
    counted: Counter[str] = Counter()
    for terms in matched.values():
        counted.update(terms)
    return document_frequency(q, counted, df)


def document_frequency(
    q: Sequence[str], counted: Mapping[str, int], df: Mapping[str, int] | None
) -> dict[str, int]:
    """Each query term's document frequency for `bm25`.

    The count `df` gives its raw word (the largest over the words holding the term), never
    fewer than the `counted` candidates that hold it.
    """
    known: dict[str, int] = {}
    for w, f in (df or {}).items():
        for t in tokenize(w):
            known[t] = max(known.get(t, 0), f)
    return {t: max(known.get(t, 0), counted.get(t, 0)) for t in q}


def _doc_score(
    q: Sequence[str],
    ts: Sequence[str],
    here: frozenset[str],
    idf: Mapping[str, float],
    norm: float,
    k1p: float,
) -> float:
    """One document's BM25 sum over the query terms it holds (`here`)."""
    s = 0.0
    for t in q:  # query order: the same float sum on every run
        if t in here:
            f = ts.count(t)
            s += idf[t] * f * k1p / (f + norm)
    return s
