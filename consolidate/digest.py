"""Pure extractive digests of sessions: the salient, diverse sentences a primer narrates.

A session's user and assistant turns are split into sentences; each sentence scores by the
session-level frequency of its content words (words said in many turns of the session are its
subject; words said once are detail), divided by the square root of its length, so a sentence
that states the session's subject in few words ranks first. Greetings, one-word replies and
sentences without three content words never qualify. The ranked list is diversified greedily (a
sentence sharing more than half its words with one already taken is skipped), and every line is
attributed to its speaker. Deterministic: ties break by position.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from consolidate.text import clip, jaccard
from core.text import content_words, sentences
from graph.rows import SessionTurn
from knowledge.prose import is_person

MIN_WORDS = 5
"""Shortest sentence (whitespace words) worth narrating."""
MAX_CHARS = 320
"""Longest narrated sentence; longer ones are clipped at a word boundary."""
REDUNDANCY = 0.5
"""A sentence this similar (Jaccard of content words) to one already taken is skipped."""

_CODE_FENCE = re.compile(r"```.*?(```|$)", re.DOTALL)
_NOISE = re.compile(r"^\s*[\[{<(|#>$]")


@dataclass(frozen=True, slots=True)
class Line:
    """One narrated sentence: who said it, where it sits in the session, its salience rank."""

    text: str
    at: int
    ordinal: int
    rank: int
    session_id: str
    turn_id: str = ""
    summary: bool = False
    """A sentence of the session's stored summary, not a quoted turn (it has no turn)."""


@dataclass(frozen=True)
class SessionDigest:
    """What a primer says about one session.

    Attributes:
        session_id: the session.
        at: its start, epoch ms.
        speakers: who spoke, in order of first appearance.
        turns: user and assistant turns.
        themes: its most frequent content words (said in the most turns).
        summary: the stored session summary when it is a real one (several sentences).
        lines: salient, diverse sentences, most salient first.
    """

    session_id: str
    at: int
    speakers: tuple[str, ...] = ()
    turns: int = 0
    themes: tuple[str, ...] = ()
    summary: str = ""
    lines: tuple[Line, ...] = field(default_factory=tuple)


def _who(t: SessionTurn) -> str:
    """A person's name, else the role: `Assistant` for a model, as the session summary says."""
    if is_person(t.speaker):
        return t.speaker
    return "User" if t.role == "user" else "Assistant"


def _candidates(t: SessionTurn) -> Iterable[str]:
    text = _CODE_FENCE.sub(" ", t.text or "")
    for s in sentences(text):
        s = " ".join(s.split())
        if len(s.split()) < MIN_WORDS or _NOISE.match(s):
            continue
        yield clip(s, MAX_CHARS)


def themes(turns: Sequence[SessionTurn], k: int = 5) -> tuple[str, ...]:
    """The `k` content words said in the most turns (ties alphabetical), each in two or more.

    The speakers' names are left out: they are who talked, not what about.
    """
    names = {w.lower() for t in turns for w in t.speaker.split()}
    df: Counter[str] = Counter()
    for t in turns:
        df.update(set(content_words(t.text)) - names)
    ranked = sorted(((w, n) for w, n in df.items() if n >= 2), key=lambda x: (-x[1], x[0]))
    return tuple(w for w, _ in ranked[:k])


def _score(words: set[str], df: Counter[str], n_turns: int) -> float:
    # words said in (almost) every turn carry no information about this session
    cap = max(2, int(0.6 * n_turns))
    return sum(min(df[w], cap) - 1 for w in words if df[w] <= cap) / math.sqrt(len(words))


