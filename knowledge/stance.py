"""The stance of an instruction: which things it tells the agent to use, and which to avoid.

Embeddings alone cannot carry AUDN for short rules ("Use pnpm not npm." and "Stop reaching for
npm." are cosine 0.62 apart, yet one rule; "Use npm." and "Do not use npm." are close, yet
opposite). A stance reads the shape of the instruction instead: `{("npm", AVOID)}` for both
"Do not use npm" and "Stop reaching for npm", `{("yarn", USE), ("npm", AVOID)}` for "Use yarn,
not npm". Two instructions *agree* when they share a target with the same polarity and none with
the opposite one; one *reverses* the other when a target flips, or when it withdraws a target
("forget what I said about squash merging", "requests is fine now").

Targets are Snowball stems of the head words of the object phrase, without generic verbs,
particles and whatever follows a preposition ("use requests in the ingestion service" targets
`request`). A convention's notation is the target of the instruction that names it, whatever
the verb ("write dates as YYYY-MM-DD" and "use DD/MM/YYYY for dates" target `yyyy-mm-dd` and
`dd/mm/yyyy`, both of the kind `date format`; snake_case and camelCase are of the kind `naming
case`: `target_kind`). This module owns the rule; extraction (AUDN) and ranking read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.text import STOPWORDS, stem

__all__ = [
    "AVOID",
    "LEAD_WORDS",
    "USE",
    "WITHDRAW",
    "Stance",
    "agrees",
    "lifted",
    "lifting",
    "notations",
    "reverses",
    "stance",
    "target_kind",
]

Polarity = Literal[1, -1, 0]
USE: Polarity = 1
AVOID: Polarity = -1
WITHDRAW: Polarity = 0
"""A withdrawn target: the earlier instruction about it no longer holds, in whichever direction."""


@dataclass(frozen=True)
class Stance:
    """What an instruction says about each target: `{stem: polarity}`."""

    targets: tuple[tuple[str, Polarity], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.targets)

    def polarity(self) -> dict[str, Polarity]:
        """`{target: polarity}`."""
        return dict(self.targets)

    def gives(self) -> bool:
        """It tells the agent to use or avoid something (not only to drop an old instruction)."""
        return any(p != WITHDRAW for _, p in self.targets)


# Verbs and words that carry no target: "use", "stop reaching for", "switch to", "go through".
_GENERIC = frozenset(
    [
        "use",
        "using",
        "used",
        "uses",
        "run",
        "running",
        "runs",
        "call",
        "calling",
        "put",
        "keep",
        "pick",
        "try",
        "prefer",
        "write",
        "writing",
        "add",
        "adding",
        "install",
        "installing",
        "installs",
        "reach",
        "reaching",
        "go",
        "goes",
        "going",
        "through",
        "switch",
        "switching",
        "switched",
        "move",
        "moving",
        "moved",
        "stick",
        "sticking",
        "work",
        "working",
        "do",
        "doing",
        "make",
        "making",
        "get",
        "getting",
        "want",
        "need",
        "always",
        "never",
        "please",
        "again",
        "anymore",
        "any",
        "more",
        "new",
        "all",
        "every",
        "single",
        "time",
        "times",
        "thing",
        "things",
        "one",
        "ones",
        "here",
        "there",
        "now",
        "instead",
        "fine",
        "ok",
        "okay",
        "allowed",
        "alright",
        "good",
        "just",
        "only",
        "really",
        "whatever",
        "simplest",
        "project",
        "repo",
        "repository",
        "codebase",
        "code",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "it's",
        "everything",
        "stuff",
        "rule",
        "rules",
    ]
)
_PREPOSITION = re.compile(
    r"\b(?:in|on|for|with|when|to|before|after|because|since|so|from|into|at|by|during|unless|"
    r"if|while|as|per|via|across|within|until)\b",
    re.IGNORECASE,
)
_PARTICLE = re.compile(r"^(?:for|with|to|on|up|into|through|over)\s+", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9][a-z0-9.+#\-]*")
_NOTATIONS: dict[str, str] = {
    "date_format": r"(?<![\w/.\-])(?:[dmy]{1,4}[/.\-]){1,2}[dmy]{1,4}(?![\w/\-]|\.\w)",
    "naming_case": (
        r"\b(?:screaming[_\- ]?snake|snake|camel|pascal|kebab|upper|lower|title)[_\- ]?case\b"
    ),
    "quote_style": r"\b(?:single|double)[\- ]quot(?:es|e|ed|ation marks?)\b",
    "indentation": r"\b\d{1,2}[\- ]spaces?\b",
}
"""Conventions written as a notation, by kind, one of each kind holding at a time: a date format
(YYYY-MM-DD, DD/MM/YYYY, MM.DD.YY), a naming case (snake_case, camelCase, kebab-case), a quote
style (single quotes), an indentation width (4 spaces)."""
_NOTATION = re.compile(
    "|".join(f"(?P<{kind}>{rx})" for kind, rx in _NOTATIONS.items()), re.IGNORECASE
)
_TOKEN = re.compile(rf"{_NOTATION.pattern}|{_WORD.pattern}", re.IGNORECASE)
_SPELLING = {
    "naming_case": lambda t: re.sub(r"[_\- ]", "", t),
    "quote_style": lambda t: f"{t[:6].strip(' -')} quotes",
    "indentation": lambda t: re.sub(r"[\- ]spaces?$", "-space", t),
}
"""The one spelling of a notation, by kind: "snake_case" and "Snake case" are `snakecase`,
"Double-quoted" is `double quotes`, "4 spaces" is `4-space`; a date format stays as written."""


def _spelled(m: re.Match[str]) -> str | None:
    """The notation `m` matched in its one spelling (lower case), or None for a plain word."""
    kind = m.lastgroup
    if kind is None:
        return None
    t = m.group(0).lower()
    spell = _SPELLING.get(kind)
    return spell(t) if spell else t


_PAIR = re.compile(
    r"^(?P<x>.+?)\s*,?\s*(?P<how>instead of|rather than|and not|but not|do not|don't|not|over)"
    r"\s+(?P<y>.+)$",
    re.I,
)
_AVOID = re.compile(
    r"^(?:do not|don't|dont|never|stop|quit|avoid|no more|no longer)\s+(?P<x>.+)$", re.I
)
_WITHDRAW = re.compile(
    r"^(?:forget|ignore|drop|scrap|disregard)\s+(?:what i (?:said|told you) about|"
    r"the (?:rule|instruction|thing) about|about|my rule about)\s+(?P<x>.+)$",
    re.I,
)
_FINE = re.compile(
    r"^(?P<x>.+?)\s+(?:is|are)\s+(?:fine|ok|okay|allowed|alright|acceptable)\b"
    r"(?:\s+(?:now|again|after all|to use))?.*$",
    re.I,
)
_BRING_BACK = re.compile(r"^(?:bring back|put back|reinstate)\s+(?P<x>.+)$", re.I)
""""Bring back semicolons": what was stopped is done again."""
_CAN = re.compile(
    r"^(?:you can|feel free to|it's ok to|it is ok to|(?P<weak>go ahead and|you may|"
    r"you(?:'re| are) allowed to|it(?:'s| is) (?:fine|okay|alright) to))\s+(?:use\s+)?"
    r"(?P<x>.+?)(?:\s+again)?$",
    re.I,
)
_AGAIN = re.compile(r"\b(?:again|now|anymore|any more|after all|from now on|these days)\b", re.I)
"""What says a permission lifts an earlier instruction, rather than asking for one thing once."""
_SUB_CLAUSE = re.compile(r"[,;:]\s+|\s+(?:so|then|and so)\s+", re.I)
LEAD_WORDS = (
    r"(?:no(?!\s+(?:more|longer)\b)|nope|nah|wait|hmm|ugh|please|pls|again|and|but|so|ok|okay|actually|sorry|"
    r"remember|reminder|note|important|(?:(?:house|team|project) )?rule"
    r"(?: for (?:this|the|our) (?:repo|repository|project|codebase|team))?)"
)
"""Words that open an instruction without being part of it ("No, ...", "Rule for this repo:")."""
_LEAD = re.compile(
    rf"^(?:(?:{LEAD_WORDS}|yes|from now on|going forward|in future)[,.:;!]?\s+)+", re.I
)
_ALWAYS = re.compile(r"^(?:always|make sure to|make sure you|remember to)\s+(?P<x>.+)$", re.I)


def notations(text: str) -> tuple[str, ...]:
    """The conventions `text` names by their notation (`_NOTATIONS`), each once, in order."""
    return tuple(dict.fromkeys(str(_spelled(m)) for m in _NOTATION.finditer(text)))


def target_kind(target: str) -> str | None:
    """The kind of convention a target is when its notation says so (`_NOTATIONS`), else None.

    One of each kind at a time: an instruction to write another one takes the old one's place.
    """
    m = _NOTATION.fullmatch(target)
    return None if m is None or m.lastgroup is None else m.lastgroup.replace("_", " ")


def _content(phrase: str) -> list[str]:
    """Stems of the content words of a phrase, in order, without generic words.

    A notation (`_NOTATIONS`) is one word in its one spelling: it has no stem.
    """
    out: list[str] = []
    for m in _TOKEN.finditer(phrase.lower()):
        n = _spelled(m)
        if n is not None:
            if n not in out:
                out.append(n)
            continue
        w = m.group(0).strip(".-")
        if len(w) < 2 or w in STOPWORDS or w in _GENERIC:
            continue
        s = stem(w)
        if s not in out:
            out.append(s)
    return out


def targets(phrase: str) -> tuple[str, ...]:
    """Stems of the head words of an object phrase (at most three).

    A phrase naming a notation targets the notation ("write dates as YYYY-MM-DD": what to write
    is the format, though it follows a preposition).
    """
    p = phrase.strip().lower()
    named = notations(p)
    if named:
        return named[:3]
    first = _WORD.match(p)
    if first and first.group(0) in _GENERIC:  # "use X", "reaching for X"
        p = _PARTICLE.sub("", p[first.end() :].strip())
    cut = _PREPOSITION.search(p, 1)
    return tuple(_content(p[: cut.start()] if cut else p)[:3])


def _pair(x: str, y: str, how: str) -> list[tuple[str, Polarity]]:
    """The targets of a pair: to use from X, to avoid from Y.

    "X instead of Y": the head words of Y, and as many of the last words of X (the part parallel
    to Y); "use X, do not Y": the head words of both.
    """
    avoid = targets(y)
    if how.lower() in {"do not", "don't"}:
        use = list(targets(x.split(":")[-1]))
    else:
        use = _content(x.split(":")[-1])[-max(1, len(avoid)) :]
    return [(t, USE) for t in use] + [(t, AVOID) for t in avoid if t not in use]


def _side(phrase: str, polarity: Polarity) -> list[tuple[str, Polarity]]:
    return [(t, polarity) for t in targets(phrase)]


def stance(text: str) -> Stance:
    """The stance of one instruction sentence (an empty stance when it has no readable shape)."""
    t = re.sub(r"\s+", " ", text).strip().strip(".!?;: ")
    t = _LEAD.sub("", t)
    for rx, polarity in ((_WITHDRAW, WITHDRAW), (_FINE, USE), (_CAN, USE), (_BRING_BACK, USE)):
        m = rx.match(t)
        if m:  # "bring back X, the linter wants them": X, not the reason after it
            return Stance(tuple(_side(_SUB_CLAUSE.split(m.group("x"), maxsplit=1)[0], polarity)))
    m = _AVOID.match(t)
    if m:
        x = m.group("x")
        pair = _PAIR.match(x)
        if pair:  # "don't use X, use Y" is rare; "never X but Y" reads as avoid X
            x = pair.group("x")
        return Stance(tuple(_side(x, AVOID)))
    m = _ALWAYS.match(t)
    body = m.group("x") if m else t
    pair = _PAIR.match(body)
    if pair:
        return Stance(tuple(_pair(pair.group("x"), pair.group("y"), pair.group("how"))))
    first = _WORD.match(body.lower())
    verb = first.group(0) if first else ""
    # "format dates as MM/DD/YYYY": a named notation is what to use, whatever the verb
    if m or verb in {"use", "prefer", "run", "call", "switch", "stick"} or _NOTATION.search(body):
        return Stance(tuple(_side(body, USE)))
    return Stance()


def agrees(new: Stance, old: Stance) -> bool:
    """Both instructions say the same about a shared target and nothing opposite."""
    a, b = new.polarity(), old.polarity()
    shared = set(a) & set(b)
    return bool(shared) and all(a[t] == b[t] and a[t] != WITHDRAW for t in shared)


def reverses(new: Stance, old: Stance) -> bool:
    """The new instruction flips or withdraws what the old one said about a shared target."""
    a, b = new.polarity(), old.polarity()
    return any(a[t] == WITHDRAW or a[t] == -b[t] for t in set(a) & set(b) if b[t] != WITHDRAW)


def lifted(clause: str) -> str | None:
    """The object of a clause that lifts an earlier instruction, else None.

    "requests is fine now" -> "requests"; "forget what I said about squash merging" ->
    "squash merging".
    """
    found = lifting(clause)
    return found[1] if found else None


def lifting(clause: str) -> tuple[str, str] | None:
    """`(the clause, or the part of it after a reason, that lifts an instruction; its object)`.

    The lift may follow a reason: "The suite takes three minutes now, so go ahead and run the
    e2e tests locally again" lifts "Do not run the e2e tests locally". A permission that is not
    at the clause's start, or is only weakly one ("go ahead and ..."), lifts when it says it
    holds again ("again", "now", "from now on", ...); otherwise it asks for one thing once.
    """
    t = _LEAD.sub("", re.sub(r"\s+", " ", clause).strip().strip(".!?;: "))
    starts = [0, *(m.end() for m in _SUB_CLAUSE.finditer(t))]
    for at in starts:
        part = _LEAD.sub("", t[at:])
        for rx in (_WITHDRAW, _FINE, _CAN, _BRING_BACK):
            m = rx.match(part)
            if not m:
                continue
            x = m.group("x").strip()
            cut = _SUB_CLAUSE.search(x)
            if cut is not None:
                if rx is not _WITHDRAW and rx is not _BRING_BACK:
                    continue  # "We have canaries now, so X is fine": a later part holds it
                x = x[: cut.start()]  # "forget what I said about pnpm, we use bun now"
            if not targets(x):
                continue
            weak = rx is _CAN and m.group("weak") is not None
            if (at > 0 or weak) and rx is not _WITHDRAW and not _AGAIN.search(part):
                continue
            # a lift that opens the clause is the clause, in the user's words
            return (clause.strip() if at == 0 else part), x
    return None
