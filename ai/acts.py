"""What a sentence does: the sentence-act classifier (the local embedding model plus a small head).

Every sentence a person says is one act: a standing instruction to the agent ("never use grep
on json, use jq"), a one-off request ("fix the failing test"), a decision about the work ("the
session db is a json file in XDG_STATE_HOME"), a fact about a person or the project ("my sister
lives in Porto", "tests run with bun test"), a problem report, a confirmation that something
works, a retraction ("scratch that"), a question, or other talk. The act decides what, if
anything, a sentence becomes: a rule, a decision, a fact, a lesson's evidence, or nothing.

The classifier reads two things of a sentence: its meaning (the all-MiniLM-L6-v2 vector the
rest of remgraph already computes) and its grammar (`ai.language`'s parse: mood, the person of
its subject, modality, negation, tense, whether it asks). A multinomial logistic head over both
was trained by `tools/train_acts.py` on the sentences in `ai/data/acts_sentences.jsonl` (taken
from the tuning history's labels and LoCoMo dev, never from the held-out history) and is stored
as `ai/data/acts_head.npz`; inference is one matrix product.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np

from ai import language

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from ai.embed import Embedder

__all__ = [
    "ACTS",
    "HEAD_FILE",
    "SENTENCES_FILE",
    "Act",
    "ActHead",
    "ActScore",
    "classify",
    "grammar",
    "load_head",
]

Act = Literal[
    "instruction",
    "request",
    "decision",
    "fact",
    "problem",
    "confirmation",
    "retraction",
    "question",
    "other",
]
ACTS: tuple[Act, ...] = get_args(Act)
"""The acts, in the head's row order. A preference about the agent's work is an instruction; a
person's own taste is a fact."""

DATA = Path(__file__).with_name("data")
HEAD_FILE = DATA / "acts_head.npz"
SENTENCES_FILE = DATA / "acts_sentences.jsonl"

_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_SECOND = frozenset({"you", "u", "ya", "yourself"})
_FIRST_PLURAL = frozenset({"we", "us", "our", "ours"})
_FIRST_SINGULAR = frozenset({"i", "me", "my", "mine", "myself", "ive", "im"})
_OBLIGATION = frozenset({"should", "must", "shall", "need", "needs", "have", "has"})
_POSSIBILITY = frozenset({"can", "could", "would", "will", "may", "might"})
_STANDING = frozenset(
    {"always", "never", "ever", "whenever", "every", "each", "any", "anymore", "forward"}
    | {"default", "generally", "usually", "consistently", "rule", "rules", "again", "all"}
)
"""Quantifiers and frequency adverbs (a closed class): what says a sentence holds beyond now."""
_HEDGE = frozenset(
    {"think", "know", "sure", "wonder", "guess", "mean", "feel", "believe", "seem", "suppose"}
    | {"understand", "curious", "unsure", "confused", "wish", "hope", "assume"}
)
"""Verbs and adjectives of a speaker's own state of mind: "I'm not sure", "I think it's ..."."""
_DEIXIS = frozenset({"below", "above", "attached", "here", "following", "these", "this"})
"""Words that point at material in the conversation ("pasted below", "see the logs above")."""
_CONDITION = frozenset({"when", "whenever", "if", "before", "after", "unless", "once", "while"})


def _root(doc: Doc) -> Any:
    return next((t for t in doc if t.dep_ == "ROOT"), doc[0] if len(doc) else None)


def imperative(doc: Doc) -> bool:
    """A clause with a base-form verb and no subject ("use jq", "please don't push")."""
    root = _root(doc)
    words = [t for t in doc if not t.is_punct and not t.is_space]
    if not words:
        return False
    if words[0].lower_ in ("please", "pls", "plz", "lets", "let", "always", "never", "dont"):
        return True
    if root is None or root.tag_ not in ("VB", "VBP"):
        return False
    return not any(c.dep_ in _SUBJECTS for c in root.children)


@dataclass(frozen=True, slots=True)
class _Read:
    """One parsed sentence as the features read it."""

    doc: Doc
    root: Any
    subjects: tuple[str, ...]
    labels: frozenset[str]
    asks: bool

    def any(self, test: Callable[[Any], bool]) -> bool:
        return any(test(t) for t in self.doc)


def _third(r: _Read) -> bool:
    nominal = r.any(lambda t: t.dep_ in _SUBJECTS and t.pos_ in ("PROPN", "NOUN"))
    return nominal or any(s in ("he", "she", "they", "it", "this", "that") for s in r.subjects)


def _obligation(r: _Read) -> bool:
    modal = r.any(lambda t: t.tag_ == "MD" and t.lower_ in _OBLIGATION)
    return modal or r.any(lambda t: t.lower_ in ("need", "needs", "must"))


def _negation(r: _Read) -> bool:
    return r.any(lambda t: t.dep_ == "neg" or t.lower_ in ("never", "dont", "no"))


def _code(r: _Read) -> bool:
    pathy = r.any(lambda t: ("/" in t.text or "_" in t.text) and len(t.text) > 3)
    return "`" in r.doc.text or pathy


def _hedge(r: _Read) -> bool:
    mind = r.any(
        lambda t: t.lemma_.lower() in _HEDGE and (t.head.dep_ == "ROOT" or t.dep_ == "ROOT")
    )
    return mind and any(s in _FIRST_SINGULAR for s in r.subjects)