def rank_lines(session_id: str, turns: Sequence[SessionTurn], limit: int = 200) -> list[Line]:
    """The session's salient, diverse sentences, most salient first, attributed to speakers."""
    df: Counter[str] = Counter()
    for t in turns:
        df.update(set(content_words(t.text)))
    scored: list[tuple[float, int, str, set[str], SessionTurn]] = []
    for pos, t in enumerate(turns):
        for s in _candidates(t):
            ws = set(content_words(s))
            if len(ws) >= 3:
                scored.append((_score(ws, df, len(turns)), pos, s, ws, t))
    scored.sort(key=lambda x: (-x[0], x[1]))
    taken: list[tuple[str, set[str], SessionTurn]] = []
    for _, _, s, ws, t in scored:
        if len(taken) >= limit:
            break
        if any(jaccard(ws, w) > REDUNDANCY for _, w, _ in taken):
            continue
        taken.append((s, ws, t))
    return [
        Line(f"{_who(t)}: {s}", t.at, t.ordinal, rank, session_id, t.id)
        for rank, (s, _, t) in enumerate(taken)
    ]


def digest(
    session_id: str, at: int, turns: Sequence[SessionTurn], summary: str = ""
) -> SessionDigest:
    """The digest of one session from its turns (and its stored summary if it is a real one)."""
    speakers: list[str] = []
    for t in turns:
        who = _who(t)
        if who not in speakers:
            speakers.append(who)
    real = summary if len(summary.split()) >= 12 else ""
    return SessionDigest(
        session_id=session_id,
        at=at,
        speakers=tuple(speakers),
        turns=len(turns),
        themes=themes(turns),
        summary=real,
        lines=tuple(rank_lines(session_id, turns)),
    )


def summary_lines(d: SessionDigest) -> tuple[Line, ...]:
    """The sentences of a session's stored summary, as lines offered before its quotes.

    A summary sentence that restates one of the session's quoted sentences takes that quote's
    turn and place: the primer that shows it states what that turn said (its provenance).
    The summary is in conversation order, so a sentence no quote restates sits after the one
    before it (without a turn).
    """
    out: list[Line] = []
    for rank, s in enumerate(sentences(d.summary)):
        if _NOISE.match(s.partition(": ")[2] or s):  # `[thinking] …`, `[shares image: …]`
            continue
        x = Line(" ".join(s.split()), d.at, -1, rank, d.session_id, summary=True)
        src = next((q for q in d.lines if repeats(q, (x,))), None)
        if src:
            x = replace(x, turn_id=src.turn_id, at=src.at, ordinal=src.ordinal)
        elif out:
            x = replace(x, at=out[-1].at, ordinal=out[-1].ordinal)
        out.append(x)
    return tuple(out)


def repeats(line: Line, said: Iterable[Line]) -> bool:
    """True when `line` says what one of `said` says (verbatim, or most of its content words).

    The speaker's label (`Caroline: `) is left out of the comparison, so a quote repeats the
    third-person summary sentence made from it.
    """
    ws = set(content_words(line.text.partition(": ")[2] or line.text))
    return any(
        line.text in x.text or jaccard(ws, set(content_words(x.text))) > REDUNDANCY for x in said
    )


def pick(pools: Sequence[Sequence[Line]], room: int, skip: set[Line] | None = None) -> list[Line]:
    """Lines taken round-robin by rank from each pool while their bytes fit in `room`.

    Each taken line costs its UTF-8 size plus a bullet and a newline. Returns them in time order.
    """
    skip = skip or set()
    queues = [[x for x in p if x not in skip] for p in pools]
    out: list[Line] = []
    used = 0
    depth = 0
    while any(depth < len(q) for q in queues):
        for q in queues:
            if depth >= len(q):
                continue
            cost = len(q[depth].text.encode("utf-8")) + 3
            if used + cost <= room:
                out.append(q[depth])
                used += cost
        depth += 1
    return sorted(out, key=lambda x: (x.at, x.session_id, x.ordinal, x.rank))


def when(ms: int, fmt: str = "%H:%M") -> str:
    """An epoch-ms time formatted in UTC."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime(fmt)


def merged_themes(digests: Iterable[SessionDigest], k: int = 8) -> list[str]:
    """Themes shared by the most sessions, then by rank within them (ties alphabetical)."""
    score: Counter[str] = Counter()
    for d in digests:
        for i, w in enumerate(d.themes):
            score[w] += 10 - i
    return [w for w, _ in sorted(score.items(), key=lambda x: (-x[1], x[0]))[:k]]
