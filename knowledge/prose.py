"""Extractive prose: salient, diverse sentences told in the third person (pure, deterministic).

The one owner of the rules that session summaries (ingest) and topic summaries (the REM cycle)
share:

- **who speaks**: `is_person` tells a person's name ("Caroline") from a role or a model ("user",
  "claude-sonnet-4");
- **third person**: `third_person` rewrites a speaker's first-person words to their name ("I went
  to a support group" → "Caroline went to a support group", "I prefer tabs" → "The user prefers
  tabs"), verbs agreeing for the common cases;
- **salience**: `salient` keeps the sentences that carry the material's informative words. A word
  counts by how many sentences of the material use it (what the material is about) times how rare
  it is in English (`knowledge.labels.zipf`: "adoption" says more than "good"); a sentence scores
  the sum over its words divided by the square root of its length. The best are taken greedily,
  skipping one that repeats a chosen one (`is_repeat`), within a word budget, and returned in their
  original order.

Sentences come from `core.text.sentences` and words from `core.text.content_words`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.text import content_words, sentences
from knowledge.labels import zipf

__all__ = [
    "MIN_WORDS",
    "REPEAT",
    "Sentence",
    "attributed",
    "candidates",
    "is_person",
    "is_repeat",
    "salient",
    "third_person",
]

MIN_WORDS = 5
"""Shortest sentence (whitespace words) worth keeping."""
REPEAT = 0.5
"""Jaccard overlap of content words with a chosen sentence from which a sentence is a repeat."""
_RARE_AT = 6.5
"""Zipf frequency at which a word stops being informative (the most common English words)."""

_MARKUP = re.compile(r"```|\$ |[\[{<|#>]")
"""A sentence opening like this is code, a prompt, a tool call or a tag (`[thinking]`)."""

_PERSON = re.compile(r"^[A-Z][a-z]+(?:[ '\-][A-Z][a-z]+){0,3}$")
_NOT_PEOPLE = frozenset(
    {"user", "assistant", "system", "tool", "human", "claude", "chatgpt", "codex", "gemini"}
)


def is_person(speaker: str) -> bool:
    """Whether a speaker label looks like a person's name (not `claude-sonnet-4`, not `user`)."""
    return bool(speaker) and bool(_PERSON.match(speaker)) and speaker.lower() not in _NOT_PEOPLE


# --- third person --------------------------------------------------------------------------------

_ADVERBS = (
    "really|also|just|still|always|never|usually|often|actually|totally|definitely|absolutely|"
    "truly|sometimes|even|only|already|especially|mostly|honestly|genuinely|certainly|now"
)
_VERBS = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        "admire adore agree appreciate ask attend bake believe build buy care cherish collect "
        "cook create dance do draw dream drink eat enjoy expect fear feel find fix get give go "
        "guess hate have hear hope imagine intend keep know learn like listen live look love "
        "make mean meet miss need "
        "own paint plan play practice practise prefer read realise realize recommend remember "
        "run say see seem sing spend start struggle study suggest support swim take teach tend "
        "think travel try understand use value visit volunteer walk want watch wish wonder work "
        "worry write "
        "adopt avoid belong borrow brew bring call climb coach code commute compose design "
        "develop dislike donate drive earn edit exercise fish fly follow foster garden grow "
        "handle hike host invest knit lead lend manage meditate mentor move order organise "
        "organize owe pay perform pray produce program raise record rent ride review sew shop "
        "ski skip sleep speak sponsor stay stream surf text train tutor wake wear"
    ).split()
)
"""Base-form verbs that follow "I" often enough in conversation to conjugate after a name."""
_IRREGULAR = {"have": "has", "do": "does", "go": "goes"}


_PAST_IRREGULAR = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        "came did drove flew got had led left made ran said took went wrote bought sold slipped "
        "quit stopped switched began"
    ).split()
)