def _deixis(r: _Read) -> bool:
    if r.any(lambda t: t.lower_ in ("below", "above", "attached")):
        return True
    return r.root is not None and any(
        c.lower_ in _DEIXIS and c.dep_ == "advmod" for c in r.root.subtree
    )


def _tag(r: _Read, tags: tuple[str, ...]) -> bool:
    return r.root is not None and r.root.tag_ in tags


_FEATURES: tuple[tuple[str, Callable[[_Read], bool]], ...] = (
    ("imperative", lambda r: imperative(r.doc)),
    ("subject_you", lambda r: any(s in _SECOND for s in r.subjects)),
    (
        "subject_we",
        lambda r: (
            any(s in _FIRST_PLURAL for s in r.subjects)
            or r.doc.text.lower().startswith(("let's", "lets"))
        ),
    ),
    ("subject_i", lambda r: any(s in _FIRST_SINGULAR for s in r.subjects)),
    ("subject_third", _third),
    ("obligation", _obligation),
    ("possibility", lambda r: r.any(lambda t: t.tag_ == "MD" and t.lower_ in _POSSIBILITY)),
    ("negation", _negation),
    ("question", lambda r: r.asks),
    ("past", lambda r: _tag(r, ("VBD", "VBN"))),
    ("present_3rd", lambda r: _tag(r, ("VBZ",))),
    ("code", _code),
    ("number", lambda r: r.any(lambda t: t.like_num)),
    ("entity_person", lambda r: "PERSON" in r.labels),
    ("entity_time", lambda r: bool(r.labels & {"DATE", "TIME"})),
    ("entity_place", lambda r: bool(r.labels & {"GPE", "LOC", "FAC"})),
    ("standing", lambda r: r.any(lambda t: t.lower_ in _STANDING)),
    ("condition", lambda r: r.any(lambda t: t.lower_ in _CONDITION and t.head.dep_ == "advcl")),
    (
        "you_did",
        lambda r: r.any(
            lambda t: t.dep_ in _SUBJECTS and t.lower_ in _SECOND and t.head.tag_ in ("VBD", "VBN")
        ),
    ),
    ("hedge", _hedge),
    ("deixis", _deixis),
)
GRAMMAR = (*(name for name, _ in _FEATURES), "length")
"""The grammatical features, in the head's column order after the embedding."""


def grammar(doc: Doc) -> list[float]:
    """The `GRAMMAR` features of one parsed sentence (each 0 or 1, and a length in 0-1)."""
    r = _Read(
        doc,
        _root(doc),
        tuple(t.lower_ for t in doc if t.dep_ in _SUBJECTS),
        frozenset(e.label_ for e in doc.ents),
        language.is_question(doc),
    )
    words = sum(1 for t in doc if t.is_alpha)
    return [float(f(r)) for _, f in _FEATURES] + [min(1.0, math.log1p(words) / math.log1p(60))]


@dataclass(frozen=True, slots=True)
class ActScore:
    """One sentence's act and how sure the head is of it."""

    act: Act
    probability: float
    probabilities: dict[str, float]


@dataclass(frozen=True, slots=True)
class ActHead:
    """The trained head: weights over [embedding, grammar], one row per act."""

    weights: np.ndarray
    bias: np.ndarray
    embedding_model: str

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Each row's probability of each act (softmax of the linear scores)."""
        z = features @ self.weights.T + self.bias
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return out


class ActHeadMissingError(RuntimeError):
    """The trained head is not where `HEAD_FILE` says (train it with `tools/train_acts.py`)."""


@cache
def load_head(path: Path = HEAD_FILE) -> ActHead:
    """The trained head (read once per process)."""
    if not path.exists():
        raise ActHeadMissingError(
            f"{path}: no sentence-act head; run `python -m tools.train_acts` to train it"
        )
    with np.load(path, allow_pickle=False) as z:
        return ActHead(
            weights=np.asarray(z["weights"], dtype=np.float32),
            bias=np.asarray(z["bias"], dtype=np.float32),
            embedding_model=str(z["embedding_model"]),
        )


def features(
    sentences: Sequence[str], embedder: Embedder, docs: Sequence[Doc] | None = None
) -> np.ndarray:
    """[embedding | grammar] for each sentence, as the head was trained on.

    `docs`: the sentences' parses when the caller has them (else they are parsed here).
    """
    texts = list(sentences)
    if not texts:
        return np.zeros((0, embedder.dimensions + len(GRAMMAR)), dtype=np.float32)
    vectors = np.asarray(embedder.embed_sync(texts), dtype=np.float32)
    rows = [grammar(d) for d in (docs if docs is not None else language.parse(texts))]
    return np.hstack([vectors, np.asarray(rows, dtype=np.float32)])


def classify(
    sentences: Sequence[str],
    embedder: Embedder,
    head: ActHead | None = None,
    docs: Sequence[Doc] | None = None,
) -> list[ActScore]:
    """The act of each sentence (`docs`: their parses, when the caller has them)."""
    h = head or load_head()
    if not sentences:
        return []
    probs = h.predict(features(sentences, embedder, docs))
    out = []
    for row in probs:
        k = int(row.argmax())
        out.append(
            ActScore(
                act=ACTS[k],
                probability=float(row[k]),
                probabilities={a: float(p) for a, p in zip(ACTS, row, strict=True)},
            )
        )
    return out
