"""`core.text`: the one owner of words, stop words, stems and sentences."""

from __future__ import annotations

from core.text import (
    CHAT_FILLER,
    FUNCTION_WORDS,
    QUERY_STOPWORDS,
    STOPWORDS,
    alnum_words,
    content_words,
    query_words,
    search_tokens,
    sentences,
    stem,
    stemmer,
    unicode_words,
    words,
)


def test_sentences() -> None:
    assert sentences("One. Two! Three?\nFour") == ["One.", "Two!", "Three?", "Four"]


def test_words_keep_technology_names_whole() -> None:
    assert words("We moved to Next.js, C++ and gpt-4o.") == [
        "we",
        "moved",
        "to",
        "next.js",
        "c++",
        "and",
        "gpt-4o",
    ]


def test_content_words_drop_stop_words_filler_and_short_words() -> None:
    assert content_words("Okay, I really think the deploy script is broken on CI") == [
        "deploy",
        "script",
        "broken",
    ]


def test_query_stop_words_keep_the_words_a_question_turns_on() -> None:
    # A question's meaning may sit in words that are filler in chat ("make", "say", "know").
    assert {"make", "say", "know", "think"} <= STOPWORDS - QUERY_STOPWORDS
    assert {"don", "s", "t"} == QUERY_STOPWORDS - STOPWORDS  # apostrophe fragments
    assert FUNCTION_WORDS <= QUERY_STOPWORDS
    assert FUNCTION_WORDS <= STOPWORDS
    assert not FUNCTION_WORDS & CHAT_FILLER


def test_question_tokenizers() -> None:
    assert query_words("What did Caroline's mother-in-law say in 2023?") == [
        "What",
        "did",
        "Caroline's",
        "mother-in-law",
        "say",
        "in",
    ]
    assert alnum_words("Don't stop: café 42") == ["don", "t", "stop", "caf", "42"]
    assert unicode_words("Don't stop: café_bar 42") == ["don", "t", "stop", "café_bar", "42"]


def test_search_tokens_stem_and_drop_stop_and_one_letter_words() -> None:
    assert search_tokens("The deployments were failing, don't X it") == ("deploy", "fail")


def test_the_c_stemmer_is_in_use_and_agrees_with_the_reference_algorithm() -> None:
    from snowballstemmer.english_stemmer import EnglishStemmer

    assert type(stemmer()).__module__ == "Stemmer"  # PyStemmer, not the pure-Python fallback
    reference = EnglishStemmer()
    for w in ("deployments", "running", "generously", "caroline", "lgbtq", "happiness", "ties"):
        assert stem(w) == reference.stemWord(w)
