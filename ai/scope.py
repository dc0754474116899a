"""How long an instruction holds: standing, for the moment, or not said.

Standing: "always run the tests before committing"; for the moment: "do not write code yet".

The judgement reads the dependency parse (`ai.language`) with a declared list of English scope
words (`ai/data/scope.toml`): a frequency or scope word on the instruction's main clause, or a
condition clause on its main verb ("when you run tests, ...", "... before committing"), makes it
standing; a word tying it to the moment ("yet", "for now", "go ahead"), or a first-person wish
("I'd like to ..."), makes it one-off. Words inside a clause about something else do not count:
"think about how you can make sure you always do this" is not standing. An instruction whose
object is only a pointer into the conversation ("document this") does not stand on its own.
An instruction about a whole class of things, named as a bare plural after a declared
preposition on its main verb ("use single quotes for strings", "use PascalCase for class
names"), is generic: standing, as the sentence says of every member, not of one. So is a
statement of the team's practice, a present-tense verb with a declared subject ("we use bun
now", "we merge after review"): it says what is done, not what to do this once.

The main clause is the root verb and the verbs joined to it as its complement or conjunct
("make sure to pull main and merge ...": make, pull, merge).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ai import language

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Scope", "ScopeWords", "scope_of", "scope_words", "scopes"]

_DATA = Path(__file__).parent / "data" / "scope.toml"
_JOINED = frozenset({"xcomp", "ccomp", "conj", "acomp"})
"""Dependencies that join a verb to the main clause (its complement or conjunct)."""
_PAUSE = frozenset({"mark", "advmod", "prep"})
_FIRST_PERSON = frozenset({"i", "we"})


class Scope(StrEnum):
    """How long an instruction holds."""

    STANDING = "standing"
    """Beyond the moment: a frequency or scope word, or a condition, on its main clause."""
    ONE_OFF = "one_off"
    """For the moment: a word tying it to now, or a first-person wish."""
    UNSAID = "unsaid"
    """Neither said: the words do not tell."""
    DANGLING = "dangling"
    """Standing in form, but its object only points into the conversation ("always do this")."""


@dataclass(frozen=True)
class ScopeWords:
    """The declared scope words (`ai/data/scope.toml`), each a tuple of lowercase words."""

    general: tuple[tuple[str, ...], ...]
    conditions: frozenset[str]
    one_off: tuple[tuple[str, ...], ...]
    deictic: frozenset[str]
    wishes: frozenset[str]
    generic: frozenset[str]
    practice: frozenset[str]


@cache
def scope_words(path: Path = _DATA) -> ScopeWords:
    """The scope words declared in `path` (read once)."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))

    def phrases(key: str) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(p.lower().split()) for p in raw[key])

    return ScopeWords(
        general=phrases("general"),
        conditions=frozenset(w.lower() for w in raw["conditions"]),
        one_off=phrases("one_off"),
        deictic=frozenset(w.lower() for w in raw["deictic"]),
        wishes=frozenset(w.lower() for w in raw["wishes"]),
        generic=frozenset(w.lower() for w in raw["generic"]),
        practice=frozenset(w.lower() for w in raw["practice"]),
    )


def scopes(texts: list[str]) -> list[Scope]:
    """The scope of each instruction in `texts` (one parse batch)."""
    return [scope_of(doc) for doc in language.parse(texts)]


def scope_of(doc: Doc, words: ScopeWords | None = None) -> Scope:
    """The scope of one parsed instruction (see the module docstring)."""
    w = words or scope_words()
    main = _main_clause(doc)
    if not main:
        return Scope.UNSAID
    if (
        _marked(doc, main, w.general)
        or any(_conditioned(p, w.conditions) for p in main)
        or any(_of_a_class(p, w.generic) for p in main)
        or _practice(main[0], w)
    ):
        return Scope.DANGLING if _dangling(main, w.deictic) else Scope.STANDING
    if _marked(doc, main, w.one_off) or _wish(main, w.wishes):
        return Scope.ONE_OFF
    return Scope.UNSAID