def is_verb_form(word: str) -> bool:
    """Whether `word` is a conjugated verb people say of themselves ("leads", "moved", "went").

    A topic label ending in one is a clause ("maria leads", "deadline moved"), not a subject.
    """
    w = word.lower()
    return w in _CONJUGATED or w in _PAST_IRREGULAR


def _third_singular(verb: str) -> str:
    """`verb` in the third person singular ("prefer" → "prefers", "try" → "tries")."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_FORMS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(p), named, they)
    for p, named, they in (
        (r"I'm\b", "{n} is", "they're"),
        (r"I am\b", "{n} is", "they are"),
        (r"I haven't\b", "{n} hasn't", "they haven't"),
        (r"I have not\b", "{n} has not", "they have not"),
        (r"I've\b", "{n} has", "they've"),
        (r"I have\b", "{n} has", "they have"),
        (r"I'll\b", "{n} will", "they'll"),
        (r"I'd\b", "{n} would", "they'd"),
        (r"I wasn't\b", "{n} wasn't", "they weren't"),
        (r"I was\b", "{n} was", "they were"),
        (r"I don't\b", "{n} doesn't", "they don't"),
        (r"I do not\b", "{n} does not", "they do not"),
    )
)
"""First-person subject forms: as the speaker's first mention (singular) and later ("they")."""
_I_VERB = re.compile(rf"I(?P<adv>(?:\s+(?:{_ADVERBS}))?)\s+(?P<verb>[a-z]+)\b")
_OBJECT_FORMS = {"my": ("{n}'s", "their"), "mine": ("{n}'s", "theirs"), "me": ("{n}", "them")}
_OBJECT_FORMS["myself"] = ("{n}", "themselves")
_CONJUGATED = frozenset(
    {v + ("d" if v.endswith("e") else "ed") for v in _VERBS}
    # third-person forms that are rarely a plural noun (unlike "plans", "runs", "needs")
    | set(
        (  # noqa: SIM905 - a word list reads better as text
            "moves lives goes says wants likes loves thinks feels seems knows prefers believes "
            "becomes joins leaves starts stays"
        ).split()
    )
)
_LET_ME = re.compile(r"Let me (?!know\b)")
_FIRST_WORD = re.compile(r"\b(?:I|[Mm]y|[Mm]ine|[Mm]yself|me)\b")


def _subject(text: str, at: int, name: str, named: bool) -> tuple[str, int]:
    """The replacement for the "I ..." at `at` and where the replaced text ends."""
    for rx, first, later in _FORMS:
        if m := rx.match(text, at):
            return (later if named else first.replace("{n}", name)), m.end()
    if (m := _I_VERB.match(text, at)) and m.group("verb") in _VERBS:
        verb = m.group("verb") if named else _third_singular(m.group("verb"))
        return f"{'they' if named else name}{m.group('adv')} {verb}", m.end()
    return ("they" if named else name), at + 1


def third_person(sentence: str, name: str) -> tuple[str, bool]:
    """`sentence` with the speaker's first-person words in the third person; whether it names them.

    The first mention becomes `name` with the verb agreeing for the common cases ("I really
    love" → "Ann really loves", "I'm" → "Ann is"), later ones singular "they" ("I think I'm
    ready to give my love" → "Ann thinks they're ready to give their love"). A replacement that
    opens the sentence is capitalised ("the user" → "The user").
    """
    out: list[str] = []
    named = changed = False
    pos = 0
    if m := _LET_ME.match(sentence):  # "Let me check the logs" announces what the speaker does
        out.append(f"{name[:1].upper()}{name[1:]} will ")
        named = changed = True
        pos = m.end()
    for m in _FIRST_WORD.finditer(sentence):
        if m.start() < pos:
            continue
        out.append(sentence[pos : m.start()])
        word = m.group(0)
        reflexive = word.lower() == "myself"
        if word == "I":
            repl, pos = _subject(sentence, m.start(), name, named)
        else:
            first, later = _OBJECT_FORMS[word.lower()]
            # "express myself" is "express themselves" whoever says it, never "express Ann"
            repl = later if named or reflexive else first.replace("{n}", name)
            pos = m.end()
        if m.start() == 0:
            repl = repl[:1].upper() + repl[1:]
        out.append(repl)
        changed = True
        named = named or not reflexive
    if not changed:
        return sentence, False
    out.append(sentence[pos:])
    return "".join(out), named


