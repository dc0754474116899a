"""The synthetic transcript generator produces a collection shaped like real text."""

from __future__ import annotations

import random
import statistics
from collections import Counter

from recall.lexical import tokenize
from tests.support.generate import session_turns


def _turns(seed: int, sessions: int = 60) -> list[str]:
    rng = random.Random(seed)
    return [m["content"] for _ in range(sessions) for m in session_turns(rng, 40)]


def test_vocabulary_has_a_long_tail_so_query_words_are_not_all_common() -> None:
    texts = _turns(1)
    docs = [set(tokenize(t)) for t in texts]
    df = Counter(w for d in docs for w in d)
    qr = random.Random(2)
    ratios = []
    for _ in range(300):
        words = qr.choice(texts).split()
        for w in qr.sample(words, min(len(words), 5)):
            ratios += [df[t] / len(docs) for t in tokenize(w)]
    # LoCoMo questions' words occur in a median 1.1% of its turns; a 118-word vocabulary gave 23%.
    assert len(df) > 5_000
    assert statistics.median(ratios) < 0.10


def test_same_seed_same_sessions_and_lengths_stay_realistic() -> None:
    assert _turns(3, 5) == _turns(3, 5)
    words = [len(t.split()) for t in _turns(4)]
    assert 15 < statistics.mean(words) < 80
