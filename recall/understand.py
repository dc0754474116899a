"""Query understanding (pure): who the query names, which time it names, and what is left to match.

Conversational memory questions read like "When did Caroline go to the support group?" or "What
did Melanie paint in May 2023?". Names of speakers help most as a *filter signal* on the turn's
speaker rather than as words to match (turns say "I", not their speaker's name), and a named time
helps as a range on the turn's date. `understand` extracts both and leaves the rest for fulltext.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from core.text import QUERY_STOPWORDS, query_words
from core.timeutil import (
    MONTHS,
    RELATIVE_TIME,
    month_range,
    relative_range,
    to_ms,
    utc_now,
    year_range,
)

_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_YEAR = r"(19\d{2}|20\d{2})"
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+{_YEAR}\b", re.IGNORECASE
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b", re.IGNORECASE
)
_IN_YEAR = re.compile(rf"\b(?:in|during|of|since|before|after)\s+{_YEAR}\b", re.IGNORECASE)
_RULES_Q = re.compile(
    r"\b(?:preferences?|rules|conventions|guidelines|standing\s+instructions?|house\s+style"
    r"|what\s+(?:do|does)\s+(?:i|we|the\s+user)\s+(?:like|prefer|want|dislike|avoid)"
    r"|how\s+(?:do|does)\s+(?:i|we|the\s+user)\s+like)\b",
    re.IGNORECASE,
)
"""A query asking for the user's standing instructions as such ("What are my preferences?")."""
_TEMPORAL_Q = re.compile(
    r"\b(when|what\s+(?:date|time|year|month|day)|how\s+long)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class TimeRange:
    """A half-open interval of epoch milliseconds the query refers to."""

    start_ms: int
    end_ms: int
    label: str

    def contains(self, ms: int) -> bool:
        """True when `ms` falls in the range."""
        return self.start_ms <= ms < self.end_ms


@dataclass(frozen=True)
class QueryIntent:
    """What `understand` found in a query."""

    text: str
    """The original query."""
    terms: tuple[str, ...]
    """Content words left for fulltext matching (speaker names and stop words removed)."""
    speakers: tuple[str, ...] = ()
    """Known speakers the query names (as stored)."""
    times: tuple[TimeRange, ...] = field(default=())
    """Time ranges the query names."""
    temporal: bool = False
    """True for "when"-style questions (the answer is a date)."""
    asks_rules: bool = False
    """True when the query asks for the user's rules or preferences themselves: every correction
    in force is then relevant, whatever words it shares with the query."""

    @property
    def keyword_query(self) -> str:
        """Terms joined for the engine's fulltext procedure (falls back to the whole text)."""
        return " ".join(self.terms) if self.terms else self.text


def _month_range(year: int, month: int, label: str) -> TimeRange:
    return TimeRange(*month_range(year, month), label)


def _day_range(year: int, month: int, day: int, label: str) -> TimeRange | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None
    # A day named in a conversation is often reported a little later: widen to a week after.
    return TimeRange(to_ms(start - timedelta(days=1)), to_ms(start + timedelta(days=8)), label)


def _relative(expr: str, now: datetime) -> TimeRange:
    return TimeRange(*relative_range(expr, now), " ".join(expr.lower().split()))


def find_times(text: str, now: datetime) -> tuple[list[TimeRange], str]:
    """Time ranges named in `text`, and the text with those expressions removed."""
    found: list[TimeRange] = []
    rest = text

    def cut(m: re.Match[str]) -> str:
        return " " * (m.end() - m.start())

    for m in _DAY_MONTH_YEAR.finditer(rest):
        r = _day_range(int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1)), m.group(0))
        if r:
            found.append(r)
    rest = _DAY_MONTH_YEAR.sub(cut, rest)
    for m in _MONTH_DAY_YEAR.finditer(rest):
        r = _day_range(int(m.group(3)), MONTHS[m.group(1).lower()], int(m.group(2)), m.group(0))
        if r:
            found.append(r)
    rest = _MONTH_DAY_YEAR.sub(cut, rest)
    for m in _MONTH_YEAR.finditer(rest):
        found.append(_month_range(int(m.group(2)), MONTHS[m.group(1).lower()], m.group(0)))
    rest = _MONTH_YEAR.sub(cut, rest)
    for m in _IN_YEAR.finditer(rest):
        y = int(m.group(1))
        found.append(TimeRange(*year_range(y), m.group(0)))
    rest = _IN_YEAR.sub(cut, rest)
    for m in RELATIVE_TIME.finditer(rest):
        found.append(_relative(m.group(0), now))
    rest = RELATIVE_TIME.sub(cut, rest)
    return found, rest


def _name_forms(name: str) -> set[str]:
    parts = [p for p in re.split(r"\s+", name.strip().lower()) if p]
    forms = {" ".join(parts)}
    if parts:
        forms.add(parts[0])
    return forms


def understand(
    text: str, *, speakers: tuple[str, ...] = (), now: datetime | None = None
) -> QueryIntent:
    """Parse a free-text query into content terms, named speakers and named time ranges.

    Args:
        text: the query.
        speakers: known speaker names of the project (as stored on turns).
        now: reference time for relative expressions ("last year"); defaults to the current time.
    """
    ref = now or utc_now()
    times, rest = find_times(text, ref)
    lowered = rest.lower()
    named: list[str] = []
    name_words: set[str] = set()
    for sp in speakers:
        forms = _name_forms(sp)
        if any(re.search(rf"\b{re.escape(f)}(?:'s)?\b", lowered) for f in forms if f):
            named.append(sp)
            for f in forms:
                name_words.update(f.split())
    terms: list[str] = []
    seen: set[str] = set()
    for w in query_words(rest):
        lw = w.lower().removesuffix("'s")
        if lw in QUERY_STOPWORDS or lw in name_words or len(lw) < 2 or lw in seen:
            continue
        seen.add(lw)
        terms.append(lw)
    return QueryIntent(
        text=text,
        terms=tuple(terms),
        speakers=tuple(named),
        times=tuple(times),
        temporal=bool(_TEMPORAL_Q.search(text)),
        asks_rules=bool(_RULES_Q.search(text)),
    )