# --- salience ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """One candidate sentence: where it came from and its content words.

    Attributes:
        pos: its position among all candidates (conversation order).
        speaker: a person's name when `person`, else a role label ("User", "Assistant").
        person: whether `speaker` is a person's name.
        text: the sentence.
        words: its content words.
        source: an id of what it came from (a turn), if the caller gave one.
    """

    pos: int
    speaker: str
    person: bool
    text: str
    words: frozenset[str]
    source: str = ""


def candidates(
    lines: Iterable[tuple[str, bool, str] | tuple[str, bool, str, str]],
) -> list[Sentence]:
    """The sentences worth considering: five words or more, no question, no code, tag or prompt.

    Args:
        lines: `(speaker, is_person, text)` or `(speaker, is_person, text, source)` per turn, in
            conversation order.
    """
    out: list[Sentence] = []
    for line in lines:
        who, person, text = line[0], line[1], line[2]
        source = line[3] if len(line) > 3 else ""
        for s in sentences(text):
            s = s.strip(" -*•")
            if len(s.split()) < MIN_WORDS or s.endswith("?") or _MARKUP.match(s):
                continue
            ws = frozenset(content_words(s))
            if ws:
                out.append(Sentence(len(out), who, person, s, ws, source))
    return out


def is_repeat(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two sentences' content words overlap enough (Jaccard ≥ `REPEAT`) to say one thing."""
    union = a | b
    return bool(union) and len(a & b) / len(union) >= REPEAT


def salient(
    cands: Sequence[Sentence],
    *,
    max_words: int,
    said: Sequence[frozenset[str]] = (),
    focus: frozenset[str] = frozenset(),
    ranked: bool = False,
) -> list[Sentence]:
    """The most informative, mutually distinct sentences within `max_words`, in original order.

    Args:
        cands: candidates (`candidates`).
        max_words: word budget (the first chosen sentence is kept whatever its length).
        said: content words of statements already made elsewhere (a summary's takeaways): a
            sentence repeating one is skipped.
        focus: words of the subject (a topic's title and keywords): a sentence that names one
            ranks before one that does not.
        ranked: return them most informative first instead.
    """
    if not cands:
        return []
    df = Counter(w for c in cands for w in c.words)
    weight = {w: n * max(0.0, _RARE_AT - zipf(w)) for w, n in df.items()}

    def rank(c: Sentence) -> tuple[bool, float, int]:
        score = sum(weight[w] for w in c.words) / math.sqrt(len(c.text.split()))
        return bool(focus) and not c.words & focus, -score, c.pos

    chosen: list[Sentence] = []
    used = 0
    for c in sorted(cands, key=rank):
        if any(is_repeat(c.words, o.words) for o in chosen) or any(
            is_repeat(c.words, s) for s in said
        ):
            continue
        n = len(c.text.split())
        if chosen and used + n > max_words:
            continue
        chosen.append(c)
        used += n
        if used >= max_words:
            break
    return chosen if ranked else sorted(chosen, key=lambda c: c.pos)


def attributed(c: Sentence, *, roles_in_third_person: bool = False) -> str:
    """A chosen sentence as a summary states it, ending in a full stop.

    A person's first-person words become their name; a sentence without any is prefixed with
    who said it ("Caroline: ..."). A role's sentence is labelled ("User: ...") unless
    `roles_in_third_person`, where its first-person words become "the user" / "the assistant".
    """
    text = c.text if c.text[-1] in ".!" else c.text + "."
    if c.person or roles_in_third_person:
        name = c.speaker if c.person else f"the {c.speaker.lower()}"
        text, named = third_person(text, name)
        if named:
            return text
    return f"{c.speaker}: {text}"
