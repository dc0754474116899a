"""When a label names nothing: the one rule for generic topic labels.

A label is **generic** when it is a single word (`wordfreq`'s English tokens) that is common in
English (Zipf frequency ≥ `GENERIC_ZIPF`) or a stopword (scikit-learn's English list), or holds
no word at all: "wait", "photo", "means". Extraction does not title a topic with one, the REM
report does not recommend one, and `remgraph eval knowledge` counts them, all through this
module. Both word lists ship inside their wheels; no network.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

__all__ = ["GENERIC_ZIPF", "all_common", "is_generic_label", "label_words", "zipf"]

GENERIC_ZIPF = 4.5
"""A word this frequent in English (wordfreq Zipf scale) says nothing about a topic by itself."""


@cache
def _stopwords() -> frozenset[str]:
    """scikit-learn's English stopwords."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # deferred: heavy import

    return frozenset(ENGLISH_STOP_WORDS)


def label_words(label: str) -> list[str]:
    """`wordfreq`'s English tokens of a label."""
    from wordfreq.tokens import tokenize  # deferred: loads its tokenizer tables

    return list(tokenize(label, "en"))


@cache
def zipf(word: str) -> float:
    """English Zipf frequency of a word (`wordfreq`, data shipped in its wheel)."""
    from wordfreq import zipf_frequency  # deferred: loads its frequency tables once

    return float(zipf_frequency(word, "en"))


def is_generic_label(
    label: str,
    *,
    frequency: Callable[[str], float] = zipf,
    stopwords: frozenset[str] | None = None,
) -> bool:
    """A label is generic when it is one common word (Zipf ≥ 4.5), a stopword, or no word at all."""
    tokens = label_words(label)
    if not tokens:
        return True
    if len(tokens) > 1:
        return False
    w = tokens[0]
    return (
        w in (stopwords if stopwords is not None else _stopwords()) or frequency(w) >= GENERIC_ZIPF
    )


def all_common(tokens: list[str], stop: frozenset[str]) -> bool:
    """Every token is a stopword of `stop` or common English ("shares image", "gonna")."""
    return all(w in stop or zipf(w) >= GENERIC_ZIPF for w in tokens)
