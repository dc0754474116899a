"""A topic's brief: an extractive summary with key takeaways, from its turns and knowledge (pure).

The material is what the graph holds about one topic: the turns that mention it (`MENTIONS`) and
the knowledge items **linked** to it, i.e. derived from one of those turns or naming the topic
(every word of its title, stemmed, in the item's text). That is narrower than a reference
layer's `related` (which also takes items of the same sessions): a takeaway must be about the
topic, not merely said the same day.

- **Key takeaways** state the linked items first (rules and corrections, then decisions and
  other facts, then lessons; heaviest first), one line each, repeats dropped. When fewer than
  `MIN_TAKEAWAYS` items are linked, the most salient short statements of the turns fill in,
  third-person and attributed.
- **The summary** opens with who discussed the topic, in how many sessions and when, then the
  turns' most salient, distinct sentences (`knowledge.prose.salient`, focused on the topic's
  words, skipping what a takeaway already says), in the third person, grouped by day in time
  order, until the brief holds about `TARGET_WORDS`; never more than `MAX_WORDS`.

Sentences addressing the other speaker ("you ...") and image captions are left out: a summary
states what was said about the topic, not the conversation's courtesies. Deterministic: the same
material gives the same brief, which is what lets the REM job keep a brief whose material did not
change (`material_hash`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from consolidate.text import clip
from core.text import content_words, stem
from graph.rows import ExampleTurn, KnowledgeNode, TopicSummary
from knowledge.prose import (
    Sentence,
    attributed,
    candidates,
    is_person,
    is_repeat,
    salient,
    third_person,
)

__all__ = [
    "MAX_WORDS",
    "MIN_TAKEAWAYS",
    "TARGET_WORDS",
    "Brief",
    "Takeaway",
    "build_brief",
    "linked_items",
    "material_hash",
]

FORMAT = 1
"""Version of the way briefs are built; part of the material hash, so a change rebuilds them."""
TARGET_WORDS = 450
"""Words a brief aims at when the material is there (the seed asks for 300–500)."""
MAX_WORDS = 1_000
"""Hard limit on a brief's words."""
MAX_TAKEAWAYS = 8
"""Most key takeaways listed."""
MIN_TAKEAWAYS = 3
"""Fewer linked items than this: the turns' best short statements fill the list up."""
TAKEAWAY_WORDS = 40
"""Longest takeaway drawn from a turn (whitespace words); an item's is clipped to 300 chars."""

LONGEST_SENTENCE = 80
"""Longer "sentences" (run-ons, pasted logs) are not quoted."""

_STANDING = frozenset({"pattern", "preference", "rule"})
"""Correction statuses worth naming: the user said it more than once."""
_KIND_ORDER = {"correction": 0, "fact": 1, "lesson": 2}
_SUBKIND_ORDER = {"rule": 0, "preference": 1, "decision": 0, "todo": 3}
_CAPTION = re.compile(r"\[(?:shares?|sends?|sent|shared) [^\]]*\]", re.IGNORECASE)
_CODE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_YOU = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'll|you'd)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself)\b")
_CHATTER = re.compile(
    r"(?:hey|hi|hello|thanks|thank you|congrats|congratulations|wow|woohoo|yay|sorry|oh|aw+|check|"
    r"haha|lol)\b",
    re.IGNORECASE,
)
"""Greetings, thanks and "check ..." that open a sentence."""
_POINTER = re.compile(
    r"\b(?:check (?:it |this |that )?out|take a look|look at (?:this|that)|here's|here is|"
    r"this (?:pic|photo|picture)|the pic)\b",
    re.IGNORECASE,
)
"""Pointers to a picture or a thing the summary cannot show."""


@dataclass(frozen=True)
class Takeaway:
    """One key takeaway and what it states (a knowledge item's id, or a turn's)."""

    text: str
    source_id: str
    kind: str


