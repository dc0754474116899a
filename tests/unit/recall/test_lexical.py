"""BM25 scoring and the choice of words a fulltext query searches for (pure)."""

from __future__ import annotations

from recall.lexical import bm25, prune_terms, tokenize


def test_rarer_word_weighs_more_and_matching_more_words_wins() -> None:
    docs = {
        "a": "deploy the server with docker",
        "b": "deploy the client",
        "c": "deploy failed on postgres",
        "d": "deploy postgres",
    }
    s = bm25(["deploy", "postgres"], docs, n_docs=4, avgdl=0)
    assert s["d"] > s["c"] > s["a"]  # both words > the rarer word alone > the common word alone
    assert set(s) == {"a", "b", "c", "d"}


def test_known_document_frequencies_replace_counts_from_the_matches() -> None:
    docs = {"a": "retry the queue worker", "b": "queue latency"}
    counted = bm25(["queue", "retry"], docs, n_docs=1000, avgdl=4)
    # The engine says "queue" is in 900 of 1000 turns: its idf collapses, "retry" now decides.
    told = bm25(["queue", "retry"], docs, n_docs=1000, avgdl=4, df={"queue": 900, "retry": 1})
    assert told["b"] < counted["b"]
    assert told["a"] / told["b"] > counted["a"] / counted["b"]


def test_prune_keeps_rare_words_within_the_budget_and_always_the_rarest() -> None:
    df = {"the": 90_000, "deploy": 20_000, "falkordb": 300, "leiden": 40}
    assert prune_terms(df, 5_000) == ["leiden", "falkordb"]
    assert prune_terms(df, 10) == ["leiden"]
    assert prune_terms({"the": 90_000, "deploy": 20_000}, 10) == ["deploy"]
    assert sorted(prune_terms(df, 0)) == sorted(df)
    assert prune_terms({}, 100) == []


def test_tokenize_stems_and_drops_stop_words() -> None:
    assert tokenize("The deployments were failing") == ["deploy", "fail"]