def _main_clause(doc: Doc) -> list[Token]:
    """The root verb and the verbs joined to it (complements, conjuncts), in parse order."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    out: list[Token] = []
    todo = roots[:1]
    while todo:
        t = todo.pop()
        out.append(t)
        todo += [c for c in t.children if c.dep_ in _JOINED]
    return out


def _clause_of(t: Token) -> Token:
    """The verb (or root) whose clause `t` belongs to: its nearest verbal ancestor.

    Tokens are made on access, so places (`.i`) are compared, never identities.
    """
    while t.head.i != t.i and t.pos_ not in ("VERB", "AUX"):
        t = t.head
    if t.pos_ == "AUX" and t.dep_ in ("aux", "auxpass") and t.head.i != t.i:
        return t.head
    return t


def _marked(doc: Doc, main: list[Token], phrases: tuple[tuple[str, ...], ...]) -> bool:
    """Whether one of `phrases` occurs with its words on the main clause."""
    lowers = [t.lower_ for t in doc]
    where = {t.i for t in main}
    for p in phrases:
        n = len(p)
        for i in range(len(lowers) - n + 1):
            if tuple(lowers[i : i + n]) != p:
                continue
            span = doc[i : i + n]
            if _clause_of(span.root).i in where:
                return True
    return False


def _conditioned(pred: Token, conditions: frozenset[str]) -> bool:
    """A condition on `pred`.

    A clause opened by a condition word ("when you run tests"), or a condition word with a
    verb after it ("before committing").
    """
    for c in pred.children:
        if c.dep_ == "advcl" and any(
            g.dep_ in _PAUSE and g.lower_ in conditions for g in c.children
        ):
            return True
        if (
            c.dep_ == "prep"
            and c.lower_ in conditions
            and any(g.dep_ == "pcomp" for g in c.children)
        ):
            return True
    return False


def _practice(root: Token, w: ScopeWords) -> bool:
    """A statement of practice: the root in the present tense with a declared subject.

    "we use bun now", "we don't do npm": not a wish ("we need ...") and not asked.
    """
    return (
        root.tag_ in ("VBP", "VBZ")
        and root.lemma_.lower() not in w.wishes
        and any(c.dep_ == "nsubj" and c.lower_ in w.practice for c in root.children)
        and not any(c.dep_ == "aux" and c.tag_ == "MD" for c in root.children)
        and not root.doc.text.rstrip().endswith("?")
    )


def _of_a_class(pred: Token, preps: frozenset[str]) -> bool:
    """Whether `pred` applies to a class: a prepositional object that is a bare plural.

    "for strings", "for class names": a plural noun (tag NNS) with no determiner or possessive
    of its own; "for the tests", "in my branch" name particular things.
    """
    for c in pred.children:
        if c.dep_ != "prep" or c.lower_ not in preps:
            continue
        for o in c.children:
            if (
                o.dep_ == "pobj"
                and o.tag_ == "NNS"
                and not any(g.dep_ in ("det", "poss", "nummod", "predet") for g in o.children)
            ):
                return True
    return False


def _dangling(main: list[Token], deictic: frozenset[str]) -> bool:
    """Whether the main verbs' only objects are bare pointers into the conversation."""
    objects = [c for p in main for c in p.children if c.dep_ in ("dobj", "attr")]
    return bool(objects) and all(
        o.lower_ in deictic and not any(True for _ in o.children) for o in objects
    )


def _wish(main: list[Token], wishes: frozenset[str]) -> bool:
    """A first-person wish as the root ("I'd like to ...", "we need the cache gone")."""
    root = main[0]
    return root.lemma_.lower() in wishes and any(
        c.dep_ == "nsubj" and c.lower_ in _FIRST_PERSON for c in root.children
    )