@dataclass(frozen=True)
class Brief:
    """What `build_brief` returns.

    Attributes:
        summary: the lead and the salient sentences, paragraphs separated by a blank line.
        takeaways: the key takeaways, most important first.
        text: the whole brief as Markdown (the summary, then "Key takeaways:" as a list).
        words: whitespace words of `text`.
        turn_ids: turns quoted (in the summary or a takeaway).
        item_ids: knowledge items stated as takeaways.
    """

    summary: str
    takeaways: tuple[Takeaway, ...]
    text: str
    words: int
    turn_ids: tuple[str, ...]
    item_ids: tuple[str, ...]


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def linked_items(
    topic: TopicSummary, items: Iterable[KnowledgeNode], turn_ids: Iterable[str]
) -> list[KnowledgeNode]:
    """Live items derived from one of the topic's turns or naming the topic, most important first.

    Order: corrections (rules first), facts (decisions first, to-dos last), lessons; then weight.
    """
    turns = set(turn_ids) | set(topic.message_ids)
    title = _stems(topic.title)
    out = [
        it
        for it in items
        if it.kind in _KIND_ORDER
        and (set(it.turn_ids) & turns or (title and title <= _stems(f"{it.title} {it.text}")))
    ]
    return sorted(
        out,
        key=lambda x: (_KIND_ORDER[x.kind], _SUBKIND_ORDER.get(x.subkind, 2), -x.weight, x.id),
    )


def material_hash(
    topic: TopicSummary,
    turns: Sequence[ExampleTurn],
    items: Sequence[KnowledgeNode],
    context: Sequence[ExampleTurn] = (),
) -> str:
    """A fingerprint of everything a brief is built from: the topic, its turns and items."""
    h = hashlib.sha256(f"{FORMAT}\x00{topic.title}\x00{' '.join(topic.keywords)}".encode())
    for t in sorted({x.id: x for x in [*turns, *context]}.values(), key=lambda x: x.id):
        h.update(f"\x00t{t.id}\x00{t.speaker}\x00{t.at_ms}\x00{t.text}".encode())
    for it in sorted(items, key=lambda x: x.id):
        h.update(f"\x00i{it.id}\x00{it.subkind}\x00{it.title}\x00{it.text}".encode())
    return h.hexdigest()[:32]


