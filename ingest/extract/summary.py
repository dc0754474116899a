"""An extractive session summary: the session's salient, diverse sentences, in the third person.

Offline and deterministic; the sentence, salience and third-person rules are `knowledge.prose`'s
(topic summaries use the same). The best sentences are taken within the word budget and put back
in conversation order. A person's first-person words are rewritten to their name ("I went to a
support group" → "Caroline went to a support group"); an agent session's lines are labelled
"User:" / "Assistant:".
"""

from __future__ import annotations

from collections.abc import Sequence

from knowledge.prose import attributed, candidates, salient, third_person

__all__ = ["SUMMARY_WORDS", "extractive_summary", "third_person"]

SUMMARY_WORDS = 100
"""Word budget of a session summary (LoCoMo's own session summaries average ~110 words)."""


def extractive_summary(
    lines: Sequence[tuple[str, bool, str]], *, max_words: int = SUMMARY_WORDS
) -> str:
    """A summary of a conversation from its own sentences.

    Args:
        lines: `(speaker, is_person, text)` per turn, in conversation order; `speaker` is a
            person's name when `is_person`, else a role label ("User", "Assistant").
        max_words: word budget (the first chosen sentence is kept whatever its length).
    """
    chosen = salient(candidates(lines), max_words=max_words)
    return " ".join(attributed(c) for c in chosen)
