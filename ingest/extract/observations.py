"""Observations: what a person said about themselves, told in the third person, one per fact.

"I went to a LGBTQ support group yesterday" from Caroline becomes the fact "Caroline went to a
LGBTQ support group yesterday." of kind `observation`, linked to its turn, valid from the day it
happened ("yesterday" resolved against the turn's time by `core.timeutil.relative_range`).

Only a human speaker's statements about themselves count: in a session between people
(`between_people`) both speakers, in an agent session the user only, never the agent. A sentence
qualifies when it speaks of the speaker ("I", "my", "me") and is not a question, a greeting or
thanks, a hedge ("I think", "I guess", "maybe") or addressed to the other side ("you"). Of those,
the most salient few per speaker and session are kept (`knowledge.prose.salient`, at most one per
`TURNS_PER_OBSERVATION` of that speaker's turns): precision matters more than coverage, since
session summaries and primers already carry the rest.

Sentence splitting, salience and the third-person rewrite are `knowledge.prose`'s (session and
topic summaries use the same); this module only chooses which sentences are observations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from core.ids import normalize_key
from core.text import content_words, without_shared_images
from core.timeutil import RELATIVE_TIME, from_ms, relative_range
from ingest.extract.models import FactCandidate, TurnInput
from knowledge.prose import Sentence, attributed, candidates, is_person, salient

__all__ = ["TURNS_PER_OBSERVATION", "event_time", "is_observation", "observations"]

TURNS_PER_OBSERVATION = 3
"""At most one observation per this many turns of a speaker in a session (and at least one)."""
_MAX_WORDS = 40
"""A longer sentence is a monologue, not one statement."""
_CONFIDENCE = 0.5

_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Mm]yself)\b")
_ADDRESSED = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'll|you'd|u)\b", re.I)
_HEDGE = re.compile(
    r"\b(?:I (?:think|guess|bet|suppose|wonder|hope|wish|believe|imagine|mean|doubt)|"
    r"I'm (?:not sure|sure|guessing|wondering|hoping)|I can (?:imagine|tell|see why)|maybe|perhaps|"
    r"probably|might|"
    r"let me|let's|would love|can't wait)\b",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^(?:(?:hi|hey|hello|bye|goodbye|thanks|thank|cheers|congrats|congratulations|sorry|"
    r"good (?:morning|night|luck|to see)|check (?:it|this|that)? ?out|look at|take a look|here's|"
    r"here is)\b|(?:I'm|I am) (?:so )?(?:glad|happy|sorry|excited) "
    r"(?:to|for|that))",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(?:(?:also|please|and|then|now|just|pls)\s+)*(?:add|arrange|book|build|call|cancel|change|"
    r"check|create|decline|delete|do|don't|draft|email|find|fix|give|help|install|keep|leave|look|"
    r"make|move|open|order|plan|put|read|remember|remind|remove|rename|reply|run|schedule|see|send|"
    r"set|show|tell|try|update|use|write)\b",
    re.IGNORECASE,
)
"""A request ("Also move my appointment to next week"), not a statement about the speaker."""
_SUBJECT = re.compile(
    r"^(?:(?:yesterday|today|recently|lately|last \w+|this \w+),?\s+)?(?:I|I'm|I've|I'd|My)\b",
    re.IGNORECASE,
)
"""The speaker is what the sentence is about: "I ...", "My ...", "Last week I ..."."""
_LEAD = re.compile(
    r"^(?:(?:oh|wow|yeah|yes|yep|yup|well|so|haha|aw+|ah|hmm|ok|okay|omg|and|but|plus|also|"
    r"anyway|anyways|honestly|on another note|by the way|btw)\b[,!.]*\s*)+",
    re.I,
)


def is_observation(sentence: str, *, as_subject: bool = False) -> bool:
    """Whether a candidate sentence (`knowledge.prose.candidates`) is about its speaker.

    First person, not addressed to "you", no hedge, no greeting, thanks, request or pointer
    ("check this out"), not a monologue. `as_subject`: the speaker must be what the sentence is
    about ("I ...", "My ..."), as in an agent session, where a user's other lines are requests.
    """
    s = _unlead(sentence)
    return (
        bool(s)
        and (not as_subject or bool(_SUBJECT.match(s)))
        and len(s.split()) <= _MAX_WORDS
        and bool(_FIRST_PERSON.search(s))
        and not _ADDRESSED.search(s)
        and not _HEDGE.search(s)
        and not _SMALL_TALK.match(s)
        and not _IMPERATIVE.match(s)
    )


def _unlead(sentence: str, names: frozenset[str] = frozenset()) -> str:
    """`sentence` in words alone, without what only frames it.

    The interjections it opens with ("Yeah, that's why I ..."), the name of whom it is said to
    ("John, I ...", "... too, Caroline.", `names`) and the images shared with it.
    """
    s = without_shared_images(sentence)
    for name in names:
        s = re.sub(rf"^{re.escape(name)},\s*|,\s*{re.escape(name)}(?=[.!]?$)", "", s)
    s = _LEAD.sub("", s).strip()
    return s[:1].upper() + s[1:] if s else sentence


def event_time(sentence: str, said_at: datetime) -> datetime:
    """When what `sentence` tells happened, seen from `said_at`.

    The start of the relative time it names ("yesterday", "last week", "two weeks ago"), else
    `said_at` itself.
    """
    m = RELATIVE_TIME.search(sentence)
    if m is None:
        return said_at
    start, _ = relative_range(m.group(0), said_at)
    return from_ms(start)


def _speaker(t: TurnInput, chat: bool) -> str | None:
    """Who an observation of this turn would be about, if anyone.

    A person (either side of a chat), the user of an agent session ("User"); None for an agent,
    a tool or an empty turn.
    """
    if t.tool_name or not t.text.strip() or t.role not in ("user", "assistant"):
        return None
    if is_person(t.speaker) and (chat or t.role == "user"):
        return t.speaker
    return "User" if t.role == "user" and not chat else None


def observations(
    turns: Sequence[TurnInput],
    *,
    chat: bool,
    lasting: Callable[[Sequence[str]], Sequence[bool]] | None = None,
) -> list[FactCandidate]:
    """The observations of one session, per speaker, in conversation order.

    Args:
        turns: the session's turns in order.
        chat: the session is people talking (`offline.between_people`): both sides count.
        lasting: in an agent session, which of the user's sentences state something that lasts
            (`distil.SentenceActs.lasting`); the others (a problem report, a request) are
            about the moment, not about the user.
    """
    by_id = {t.id: t for t in turns}
    per_speaker: dict[str, list[TurnInput]] = {}
    for t in turns:
        who = _speaker(t, chat)
        if who is not None:
            per_speaker.setdefault(who, []).append(t)
    names = frozenset(w for w in per_speaker if is_person(w))
    out: list[tuple[int, FactCandidate]] = []
    for who, own in per_speaker.items():
        person = is_person(who)
        said = [
            replace(c, text=text, words=frozenset(content_words(text)))
            for c in candidates((who, person, t.text, t.id) for t in own)
            if is_observation(text := _unlead(c.text, names), as_subject=not chat)
        ]
        cands = [c for c in said if c.words]
        if lasting is not None and not chat and cands:
            cands = [c for c, ok in zip(cands, lasting([c.text for c in cands]), strict=True) if ok]
        cap = max(1, len(own) // TURNS_PER_OBSERVATION)
        chosen = salient(cands, max_words=cap * _MAX_WORDS, ranked=True)[:cap]
        out += [(by_id[c.source].ordinal, _fact(c, by_id[c.source], person)) for c in chosen]
    return [f for _, f in sorted(out, key=lambda x: x[0])]


def _fact(c: Sentence, t: TurnInput, person: bool) -> FactCandidate:
    text = attributed(c, roles_in_third_person=not person)
    text = text[:1].upper() + text[1:]
    subject = normalize_key(c.speaker)
    return FactCandidate(
        subject=subject,
        predicate="observed",  # made its own by `FactCandidate`: observations accumulate
        object=text,
        kind="observation",
        statement=text,
        confidence=_CONFIDENCE,
        turn_ids=(t.id,),
        valid_from=event_time(c.text, t.timestamp),
    )