def _sentence_case(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _item_statement(it: KnowledgeNode, project: str) -> str:
    """What an item states: a lesson's summary when it says more than its title."""
    text = it.title
    if it.kind == "lesson" and len(it.text) > len(it.title):
        text = it.text
    return _sentence_case(clip(text.removeprefix(f"{project}: "), 300))


def _item_text(it: KnowledgeNode, project: str) -> str:
    """An item as one takeaway line: its statement, a decision or a standing correction marked."""
    text = _item_statement(it, project)
    if it.kind == "fact" and it.subkind == "decision":
        return f"Decision: {text}"
    if it.kind == "correction" and (it.subkind in _STANDING or len(it.session_ids) > 1):
        status = f"a {it.subkind}" if it.subkind in _STANDING else "a correction"
        n = len(it.session_ids)
        return f"{text[:-1]} ({status}{f', from {n} sessions' if n > 1 else ''})."
    return text


def _item_takeaways(
    items: Sequence[KnowledgeNode], project: str
) -> tuple[list[Takeaway], list[frozenset[str]]]:
    """Takeaways stating the items, repeats and first-person texts left out, and their words."""
    out: list[Takeaway] = []
    seen: list[frozenset[str]] = []
    for it in items:
        statement = _item_statement(it, project)
        words = frozenset(content_words(statement))
        if not words or _FIRST_PERSON.search(statement) or any(is_repeat(words, s) for s in seen):
            continue
        seen.append(words)
        out.append(Takeaway(_item_text(it, project), it.id, it.kind))
        if len(out) >= MAX_TAKEAWAYS:
            break
    return out, seen


def _speaker(t: ExampleTurn) -> tuple[str, bool]:
    if is_person(t.speaker):
        return t.speaker, True
    return ("User" if t.role == "user" else "Assistant"), False


def _clean(text: str) -> str:
    return _CAPTION.sub(" ", _CODE.sub(" ", text or ""))


def _about(c: Sentence, focus: frozenset[str]) -> bool:
    """Worth stating: not chatter, and about the speaker or naming the topic.

    A sentence without the speaker's first-person words ("Plus, making it is so calming") must
    name the topic to say something about it.
    """
    if (
        len(c.text.split()) > LONGEST_SENTENCE
        or _YOU.search(c.text)
        or _CHATTER.match(c.text)
        or _POINTER.search(c.text)
    ):
        return False
    return bool(_FIRST_PERSON.search(c.text) or c.words & focus)


def _candidates(
    turns: Sequence[ExampleTurn],
    focus: frozenset[str],
    context: Sequence[ExampleTurn] = (),
    vocabulary: frozenset[str] = frozenset(),
) -> list[Sentence]:
    """Sentences of the mentioning turns, and of the turns around them using the topic's words."""
    around = {t.id for t in context} - {t.id for t in turns}
    ordered = sorted({t.id: t for t in [*turns, *context]}.values(), key=lambda t: (t.at_ms, t.id))
    lines = [(*_speaker(t), _clean(t.text), t.id) for t in ordered]
    return [
        c
        for c in candidates(lines)
        if _about(c, focus) and (c.source not in around or c.words & vocabulary)
    ]


def _statement(c: Sentence, at_ms: int) -> str | None:
    """A candidate as a takeaway: short, its speaker the subject, dated.

    "I applied to adoption agencies!" → "Caroline applied to adoption agencies (23 August 2023)."
    """
    if len(c.text.split()) > TAKEAWAY_WORDS or c.speaker == "Assistant":
        return None  # what an agent says it will do is no takeaway (the user may correct it)
    name = c.speaker if c.person else f"the {c.speaker.lower()}"
    out, named = third_person(c.text.rstrip(".!"), name)
    if not named or not out.lower().startswith(name.lower()):
        return None
    return f"{out} ({_day(at_ms)})."


def _turn_takeaways(
    cands: Sequence[Sentence],
    focus: frozenset[str],
    said: list[frozenset[str]],
    room: int,
    at: Mapping[str, int],
) -> list[tuple[Takeaway, Sentence]]:
    out: list[tuple[Takeaway, Sentence]] = []
    if room <= 0:
        return out
    for c in salient(cands, max_words=TARGET_WORDS, said=said, focus=focus, ranked=True):
        text = _statement(c, at[c.source])
        if text is None or any(is_repeat(c.words, s) for s in said):
            continue
        said.append(c.words)
        out.append((Takeaway(text, c.source, "turn"), c))
        if len(out) >= room:
            break
    return out


def _day(ms: int) -> str:
    d = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return f"{d.day} {d:%B %Y}"


def _who(turns: Sequence[ExampleTurn]) -> str:
    people = list(dict.fromkeys(t.speaker for t in sorted(turns, key=lambda t: t.at_ms)))
    people = [p for p in people if is_person(p)]
    if not people:
        return "The user and the assistant"
    return people[0] if len(people) == 1 else f"{', '.join(people[:-1])} and {people[-1]}"


def _lead(topic: TopicSummary, turns: Sequence[ExampleTurn]) -> str:
    sessions = {t.session_id for t in turns}
    first = min(t.at_ms for t in turns)
    last = max(t.at_ms for t in turns)
    span = (
        f"on {_day(first)}"
        if _day(first) == _day(last)
        else f"between {_day(first)} and {_day(last)}"
    )
    n = len(sessions)
    where = "in one session" if n == 1 else f"in {n} sessions"
    return f"{_who(turns)} discussed {topic.title} {where} {span}."


def _paragraphs(chosen: Sequence[Sentence], at: dict[str, int]) -> list[str]:
    """Chosen sentences grouped by day, each group opening with its date."""
    groups: list[tuple[str, list[str]]] = []
    for c in chosen:
        day = _day(at[c.source])
        line = attributed(c, roles_in_third_person=True)
        if groups and groups[-1][0] == day:
            groups[-1][1].append(line)
        else:
            groups.append((day, [line]))
    return [f"{day}: {' '.join(lines)}" for day, lines in groups]


def _render(lead: str, paragraphs: Sequence[str], takeaways: Sequence[Takeaway]) -> str:
    parts = [lead, *paragraphs]
    if takeaways:
        parts.append("Key takeaways:\n" + "\n".join(f"- {t.text}" for t in takeaways))
    return "\n\n".join(parts) + "\n"


def _words(text: str) -> int:
    return len(text.split())


@dataclass
class _Draft:
    """A brief being fitted: the lead, the candidates left for the body, the takeaways."""

    lead: str
    rest: list[Sentence]
    takeaways: list[Takeaway]
    said: list[frozenset[str]]
    focus: frozenset[str]
    at: dict[str, int]

    def fit(self, budget: int, max_words: int) -> tuple[list[Sentence], str]:
        """The body's sentences and the rendered text, shrunk until it holds `max_words`."""
        while True:
            chosen = (
                salient(self.rest, max_words=budget, said=self.said, focus=self.focus)
                if budget > 0
                else []
            )
            text = _render(self.lead, _paragraphs(chosen, self.at), self.takeaways)
            over = _words(text) - max_words
            if over <= 0 or (not chosen and len(self.takeaways) <= 1):
                return chosen, text
            if chosen:
                budget -= over
            else:
                self.takeaways = self.takeaways[:-1]


def _draft(
    topic: TopicSummary,
    turns: Sequence[ExampleTurn],
    items: Sequence[KnowledgeNode],
    project: str,
    context: Sequence[ExampleTurn],
) -> _Draft:
    """The lead and the takeaways (linked items first, then the turns' best statements)."""
    linked = linked_items(topic, items, (t.id for t in turns))
    takeaways, said = _item_takeaways(linked, project)
    focus = frozenset(content_words(f"{topic.title} {' '.join(topic.keywords[:3])}"))
    names = {w.lower() for t in [*turns, *context] for w in t.speaker.split()}
    vocabulary = frozenset(content_words(f"{topic.title} {' '.join(topic.keywords)}")) - names
    cands = _candidates(turns, focus, context, vocabulary)
    at = {t.id: t.at_ms for t in [*turns, *context]}
    from_turns = _turn_takeaways(cands, focus, said, MIN_TAKEAWAYS - len(takeaways), at)
    used = {c.pos for _, c in from_turns}
    return _Draft(
        lead=_lead(topic, turns),
        rest=[c for c in cands if c.pos not in used],
        takeaways=takeaways + [t for t, _ in from_turns],
        said=said,
        focus=focus,
        at=at,
    )


def build_brief(
    topic: TopicSummary,
    turns: Sequence[ExampleTurn],
    items: Sequence[KnowledgeNode],
    *,
    project: str,
    target_words: int = TARGET_WORDS,
    max_words: int = MAX_WORDS,
    context: Sequence[ExampleTurn] = (),
) -> Brief | None:
    """The brief of one topic, or None when its turns hold nothing to summarise.

    Args:
        topic: the topic.
        turns: the user and assistant turns that mention it.
        items: the project's live knowledge items (those linked to the topic are used).
        context: turns around the mentions (the answer to a question about the topic); their
            sentences count when they use one of the topic's keywords.
        project: the project (a statement's "<project>: " prefix is dropped).
        target_words: words to aim at when the material is there.
        max_words: hard limit.
    """
    if not turns:
        return None
    d = _draft(topic, turns, items, project, context)
    taken = _words(d.lead) + sum(_words(t.text) + 1 for t in d.takeaways)
    chosen, text = d.fit(max(0, target_words - taken), max_words)
    if not chosen and not d.takeaways:
        return None
    quoted = [c.source for c in chosen] + [t.source_id for t in d.takeaways if t.kind == "turn"]
    return Brief(
        summary="\n\n".join([d.lead, *_paragraphs(chosen, d.at)]),
        takeaways=tuple(d.takeaways),
        text=text,
        words=_words(text),
        turn_ids=tuple(dict.fromkeys(quoted)),
        item_ids=tuple(t.source_id for t in d.takeaways if t.kind != "turn"),
    )
