"""The offline extractor: deterministic cue rules, no network, fast.

What it finds in one session:

- **corrections**: a user pushing back on the agent ("no, use X not Y", "use X instead of Y",
  "don't ...", "stop ...", "actually ...", "I told you ...", "always/never ...", "from now on ...");
- **facts**: decisions and preferences ("let's use X (for Y)", "we decided to ...", "switch to X",
  "I prefer X"), todos ("TODO: ...", "we need to ..."), and personal facts in conversation
  ("I live in X", "I moved to X", "I work at/as X");
- **lessons**: problem → attempt → outcome sequences: an error (failing tool result, traceback,
  "FAILED") followed by assistant attempts and then a passing run;
- **topics**: RAKE keyphrases recurring across turns, with their turns, keywords and entities;
- **entities**: speakers and capitalised names (people), technologies (lexicon), projects;
- **enrichment**: intent, outcome, frustration cues and tool statistics.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal

from ai.embed import Embedder
from core.ids import normalize_key
from core.text import sentences, words
from core.timeutil import MONTHS, RELATIVE_TIME, WEEKDAYS
from graph.models import CorrectionType, FactKind, LessonCategory
from ingest.extract.distil import SentenceActs, distil
from ingest.extract.models import (
    CorrectionCandidate,
    EntityMentions,
    ExtractionResult,
    FactCandidate,
    LessonCandidate,
    SessionEnrichment,
    SessionInput,
    TopicCandidate,
    TurnInput,
)
from ingest.extract.observations import observations
from ingest.extract.outcome import assess
from ingest.extract.sentences import typed
from ingest.extract.summary import extractive_summary
from ingest.extract.text import (
    TECH_CATEGORIES,
    Keyphrase,
    capitalised_names,
    clean_text,
    keyphrases,
    tech_category,
    technologies,
    top_words,
    with_category,
)
from knowledge.environments import scoped_subject
from knowledge.habits import HABIT_VERBS, PARTING
from knowledge.labels import is_generic_label
from knowledge.prose import is_person, is_verb_form
from knowledge.stance import LEAD_WORDS, lifting, notations

__all__ = ["OfflineExtractor", "normalize_rule"]

# --- corrections ---------------------------------------------------------------------------------

_LEAD = rf"(?:{LEAD_WORDS}[,.!:]?\s+)*"
_X = r"(?P<x>[^.,;!?\n]{1,80}?)"
_Y = r"(?P<y>[^.,;!?\n]{1,80}?)"
_END = r"\s*(?:[.,;!?\n]|$)"

_INSTEAD = re.compile(
    rf"^{_LEAD}(?:you should\s+|please\s+)?(?P<verb>use|run|call|prefer|write|put|keep|pick|try)\s+"
    rf"{_X}\s*(?:,\s*)?(?:instead of|rather than|over|and not|not)\s+{_Y}{_END}",
    re.IGNORECASE,
)
# "use X, don't Y" / "prefer X; never Y"
_USE_DONT = re.compile(
    rf"^{_LEAD}(?P<verb>use|prefer|run|stick to|stick with)\s+(?P<x>[^.,;!?\n]{{1,80}}?)\s*[,;]\s*"
    rf"(?:and\s+)?(?:don't|dont|do not|never)\s+(?P<y>[^.;!?\n]{{1,80}}?){_END}",
    re.IGNORECASE,
)
# "yarn, not npm" / "httpx, not requests" / "poetry add, not pip install": a terse choice
_BARE_PAIR = re.compile(
    rf"^{_LEAD}(?:[\w ,]{{0,40}}:\s*)?(?!(?:i|we|you|he|she|they|it|this|that|my|our)\b)"
    rf"(?P<x>[\w.+#\-]+(?: [\w.+#\-]+)?),\s*not\s+"
    rf"(?P<y>[\w.+#\-]+(?: [\w.+#\-]+){{0,2}}){_END}",
    re.IGNORECASE,
)
# "don't use requests in the ingestion service, use httpx": the refusal names the alternative
_TOKEN = r"[\w+#\-]+(?:\.[\w+#\-]+)*"
_DONT_USE_USE = re.compile(
    rf"^{_LEAD}(?:don't|dont|do not|never|stop)\s+(?:use|using)\s+"
    rf"(?P<y>{_TOKEN}(?:\s+(?!(?:in|for|on|with|inside)\b){_TOKEN})?)"
    r"(?P<scope>\s+(?:in|for|on|with|inside)\s+[^.,;!?\n]{1,60}?)?\s*[,;]\s*"
    rf"(?:just\s+|instead\s+)?(?:use|go with|pick)\s+(?P<x>{_TOKEN}(?:\s+(?!instead\b){_TOKEN})?)"
    r"(?:\s+instead)?\s*(?:[.;,!?\n]|$)",
    re.IGNORECASE,
)
# "Stop squash merging, use regular merge commits": the refusal, then what to do instead
_STOP_THEN_DO = re.compile(
    rf"^{_LEAD}(?:don't|dont|do not|never|stop|quit|avoid)\s+(?P<y>[^,;.!?\n]{{3,80}}?)\s*[,;]\s*"
    rf"(?:and\s+)?(?:just\s+|instead\s+)?(?P<verb>use|do|run|write|go with|prefer|make)\s+"
    rf"(?P<x>[^.;!?\n]{{2,80}}?)(?:\s+instead)?{_END}",
    re.IGNORECASE,
)
# "Run the tests before committing", "tests before every commit": a step that goes with another
_PROCEDURE = re.compile(
    rf"^{_LEAD}(?:please\s+)?(?!(?:i|we|you|he|she|they|it|this|that|there)\b)"
    rf"(?P<x>(?:(?:run|check|lint|format|rebase|pull|update|review|confirm|build|test|ask|ping|"
    rf"back up|bump|regenerate|squash)\b[^.;!?\n]{{1,80}}?|[a-z][\w\- ]{{2,30}}?)\s+"
    rf"(?:before|after)\s+(?:(?:every|each|any)\s+\w+|(?:you|we)\s+\w+|\w+ing\b)"
    rf"(?:\s+[\w\-]+){{0,3}}?){_END}",
    re.IGNORECASE,
)
# "Use tabs for indentation", "use pytest for unit tests": a named tool for a kind of work
_USE_FOR = re.compile(
    rf"^{_LEAD}(?:please\s+)?use\s+(?P<x>[\w.+#\-]+(?:\s+[\w.+#\-]+)?)(?:\s+for\s+"
    rf"(?!(?:this|that|it|now|these|those)\b|the\s+(?:attached|above|following|next)\b)"
    rf"(?P<y>[a-z][\w\- ]{{2,40}}?))?{_END}",
    re.IGNORECASE,
)
# "We've switched back to npm", "we moved to pnpm": what the project does now
_WE_SWITCHED = re.compile(
    rf"^{_LEAD}(?:we|i)(?:'ve| have)?\s+(?:now\s+)?(?:switched|moved|gone|migrated|went|changed)\s+"
    rf"(?:back\s+)?(?:over\s+)?to\s+(?P<x>[\w.+#\-]+(?:\s+[\w.+#\-]+)?){_END}",
    re.IGNORECASE,
)
_INSTEAD_TAIL = re.compile(
    rf"^{_LEAD}(?P<verb>use|run|call|write|put|keep)\s+{_X}\s+instead{_END}", re.IGNORECASE
)
_NEG = re.compile(
    rf"^{_LEAD}(?P<neg>don't|dont|do not|never|stop|quit|avoid)\s+(?P<x>[^.;!?\n]{{3,120}}?){_END}",
    re.IGNORECASE,
)
# "No flights before 9am", "no early-morning departures", "nothing that leaves before nine":
# a constraint on what the assistant picks, stated without a verb.
_NO_THING = re.compile(
    rf"^{_LEAD}(?:i told you,?\s+|again,?\s+)?(?P<neg>no|nothing)\s+"
    rf"(?P<x>(?:[\w\-]+\s+){{0,3}}?(?:[\w\-]+s|that\s+\w+)\s+"
    rf"(?:before|after|on|at|with|without|in|over|under|above|below|later than|earlier than)\s+"
    rf"[^.;!?\n]{{1,60}}?|[\w\-]+(?:\s+[\w\-]+)?\s+\w+s)"
    rf"(?:,?\s+(?:please|thanks|thank you))?{_END}",
    re.IGNORECASE,
)
_ALWAYS = re.compile(
    rf"^{_LEAD}(?:(?:from now on|going forward|in future|in the future),?\s+)?(?:please\s+)?"
    rf"(?P<adv>always|make sure to|make sure you|remember to)\s+(?P<x>[^.;!?\n]{{3,120}}?){_END}",
    re.IGNORECASE,
)
_FROM_NOW = re.compile(
    rf"^{_LEAD}(?:from now on|going forward|in future|in the future),?\s+"
    rf"(?P<x>[^.;!?\n]{{3,120}}?){_END}",
    re.IGNORECASE,
)
# "Please reply in Spanish from now on", "use DD/MM/YYYY for dates going forward"
_FROM_NOW_TAIL = re.compile(
    rf"^{_LEAD}(?!(?:i|we|you|he|she|they|it|this|that|there|my|our|the)\b)"
    rf"(?P<x>[a-z][^.;!?\n]{{3,120}}?),?\s+"
    rf"(?:from now on|going forward|from here on(?: out)?|in future|in the future)"
    rf"(?:,?\s+(?:please|thanks|thank you))?{_END}",
    re.IGNORECASE,
)
_TOLD = re.compile(
    r"^(?:" + _LEAD + r")(?:i told you|i already told you|i said|as i said|like i said)"
    r"(?: (?:before|earlier|already))?,?\s+(?:to\s+|that\s+)?"
    r"(?P<x>[^.;!?\n]{3,120}?)\s*(?:[.;!?\n]|$)",
    re.IGNORECASE,
)
_ACTUALLY = re.compile(
    r"^(?:no[,.!]?\s+)?actually,?\s+(?P<x>[^.;!?\n]{3,120}?)\s*(?:[.;!?\n]|$)", re.IGNORECASE
)
_WRONG = re.compile(
    r"^(?:no[,.!]?\s+)?(?:that'?s|this is|that is|it'?s)\s+"
    r"(?:wrong|incorrect|not right|not correct)"
    r"[,.:;!]?\s*(?P<x>[^;!?\n]{0,160})",
    re.IGNORECASE,
)
# Imperatives that are conversational, not corrections ("don't worry", "never mind").
_BENIGN = re.compile(
    r"^(?:worry|worries|mind|hesitate|be sorry|be afraid|be shy|give up|forget|know|"
    r"think so|think|care|get me wrong|apologi[sz]e|stress|panic|rush|feel|be too hard|like|"
    r"want|need|have|get|see|remember|believe|understand|blame|doubt|miss|regret)\b",
    re.IGNORECASE,
)
# After "always"/"never" an instruction continues with a base-form verb; conversation continues
# with a past tense, an adjective or an adverb ("never saw this coming", "always up for it").
_NOT_VERB = re.compile(
    r"^(?:\w+ed|been|saw|was|were|had|did|said|thought|knew|felt|got|went|made|seen|up|down|"
    r"good|great|nice|fun|happy|glad|here|there|so|such|a|an|the|my|your|our|too|very|really|"
    r"just|something|someone|somebody|anything|everything|one|ready|welcome|interested|been)\b",
    re.IGNORECASE,
)
_TYPE_RULES: list[tuple[CorrectionType, re.Pattern[str]]] = [
    (
        "style",
        re.compile(
            r"\b(indent|tabs?|spaces|format|formatting|style|naming|name[sd]?|comments?|docstrings?|"
            r"quotes|camel ?case|snake ?case|line length|emoji|capitali[sz]e|wording|tone|verbose|"
            r"concise|markdown|headers?|bullet)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "tool_usage",
        re.compile(
            r"\b(pip|uv|npm|pnpm|yarn|poetry|git|docker|pytest|make|cargo|bash|shell|sudo|grep|"
            r"sed|curl|tool|command|cli|flag|--\w+)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "process",
        re.compile(
            r"\b(commit|push|pull request|pr|review|deploy|release|tests?|ci|before|after|first|"
            r"then|workflow|branch|merge|ask me|check with|plan)\b",
            re.IGNORECASE,
        ),
    ),
]
_FRUSTRATION = re.compile(
    r"(i told you|again\b|still (?:not|doesn'?t|broken|failing)|doesn'?t work|not working|"
    r"!!+|\bwtf\b|\bugh\b|come on|seriously|how many times|for the last time)",
    re.IGNORECASE,
)


def normalize_rule(text: str) -> str:
    """Turn a correction clause into an instruction: trimmed, capitalised, one final period."""
    t = re.sub(r"\s+", " ", text).strip().strip("\"'`").strip()
    t = re.sub(r"^(?:please|pls|just|you should|you must|you need to)\s+", "", t, flags=re.I)
    t = t.rstrip(" .,;:!?")
    if not t:
        return ""
    return t[0].upper() + t[1:] + "."


def _classify(text: str) -> CorrectionType:
    for kind, rx in _TYPE_RULES:
        if rx.search(text):
            return kind
    return "preference"


def _summary(turns: Sequence[TurnInput]) -> str:
    """The session's extractive summary; a conversation between people opens with who and when."""
    said = [t for t in turns if t.role in ("user", "assistant") and t.text.strip()]
    said = [t for t in said if not t.tool_name]
    body = extractive_summary(
        [
            (
                t.speaker if is_person(t.speaker) else t.role.title(),
                is_person(t.speaker),
                clean_text(t.text, 2000),
            )
            for t in said
        ]
    )
    people = list(dict.fromkeys(t.speaker for t in said if is_person(t.speaker)))
    if not body or not people:
        return body
    who = people[0] if len(people) == 1 else f"{', '.join(people[:-1])} and {people[-1]}"
    when = said[0].timestamp
    return f"{who} talked on {when.day} {when:%B %Y}. {body}"


def _first_sentence(text: str, limit: int = 200) -> str:
    for s in sentences(clean_text(text, 2000)):
        if len(s) > 3:
            return s[:limit]
    return clean_text(text, limit)


def _clauses(text: str) -> list[str]:
    """The typed sentences of a message (`sentences.typed`: pasted code and logs left out)."""
    return [s.strip(" -*•") for s in sentences(clean_text(typed(text), 3000))]


Parsed = tuple[str, str, str, bool, str | None]
"""`(rule_text, corrected, original, explicit_rule, negates)` of one correction clause."""


class _Shape(Enum):
    OTHER = "other"


_NEXT: Final = _Shape.OTHER
"""A clause parser's answer for "not my shape, try the next one"."""

Answer = Parsed | Literal[_Shape.OTHER] | None
"""What a clause parser says: a correction, `_NEXT`, or None (my shape, but not a correction)."""


def _instead(clause: str) -> Answer:
    m = _INSTEAD.match(clause)
    if not m:
        return _NEXT
    verb, x, y = m.group("verb").lower(), m.group("x").strip(), m.group("y").strip()
    if verb == "prefer":
        verb = "use"
    return normalize_rule(f"{verb} {x} instead of {y}"), f"{verb} {x}", f"{verb} {y}", False, None


def _instead_tail(clause: str) -> Answer:
    m = _INSTEAD_TAIL.match(clause)
    if not m:
        return _NEXT
    verb, x = m.group("verb").lower(), m.group("x").strip()
    return normalize_rule(f"{verb} {x} instead"), f"{verb} {x}", "", False, None


def _use_dont(clause: str) -> Answer:
    m = _USE_DONT.match(clause)
    if not m:
        return _NEXT
    verb, x, y = m.group("verb").lower(), m.group("x").strip(), m.group("y").strip()
    return normalize_rule(f"{verb} {x}, do not {y}"), f"{verb} {x}", y, False, None


def _dont_use_use(clause: str) -> Answer:
    m = _DONT_USE_USE.match(clause)
    if not m:
        return _NEXT
    x, y = m.group("x").strip(), m.group("y").strip()
    scope = (m.group("scope") or "").strip()
    rule = f"use {x} instead of {y}" + (f" {scope}" if scope else "")
    return normalize_rule(rule), f"use {x}", f"use {y}", False, None


def _stop_then_do(clause: str) -> Answer:
    m = _STOP_THEN_DO.match(clause)
    if not m:
        return _NEXT
    y, verb, x = m.group("y").strip(), m.group("verb").lower(), m.group("x").strip()
    return normalize_rule(f"{verb} {x} instead of {y}"), f"{verb} {x}", y, False, y


def _procedure(clause: str) -> Answer:
    m = _PROCEDURE.match(clause)
    if not m or len(words(m.group("x"))) < 3:
        return _NEXT
    x = m.group("x").strip()
    return normalize_rule(x), x, "", False, None


def _use_for(clause: str) -> Answer:
    m = _USE_FOR.match(clause)
    if not m or not (technologies(m.group("x")) or notations(m.group("x"))):
        return _NEXT
    x, y = m.group("x").strip(), (m.group("y") or "").strip()
    return normalize_rule(f"use {x} for {y}" if y else f"use {x}"), f"use {x}", "", False, None


def _we_switched(clause: str) -> Answer:
    m = _WE_SWITCHED.match(clause)
    if not m or not (technologies(m.group("x")) or m.group("x")[:1].isupper()):
        return _NEXT
    if not technologies(m.group("x")) and _moved_home(clause):  # "I moved to New York": a home
        return _NEXT
    x = m.group("x").strip()
    return normalize_rule(f"use {x}"), f"use {x}", "", True, None


def _bare_pair(clause: str) -> Answer:
    m = _BARE_PAIR.match(clause)
    if not m:
        return _NEXT
    x, y = m.group("x").strip(), m.group("y").strip().rstrip(".")
    return normalize_rule(f"{x}, not {y}"), x, y, False, None


def _always(clause: str) -> Answer:
    m = _ALWAYS.match(clause)
    if not m or _NOT_VERB.match(m.group("x").strip()):
        return _NEXT
    x = m.group("x").strip()
    prefix = "Always" if m.group("adv").lower() == "always" else "Make sure to"
    return normalize_rule(f"{prefix} {x}"), x, "", True, None


_NEG_LEAD = {"never": "Never", "stop": "Stop", "quit": "Stop", "avoid": "Avoid"}


def _no_thing(clause: str) -> Answer:
    m = _NO_THING.match(clause)
    if not m:
        return _NEXT
    x = re.sub(r",?\s+(?:please|thanks|thank you)$", "", m.group("x").strip(), flags=re.I)
    if len(words(x)) < 2:
        return _NEXT
    lead = "nothing" if m.group("neg").lower() == "nothing" else "no"
    return normalize_rule(f"{lead} {x}"), f"{lead} {x}", x, False, x


def _negation(clause: str) -> Answer:
    m = _NEG.match(clause)
    if not m:
        return _NEXT
    neg, x = m.group("neg").lower(), m.group("x").strip()
    if _BENIGN.match(x) or len(words(x)) < 1:
        return None
    if neg == "never" and (_NOT_VERB.match(x) or x.lower().startswith("say never")):
        return None
    lead = _NEG_LEAD.get(neg, "Do not")
    return normalize_rule(f"{lead} {x}"), f"not {x}", x, neg == "never", x


def _stated(
    rx: re.Pattern[str], *, explicit: bool, need_text: bool = False
) -> Callable[[str], Answer]:
    """A clause whose `x` group is the rule itself ("from now on x", "I told you x", ...).

    With `need_text`, a match whose `x` is blank is not this shape (the next one is tried).
    """

    def parse(clause: str) -> Answer:
        m = rx.match(clause)
        if not m or (need_text and not m.group("x").strip()):
            return _NEXT
        x = m.group("x").strip()
        return normalize_rule(x), x, "", explicit, None

    return parse


# After "forget what I said about X": "We use Y now" is what replaces it.
_WE_USE = re.compile(
    r"^(?:so\s+|instead,?\s+)?(?:we|i)(?:'ll|\s+will)?\s+(?:now\s+)?(?:use|prefer|do|go with)\s+"
    r"(?P<x>[^.;!?\n,]{2,80}?)(?:\s+(?:now|from now on|instead|these days))?\s*(?:[.,;!?\n]|$)",
    re.IGNORECASE,
)
_AFTER_COMMA = re.compile(r"[,;:]\s+")


def _replacement(clause: str, t: TurnInput) -> CorrectionCandidate | None:
    """After a withdrawn instruction, "we use Y now" is the rule that replaces it."""
    m = _WE_USE.match(clause)
    if m is None:
        return None
    x = m.group("x").strip()
    return CorrectionCandidate(
        type=_classify(clause),
        corrected_behaviour=f"use {x}",
        rule_text=normalize_rule(f"use {x}"),
        confidence=0.75,
        explicit_rule=True,
        turn_ids=(t.id,),
        seen_at=t.timestamp,
    )


_ACTUALLY_LEAD = re.compile(r"^(?:use|run|it'?s|the|we|you|call|put|keep|don'?t|do not)", re.I)


def _actually(clause: str) -> Answer:
    m = _ACTUALLY.match(clause)
    if not m:
        return _NEXT
    x = m.group("x").strip()
    if len(words(x)) >= 3 and _ACTUALLY_LEAD.match(x):
        return normalize_rule(x), x, "", False, None
    return _NEXT


_CLAUSE_PARSERS: tuple[Callable[[str], Answer], ...] = (
    _instead,
    _use_dont,
    _dont_use_use,
    _stop_then_do,
    _bare_pair,
    _instead_tail,
    _always,
    _negation,
    _no_thing,
    _stated(_FROM_NOW, explicit=True),
    _stated(_FROM_NOW_TAIL, explicit=True),
    _we_switched,
    _use_for,
    _procedure,
    _stated(_TOLD, explicit=False),
    _stated(_WRONG, explicit=False, need_text=True),
    _actually,
)
"""Correction shapes, most specific first; the first that recognises a clause decides."""


def correction_from_clause(clause: str) -> Parsed | None:
    """Parse one clause: `(rule_text, corrected, original, explicit_rule, negates)` or None."""
    for parse in _CLAUSE_PARSERS:
        found = parse(clause)
        if found is not _NEXT:
            return found
    return None


# --- facts ---------------------------------------------------------------------------------------

_OBJ = r"(?P<obj>[A-Za-z0-9][\w.+#\- ]{0,40}?)"
_DECIDE = re.compile(
    r"\b(?:(?P<lead>let'?s|let us|we(?:'ll| will| should| are going to|'re going to)|"
    r"we decided to|decided to|i meant(?: to say)?)|"
    r"(?:i|we) (?:chose|choose|picked|pick)|decision:|going with|"
    r"we(?:'re| are) going with|we (?:now |currently )?use|standardi[sz](?:e|ed|ing) on|"
    r"we(?:'ll| will|'re| are)? (?:stay(?:ing)?|stick(?:ing)?|keep(?:ing)?|remain(?:ing)?) "
    r"(?:on|with)|"
    r"(?:go(?:ing)?|went|switch(?:ing|ed)?|revert(?:ing|ed)?) back to|revert(?:ing|ed)? to|"
    r"switch(?:ing|ed)? to|migrate(?:d)? to|move to)\s+"
    r"(?P<verb>use\s+|go with\s+|using\s+|switch to\s+)?"
    + _OBJ
    + r"(?:\s+(?:for|as)\s+(?:the\s+|our\s+)?(?P<for>[a-z][\w\- ]{1,40}?))?"
    + r"\s*(?:[.,;!?\n]|\binstead\b|$)",
    re.IGNORECASE,
)
# "switch the job queue to RabbitMQ", "we migrated the orders database to Postgres", "moving the
# deployment to a Hetzner box": what the subject uses from now on (closing what it used before).
_SWITCH = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|port(?:ed|ing)?|"
    r"revert(?:ed|ing)?)\s+"
    r"(?:the\s+|our\s+|my\s+|all\s+(?:the\s+|our\s+)?)?(?P<for>[a-z][\w\- ]{1,40}?)\s+"
    r"(?:from\s+[\w.+#\- ]{1,40}?\s+)?(?:back\s+)?(?:to|onto|over to)\s+(?:an?\s+|the\s+)?"
    + _OBJ
    + r"(?:\s+(?:with|using|on|in|running)\b[^.,;!?\n]*)?\s*(?:[.,;!?\n]|$)",
    re.IGNORECASE,
)
# "we replaced Jenkins with GitHub Actions (for CI)": the new one, for what the old one did.
_REPLACED = re.compile(
    r"\b(?:we\s+|i\s+)?replac(?:e|ed|ing)\s+(?:the\s+|our\s+)?(?P<old>[\w.+#\- ]{1,40}?)\s+with\s+"
    + _OBJ
    + r"(?:\s+for\s+(?:the\s+|our\s+)?(?P<for>[a-z][\w\- ]{1,40}?))?\s*(?:[.,;!?\n]|$)",
    re.IGNORECASE,
)
# "the frontend now uses Svelte", "the API will use gRPC", "the cache is now Memcached": a
# subject's current choice, said of the subject.
_SUBJECT_USES = re.compile(
    r"(?:^|[,;:]\s*|\b(?:forward|on|now|and|but|so),?\s+)(?:the|our)\s+"
    r"(?P<for>[a-z][\w\- ]{1,30}?)\s+"
    r"(?:(?:now\s+)?uses|will\s+(?:now\s+)?use|is\s+now|now\s+runs\s+on|runs\s+on)\s+"
    + _OBJ
    + r"(?:\s+(?:for|as)\s+(?:the\s+|our\s+)?(?P<purpose>[a-z][\w\- ]{1,40}?))?"
    + r"\s*(?:[.,;!?\n]|\binstead\b|$)",
    re.IGNORECASE,
)
_PREFER = re.compile(
    r"\bi (?:really )?(?:prefer|like|love|want)\s+(?P<obj>[A-Za-z0-9][\w.+#\- ]{0,40}?)"
    r"(?:\s+(?:over|to|rather than)\s+(?P<other>[\w.+#\- ]{1,40}?))?\s*(?:[.,;!?\n]|$)",
    re.IGNORECASE,
)
_TODO = re.compile(
    r"(?:^|\b)(?:todo:|to-do:|next step(?:s)? (?:is|are)|we (?:still )?need to|remember to|"
    r"don'?t forget to)\s+(?P<x>[^.;!?\n]{4,120})",
    re.IGNORECASE,
)
_CAPS = r"(?P<x>[A-Z][\w&\-]*(?:\s+(?:of\s+|de\s+)?[A-Z][\w&\-]*){0,4})"
_ROLE = r"(?P<x>[a-z][a-z\- ]{2,40}?)\s*(?:[.,;!?\n]|\bat\b|\bfor\b|$)"
_PERSONAL: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"\b[Ii] (?:just |recently |finally )?(?:moved|relocated) to " + _CAPS),
        "lives in",
    ),
    (
        re.compile(
            r"\b(?:[Ww]e|[Ii])(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) "
            r"(?:\w+ )?to " + _CAPS
        ),
        "lives in",
    ),
    (
        re.compile(
            r"\b(?:[Ii]|[Ww]e)(?: now| currently| still)?(?: live|(?:'ve| have) (?:been )?"
            r"liv(?:ed|ing)|(?:'m| am|'re| are) (?:now |currently )?based) in " + _CAPS
        ),
        "lives in",
    ),
    (re.compile(r"\b[Ii] (?:now |currently )?work (?:at|for) " + _CAPS), "works at"),
    (
        re.compile(
            r"\b[Ii](?:'m| am) (?:now |currently )?an? [a-z][a-z\- ]{2,40}? (?:at|for) " + _CAPS
        ),
        "works at",
    ),
    (
        re.compile(r"\b[Ii](?:'m| am) (?:now )?(?:starting|joining|moving to) (?:at )?" + _CAPS),
        "works at",
    ),
    (
        # "I left Northwind and joined Contoso as a staff engineer", "I started a new job at X":
        # a club or a class one joins has no role in it
        re.compile(
            r"\b[Ii](?:'ve| have)? (?:[^.;!?]*? and )?(?:just |recently |finally )?joined "
            + _CAPS
            + r" as an? (?!volunteer|member|guest|fan|participant|student)"
        ),
        "works at",
    ),
    (
        re.compile(
            r"\b[Ii](?:'ve| have)? (?:just |recently )?(?:started|began) "
            r"(?:a new job |a new role |working |my new job )at " + _CAPS
        ),
        "works at",
    ),
    (re.compile(r"\b[Ii](?:'m| am) (?:now |currently )?working as an? " + _ROLE), "works as"),
    (re.compile(r"\b[Ii] work as an? " + _ROLE), "works as"),
    (
        re.compile(
            r"\b[Mm]y (?P<rel>dog|cat|pet|son|daughter|wife|husband|partner|boyfriend|girlfriend)"
            r"(?:'s name)? is (?:called |named )?(?P<x>[A-Z][a-z]{1,20})\b"
        ),
        "has",
    ),
    (
        re.compile(
            r"\b(?:[Ww]e|[Ii])(?:'ve| have)? (?:just |recently |finally )?(?:adopted|got) "
            r"(?:a|an|our|my) (?:new |little )?(?P<rel>puppy|dog|kitten|cat)(?:,)? "
            r"(?:named |called )(?P<x>[A-Z][a-z]{1,20})\b"
        ),
        "has",
    ),
    (
        re.compile(
            r"\b[Ii](?:'ve| have)? (?:just |recently )?started (?!looking|caring|thinking|feeling|"
            r"going|getting|trying|working|doing|taking|making|having|being|using|to\b|"
            # a gerund that needs its object to say anything ("started playing" what?)
            r"playing|helping|writing|teaching|learning|reading|watching|building|creating|"
            r"collecting|planning|saving|selling|buying|cooking|painting\b(?= (?:a|an|the|my)\b))"
            r"(?P<x>[a-z]{3,}ing)\b"
        ),
        "started",
    ),
]


_I_MOVED = re.compile(r"\b[Ii](?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) ")


def _moved_home(clause: str) -> bool:
    """Whether `clause` says where the speaker now lives ("I moved to Lisbon").

    A capitalised name after "I moved to" is a home, not a tool the project switched to; after
    "we moved to" it may be either ("we moved to GitLab"), so that stays a switch.
    """
    return _I_MOVED.search(clause) is not None and any(
        rx.search(clause) for rx, predicate in _PERSONAL if predicate == "lives in"
    )


_LANGUAGES = (
    r"english|spanish|french|german|italian|portuguese|dutch|polish|swedish|norwegian|danish|"
    r"finnish|russian|ukrainian|turkish|greek|arabic|hebrew|hindi|japanese|chinese|mandarin|"
    r"cantonese|korean|vietnamese|thai|indonesian|czech|romanian|hungarian"
)
_REPLY_LANGUAGE = re.compile(
    r"^(?P<before>.*?)\b(?:reply|answer|respond|write|talk|speak)(?: to me| back)?(?: only)? "
    rf"in (?P<lang>{_LANGUAGES})\b",
    re.IGNORECASE,
)
"""The language the user wants answers in: one current value (a fact, not a correction)."""
_NEGATED_BEFORE = re.compile(r"\b(?:don't|dont|do not|never|stop|no longer|not)\b", re.I)


def _reply_language_of(s: str) -> str | None:
    """The reply language "please reply in Spanish", "you can answer in English again" ask for."""
    m = _REPLY_LANGUAGE.search(s)
    if m is None or _NEGATED_BEFORE.search(m.group("before")):
        return None
    return m.group("lang").title()


def _reply_language(s: str, t: TurnInput, speaker: str) -> FactCandidate | None:
    """The reply language the speaker asks for, as a fact of one current value."""
    lang = _reply_language_of(s)
    if lang is None:
        return None
    return _said(
        subject=_fact_key(speaker),
        predicate="reply language",
        object=lang,
        kind="preference",
        statement=f"{speaker} wants replies in {lang} (reply language)",
        confidence=0.7,
        t=t,
    )


_CONTACT = (
    r"(?P<what>(?:mobile |cell |work |home )?(?:phone(?: number)?|number|email(?: address)?|"
    r"e-mail|address|postcode|post code|zip code|username|user name|handle|github handle|"
    r"github username|twitter handle|website|time ?zone))"
)
_VALUE = r"(?P<v>[^\s,;!?]+(?:\s+[^\s,;!?]+){0,5}?)"
_VALUE_END = r"(?=\s*(?:[,;!?\n]|\.(?:\s|$)|\bfrom now on\b|\bnow\b|\bplease\b|\binstead\b|$))"
_MY_VALUE = (
    re.compile(
        r"\bmy (?:new |current |updated )?" + _CONTACT + r" is (?:now )?" + _VALUE + _VALUE_END,
        re.I,
    ),
    re.compile(r"^(?:[Mm]y )?[Nn]ew " + _CONTACT + r"(?: is)?:?\s+" + _VALUE + _VALUE_END, re.I),
    re.compile(
        r"\b(?:please )?use " + _VALUE + r" as my (?:new )?" + _CONTACT + r"\b", re.IGNORECASE
    ),
)
"""How to reach the speaker, one current value each: "new phone number: +1 555 0199"."""


_FAVOURITE = re.compile(
    r"\b[Mm]y (?:new |current |all-time )?favou?rite (?P<what>[a-z][a-z\- ]{1,30}?) "
    r"(?:is|are) (?:now |still )?(?P<x>[^,;!?\n]{2,60}?)" + _VALUE_END
)
_NAME_WORD = r"[A-Z][a-z]{1,20}"
_AGE_END = (
    r"(?: years? old)?(?=[.,;!?\n]\s|[.,;!?\n]?$|\s+(?:and|now|today|this|next|last|since|but|so|"
    r"on|in)\b)"
)
_AGE = (
    re.compile(
        r"\b(?:[Mm]y (?:son|daughter|kid|child|boy|girl|brother|sister) )?(?P<who>"
        + _NAME_WORD
        + r") (?:is|turned|just turned|turns) (?P<age>\d{1,3})"
        + _AGE_END
    ),
    re.compile(r"\b(?P<who>I)(?:'m| am| just turned| turned) (?P<age>\d{1,3})" + _AGE_END),
)
"""An age, one current value a person: "Emma turned 8 last week" ends "my daughter Emma is 7"."""


def _favourite_or_age(s: str, t: TurnInput, speaker: str) -> FactCandidate | None:
    """The speaker's favourite of a kind of thing, or someone's age: one current value each."""
    fav = _FAVOURITE.search(s)
    if fav is not None:
        what, x = fav.group("what"), fav.group("x").strip()
        return _said(
            subject=_fact_key(speaker),
            predicate=f"favourite {normalize_key(what)}",
            object=x,
            kind="other",
            statement=f"{speaker}'s favourite {what} is {x}",
            confidence=0.65,
            t=t,
        )
    for rx in _AGE:
        m = rx.search(s)
        if m is None or m.group("who").lower() in _NOT_A_NAME - {"i"}:
            continue
        who = speaker if m.group("who") == "I" else m.group("who")
        return _said(
            subject=_fact_key(who),
            predicate="age",
            object=m.group("age"),
            kind="other",
            statement=f"{who} is {m.group('age')} (age)",
            confidence=0.65,
            t=t,
        )
    return None


def _contact(s: str, t: TurnInput, speaker: str) -> FactCandidate | None:
    """The speaker's phone number, email, address, handle or time zone, said to the agent."""
    for rx in _MY_VALUE:
        m = rx.search(s)
        if m is None:
            continue
        what = re.sub(r"\s+", " ", m.group("what").lower()).replace("e-mail", "email")
        what = {"number": "phone number", "phone": "phone number", "timezone": "time zone"}.get(
            what, what
        )
        value = m.group("v").strip().rstrip(".")
        if not value or value.lower() in {"it", "this", "that", "the same", "private"}:
            continue
        return _said(
            subject=_fact_key(speaker),
            predicate=what,
            object=value,
            kind="other",
            statement=f"{speaker}'s {what} is {value}",
            confidence=0.7,
            t=t,
        )
    return None


_YOUNG = {"puppy": "dog", "kitten": "cat"}
"""A puppy is the dog one has (one current value of "has dog")."""
_RELATION = re.compile(
    r"\b[Mm]y (?:new |current )?(?P<rel>manager|boss|team lead|tech lead|supervisor|mentor|"
    r"doctor|dentist|therapist|landlord|accountant|lawyer) (?:is|will be) (?:now )?"
    r"(?P<x>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w&\-]*(?:\s+[A-Z][\w&\-]*){0,3})"
)
"""Who someone is to the speaker, one at a time: "my new manager is Tomas Berg" ends Priya's."""
_NAME = re.compile(
    r"\b(?:call me|my name is|my name's|i go by|you can call me)\s+(?P<x>[A-Z][a-z]{1,20})\b"
)
_DIETS = (
    r"(?P<d>vegetarian|vegan|pescatarian|pescetarian|flexitarian|plant-based|keto|paleo|"
    r"gluten-free|dairy-free|lactose-free|halal|kosher|omnivore|carnivore)(?![\w-])"
)
_DIET = (
    re.compile(
        r"\b[Ii](?:(?:'m| am)(?: now| currently| still| strictly| fully| mostly| actually)?"
        r"(?: an?| on an?)?|(?:'ve| have)? (?:gone|went|turned|became|become)) " + _DIETS
    ),
    re.compile(r"^\s*" + _DIETS + r",? now\b", re.IGNORECASE),  # "Pescatarian now, ..."
)
_ALLERGY = re.compile(
    r"\b[Ii](?:'m| am)(?: very| severely| also)? allergic to "
    r"(?P<x>[a-z][a-z\- ]{1,40}?)\s*(?:[.,;!?\n]|\bso\b|\bbut\b|$)"
)
# "Turns out I'm not allergic to shellfish after all", "I'm no longer vegetarian": the standing
# preference said before ends (the same key, now saying it does not hold).
_NO_ALLERGY = re.compile(
    r"\b[Ii](?:'m| am)(?: actually| really)? (?:not|no longer) allergic to "
    r"(?P<x>[a-z][a-z\- ]{1,40}?)\s*(?:[.,;!?\n]|\bafter all\b|\bany ?more\b|\bso\b|\bbut\b|$)"
)
_NO_DIET = re.compile(  # "I'm not vegan" alone says what the diet is not, not that one ended
    r"\b[Ii](?:(?:'m| am) no longer(?: an?)?|(?:'ve| have)? stopped being(?: an?)?|"
    r"(?:'m| am) not(?: an?)?(?= \S+ any ?more\b)) " + _DIETS
)
_MISTAKE = re.compile(
    r"\b(?:I mis-?spoke|I misspelled|(?:that|it) was a typo|typo[:,]|I meant\b|my mistake|"
    r"I was wrong|I got (?:that|it) wrong|scratch that|not what I meant|I mixed (?:that|it) up)",
    re.IGNORECASE,
)
"""A turn that corrects a mistake of the speaker's: what it states was true all along."""
_NOT_DECISION_OBJ = re.compile(
    r"^(?:it|this|that|them|him|her|me|you|us|a|an|the|some|go|do|see|try|get|make|have|be|"
    r"talk|chat|catch|hang|meet|know|start|keep|just|now|again|sure|both)\b",
    re.IGNORECASE,
)


def _fact_key(text: str) -> str:
    return normalize_key(text).strip(" .,'\"")


# "SQLite for local development", "Postgres stays in production", "mocks in tests": a choice made
# for one environment, which neither ends nor is ended by the choice for another.
_ENV = (
    r"(?P<env>local(?:\s+dev(?:elopment)?)?|dev(?:elopment)?|prod(?:uction)?|staging|"
    r"(?:unit\s+|integration\s+|e2e\s+)?tests?|testing|ci)"
)
_ENV_TAIL = re.compile(
    r"\s+(?:for|in|on|during)\s+(?:the\s+|our\s+)?" + _ENV + r"\b.*$|\s+(?P<locally>locally)\b.*$",
    re.IGNORECASE,
)
_ENV_ONLY = re.compile(r"^(?:the\s+|our\s+)?" + _ENV + r"(?:\s+env(?:ironment)?)?$", re.IGNORECASE)


def _env_name(word: str) -> str:
    """The stored name (`knowledge.environments.ENVIRONMENTS`) of a user's word for one."""
    w = word.lower()
    if w.startswith(("local", "dev")):
        return "local development"
    if w.startswith("prod"):
        return "production"
    if "test" in w:
        return "tests"
    return "CI" if w == "ci" else "staging"


def _env_of(m: re.Match[str]) -> str:
    """The stored name of the environment an `_ENV_TAIL` match names."""
    return _env_name("local" if m.group("locally") else m.group("env"))


def _split_env(text: str) -> tuple[str, str | None]:
    """`text` without a trailing environment ("... for local development"), and that environment."""
    m = _ENV_TAIL.search(text)
    if m is None or m.start() == 0:
        return text, None
    return text[: m.start()].strip(), _env_of(m)


def env_scoped(subject: str, obj: str) -> tuple[str, str]:
    """`(subject, object)` with an environment the object names moved to the subject.

    "main database" / "SQLite for local development" → "main database (local development)" /
    "SQLite": the choice for one environment keys apart from the project-wide one.
    """
    head, env = _split_env(obj)
    return (scoped_subject(subject, env), head) if env else (subject, obj)


_NO_SUBJECT = frozenset({"it", "this", "that", "them", "everything"})
"""Words that name nothing a decision could be about ("switch it to X")."""


def _switch_fact(sentence: str) -> tuple[str, str, str] | None:
    """`(subject, "uses", object)` of "switch/move/migrate <subject> to <object>"."""
    m = _SWITCH.search(sentence)
    if not m:
        return None
    obj = RELATIVE_TIME.split(m.group("obj"))[0].strip()
    obj = re.sub(
        r"\s+(?:now|then|too|also|please|again|for good|recently|tonight|"
        r"(?:last|this|next|over the|during the) \w+)$",
        "",
        obj,
        flags=re.I,
    )
    if not obj:
        return None
    first = obj.split()[0].lower().strip(".,")
    tech = technologies(obj)
    named = obj[0].isupper() or bool(tech)
    if not named or first in MONTHS or first in WEEKDAYS or _NOT_DECISION_OBJ.match(obj):
        return None
    subject = _fact_key(m.group("for"))
    if subject in {"back", "over", "everything back"}:  # "switched back to npm": _DECIDE's form
        return None
    if subject.startswith("from "):  # "moved from black to ruff format": what the old one was
        tech = technologies(subject) or tech
        subject = str(tech_category(tech[0]) or "") if tech else ""
    if not subject or subject in _NO_SUBJECT:
        return None
    obj, env = _split_env(obj)
    if env is None:  # "... to ClickHouse on CI": the pattern's tail past the object holds it
        tail = _ENV_TAIL.match(sentence[m.end("obj") : m.end()].rstrip(".,;!?\n"))
        env = _env_of(tail) if tail else None
    return scoped_subject(subject, env), "uses", obj


_TARGET_TAIL = re.compile(
    r"\s+(?:as of|starting|effective|from now on|going forward|for now|for good)\b.*$", re.I
)
# "for unit tests in this repo": the project itself is no narrower scope
_TARGET_PLACE = re.compile(
    r"\s+(?:in|across|throughout|for)\s+(?:this|the|our|my)\s+"
    r"(?:repo(?:sitory)?|project|codebase|code base|app|monorepo)\s*$|\s+here\s*$",
    re.I,
)


def _target(text: str | None) -> str:
    """What a decision is for, without when it holds ("for CI as of today" -> "CI")."""
    t = RELATIVE_TIME.split(text or "")[0]
    return _TARGET_PLACE.sub("", _TARGET_TAIL.sub("", t)).strip()


_TWO_CHOICES = re.compile(
    r"^(?P<head>.*?\b(?:use|go with|pick|choose|chose|picked|switch to|move to)\s+)"
    r"(?P<a>[^,;]+?\s+for\s+[^,;]+?),?\s+and\s+(?P<b>[^,;]+?\s+for\s+[^,;]+)$",
    re.IGNORECASE,
)


def decision_parts(clause: str) -> list[str]:
    """A clause with two choices as two ("use X for A and Y for B"), else the clause alone."""
    m = _TWO_CHOICES.match(clause)
    if not m:
        return [clause]
    return [m.group("head") + m.group("a"), m.group("head") + m.group("b")]


def _names_a_thing(obj: str) -> bool:
    """The object opens with a name ("Postgres ...", "pnpm"), not a verb ("revert the queue")."""
    first = obj.split()[0]
    return first[:1].isupper() or first[:1].isdigit() or bool(technologies(first))


def _said_of_subject(sentence: str) -> tuple[str, str, str] | None:
    """`(subject, "uses", object)` of "we replaced A with B (for X)" or "the X now uses B"."""
    m = _REPLACED.search(sentence) or _SUBJECT_USES.search(sentence)
    if not m:
        return None
    obj = RELATIVE_TIME.split(m.group("obj"))[0].strip()
    obj = re.sub(r"\s+(?:instead|then|now|here|too|also)$", "", obj, flags=re.I)
    if not obj or _NOT_DECISION_OBJ.match(obj) or not _names_a_thing(obj):
        return None
    groups = m.groupdict()
    # what the replaced one was says what the new one is for
    tech = technologies(groups.get("old") or "") or technologies(obj)
    category = str(tech_category(tech[0]) or "") if tech else ""
    return _decided(_target(groups.get("purpose") or groups.get("for")), category, obj)


def decision_fact(sentence: str, project: str) -> tuple[str, str, str] | None:
    """`(subject, predicate, object)` of a decision such as "let's use SQLite for the cache"."""
    switched = _switch_fact(sentence) or _said_of_subject(sentence)
    if switched is not None:
        return switched
    m = _DECIDE.search(sentence)
    if not m:
        return None
    obj = _TARGET_PLACE.sub("", m.group("obj")).strip()
    obj = re.sub(r"\s+(?:instead|then|now|here|too|also|please|again)$", "", obj, flags=re.I)
    if not obj or _NOT_DECISION_OBJ.match(obj):
        return None
    # "let's <verb> ..." chooses nothing unless what follows is a name: "let's revert the queue"
    if m.group("lead") and not m.group("verb") and not _names_a_thing(obj):
        return None
    tech = technologies(obj)
    category = str(tech_category(tech[0]) or "") if tech else ""
    return _decided(_target(m.group("for")), category, obj)


# "we're on Node 18", "the project targets Python 3.10", "we upgraded the API server to Node 22",
# "bumped the minimum Python version to 3.12": one current version of a named technology.
_VERSIONED = re.compile(
    r"\b(?:(?:we|i)(?:'re| are| am|'m)?(?: now| still| currently)? (?:on|running|using|use|run)|"
    r"targets?|requires?|runs on|(?:is|are)(?: now)? on|pins?|pinned(?: to)?|"
    r"(?:upgrad|bump|mov|downgrad|pinn)(?:e|ed|ing|s)?\b[^.;!?\n]{0,40}?\bto)\s+"
    r"(?:(?P<tech>[A-Za-z][\w.+#\-]*)\s+)?v?(?P<ver>\d+(?:\.\d+){0,2}(?:\.x)?)(?![\w%:]|\.\d)",
    re.IGNORECASE,
)


_FROM_OLD = re.compile(
    r"\bfrom\s+(?P<old>[\w.+#\-]+(?:\s+[\w.+#\-]+)?)\s+(?:back\s+)?(?:to|over to|onto)\b", re.I
)


def replaced_name(sentence: str) -> str:
    """What a decision says it replaces: "replaced Redis with ...", "from Jest to Vitest"."""
    m = _REPLACED.search(sentence) or _FROM_OLD.search(sentence)
    if m is None:
        return ""
    old = m.group("old").strip()
    named = technologies(old)
    return named[0] if named else (old if _names_a_thing(old) else "")


def version_fact(sentence: str) -> tuple[str, str, str] | None:
    """`("<technology> version", "is", version)` of a sentence naming the version in use.

    The technology is the name right before the number when it is one ("Node 22"), else the
    only technology the sentence names before it ("the minimum Python version to 3.12").
    """
    m = _VERSIONED.search(sentence)
    if m is None:
        return None
    tech = m.group("tech") or ""
    if not (technologies(tech) or (tech[:1].isupper() and tech.lower() not in _NOT_A_NAME)):
        before = technologies(sentence[: m.start("ver")])
        if len(before) != 1:
            return None
        tech = before[0]
    return f"{tech.lower()} version", "is", m.group("ver")


def _decided(target: str, category: str, obj: str) -> tuple[str, str, str] | None:
    """`(subject, "uses", obj)` of a choice of `obj` for `target`, or of its `category`.

    "SQLite for local development" is the database there; "Vitest for testing" and "Jenkins
    for CI" are what the category says (the test framework, the CI service), not a choice for
    one environment. Without a target or a category a decision would only ever pile up: None.
    """
    only_env = _ENV_ONLY.match(target)
    if only_env is not None:
        if not category:
            return None
        named = _env_name(only_env.group("env"))
        what = {w[:4] for w in category.lower().split()}
        same = bool(what & {w[:4] for w in named.lower().split()})
        return scoped_subject(category, None if same else named), "uses", obj
    if target:
        head, env = _split_env(target)  # "for the cache in tests"
        subject = scoped_subject(_fact_key(head), env)
        if env is None:
            subject, obj = env_scoped(subject, obj)
    elif category:
        subject, obj = env_scoped(category, obj)
    else:
        return None
    if subject in _NO_SUBJECT:
        return None
    return subject, "uses", obj


_TODO_OBJ = re.compile(r"\{[^{}]*\}")
_TODO_CONTENT = re.compile(r'"content"\s*:\s*"((?:[^"\\]|\\.)*)"')
_TODO_STATUS = re.compile(r'"status"\s*:\s*"(\w+)"')


def todo_items(text: str) -> list[tuple[str, str]]:
    """`(content, status)` of each todo in a TodoWrite tool call (tolerates truncated JSON)."""
    out: list[tuple[str, str]] = []
    for block in _TODO_OBJ.findall(text):
        c = _TODO_CONTENT.search(block)
        st = _TODO_STATUS.search(block)
        if c and st:
            out.append((c.group(1).strip(), st.group(1).strip().lower()))
    return out


# --- lessons -------------------------------------------------------------------------------------

_ERROR = re.compile(
    r"(Traceback \(most recent call last\)|\b\w*(?:Error|Exception)\b:|\bFAILED\b|"
    r"\berror(?:\[\w+\])?:|"
    r"\bfailed\b|command not found|No such file or directory|exit (?:code|status) [1-9]|"
    r"\bpanicked\b|Segmentation fault|\bERR!|cannot find module|permission denied)",
    re.IGNORECASE,
)
_PASS = re.compile(
    r"(\b\d+ passed\b(?!.*\b[1-9]\d* failed)|\ball tests pass(?:ed)?\b|\btests? pass(?:es|ed)?\b|"
    r"\bsuccess(?:fully)?\b|\bworks now\b|\bfixed\b|\bnow works\b|\bbuild succeeded\b|"
    r"\bexit (?:code|status) 0\b|✓|✅|\bOK\b)",
    re.IGNORECASE,
)
_FIX_VERB = re.compile(
    r"\b(fix|fixed|change[sd]?|add(?:ed)?|install(?:ed)?|use|using|replace[sd]?|instead|"
    r"set|update[sd]?|remove[sd]?|rename[sd]?|import(?:ed)?|pin(?:ned)?|upgrade[sd]?|switch(?:ed)?|"
    r"start(?:ed|ing)?|restart(?:ed|ing)?|creat(?:e[sd]?|ing)|mock(?:ed|ing)?|mov(?:e[sd]?|ing)|"
    r"bump(?:ed)?|downgrade[sd]?|configur(?:e[sd]?|ing)|enabl(?:e[sd]?|ing)|disabl(?:e[sd]?|ing)|"
    r"delet(?:e[sd]?|ing)|wrap(?:ped)?|handl(?:e[sd]?|ing)|mkdir|chmod|export(?:ed)?)\b",
    re.IGNORECASE,
)
_ERR_LINE = re.compile(
    r"^\s*((?:[\w.]+(?:Error|Exception)|error(?:\[\w+\])?|E\s+\w+Error|FAILED)[: ].{0,200})$",
    re.IGNORECASE | re.MULTILINE,
)


def _error_headline(text: str) -> str:
    lines = [m.group(1).strip() for m in _ERR_LINE.finditer(text)]
    if lines:
        return lines[-1][:200]  # Python puts the exception last
    for s in sentences(clean_text(text, 3000)):
        if _ERROR.search(s):
            return s[:200]
    return _first_sentence(text)


def _is_error(t: TurnInput) -> bool:
    if t.tool_ok is False:
        return True
    if t.role in ("tool", "assistant", "system") or t.tool_name:
        return bool(_ERROR.search(t.text[:4000])) and not _is_pass_text(t.text)
    return False


def _is_pass_text(text: str) -> bool:
    head = text[:4000]
    return bool(_PASS.search(head) or _PASS_LINE.search(head)) and not re.search(
        r"\b[1-9]\d* failed\b|\bFAILED\b|Traceback", head
    )


_PASS_LINE = re.compile(r"^(?:PASS|ok)\b|^\s*✓", re.MULTILINE)


def _reran_clean(error: TurnInput, t: TurnInput) -> bool:
    """A tool turn that re-runs the failed command (same first line) and reports no error."""
    return (
        t.role == "tool"
        and error.role == "tool"
        and bool(_command(error))
        and _command(t) == _command(error)
        and not _ERROR.search(t.text[:4000])
    )


def _is_pass(t: TurnInput) -> bool:
    if t.tool_ok is True and not _ERROR.search(t.text[:4000]):
        return True
    return t.role != "user" and _is_pass_text(t.text)


_INSIGHTS: list[tuple[re.Pattern[str], LessonCategory]] = [
    (
        re.compile(
            r"\b(?:i(?:'ve| have)? (?:finally )?learned|i(?:'ve| have)? realized|(?:it|that|this) "
            r"taught me|lesson(?: learned)?(?: (?:is|was|here is))?:)\s+(?:that\s+)?"
            r"(?P<x>[^.!?\n]{12,200})",
            re.IGNORECASE,
        ),
        "best-practice",
    ),
    (
        re.compile(
            r"\b(?:it turns out|turns out|the (?:root cause|real issue|issue|problem|culprit|bug) "
            r"(?:is|was))\s+(?:that\s+)?(?P<x>[^.!?\n]{12,200})",
            re.IGNORECASE,
        ),
        "gotcha",
    ),
    (
        re.compile(
            r"\b(?:my advice|pro tip|the trick|the key(?: insight| point| takeaway)?|the secret)"
            r"(?: (?:is|was))?:?\s+(?:that\s+|to\s+)?(?P<x>[^.!?\n]{12,200})",
            re.IGNORECASE,
        ),
        "best-practice",
    ),
]


_VAGUE = re.compile(
    r"^(?:the hard way|a lot|so much|much|again|i'?m|it'?s (?:fine|ok|okay|good))\b", re.IGNORECASE
)


# --- facts from clauses, most specific first -----------------------------------------------------


def between_people(turns: Sequence[TurnInput]) -> bool:
    """Whether a session is people talking (LoCoMo): every reply comes from a person, not a model.

    There, advice is no user correcting an agent, "we need to stay positive" no to-do, and "let's
    work together for the community" no project decision; personal facts still count.
    """
    agents = [t for t in turns if t.role == "assistant" and t.text.strip()]
    return bool(agents) and all(is_person(t.speaker) for t in agents)


def _clause_fact(s: str, t: TurnInput, project: str, chat: bool) -> FactCandidate | None:
    """The first fact one clause states: a decision, a preference, a todo, a personal fact.

    `chat`: the session is people talking (`between_people`).
    """
    person = is_person(t.speaker)
    speaker = t.speaker if person else t.role
    human = t.role == "user" or person  # LoCoMo's speaker_b is a person, a model is not
    if human:
        found = (None if chat else _decision(s, t, project)) or _preference(s, t, speaker)
        if found is not None:
            return found
    if t.role == "user" and not chat:
        found = (
            _todo(s, t, project)
            or _reply_language(s, t, speaker)
            or _contact(s, t, speaker)
            or _favourite_or_age(s, t, speaker)
            or _project_fact(s, t, project)
            or _quit(s, t, speaker)
        )
        if found is not None:
            return found
    return _personal(s, t, speaker, chat) if human else None


_VERSION = re.compile(r"^v?\d+(?:\.\d+)*$", re.IGNORECASE)


def _what_it_is(subject: str, obj: str) -> str | None:
    """The category of `obj`, when it is one known technology the subject does not name.

    "job queue uses RabbitMQ (message broker)" answers a question about the broker; a version
    number after the name is allowed, anything else leaves the statement as it is.
    """
    tech = technologies(obj)
    if len(tech) != 1:
        return None
    category = tech_category(tech[0])
    rest = [w for w in obj.split() if w.lower() != tech[0]]
    if not category or any(not _VERSION.match(w) for w in rest):
        return None
    if set(category.split()) <= set(subject.lower().split()):
        return None
    return category


def _said(
    *,
    subject: str,
    predicate: str,
    object: str,
    kind: FactKind,
    statement: str,
    confidence: float,
    t: TurnInput,
) -> FactCandidate:
    """A fact stated in turn `t`: from that turn, holding from when it was said."""
    return FactCandidate(
        subject=subject,
        predicate=predicate,
        object=object,
        kind=kind,
        statement=statement,
        confidence=confidence,
        turn_ids=(t.id,),
        valid_from=t.timestamp,
    )


def _decision(s: str, t: TurnInput, project: str) -> FactCandidate | None:
    dec = decision_fact(s, project) or version_fact(s)
    if dec is None:
        return None
    subj, pred, obj = dec
    named = obj[:1].isupper() or technologies(obj) or pred == "is"  # a version of a named one
    if is_person(t.speaker) and not named:
        return None  # between people "we use work together" is no decision: a named choice is
    old = replaced_name(s)
    return _said(
        subject=subj,
        predicate=pred,
        object=obj,
        kind="decision" if subj not in {"indentation"} else "preference",
        statement=with_category(f"{project}: {subj} {pred} {obj}", _what_it_is(subj, obj)),
        confidence=0.7,
        t=t,
    ).model_copy(update={"replaces": "" if old.lower() in obj.lower() else old})


def _preference(s: str, t: TurnInput, speaker: str) -> FactCandidate | None:
    m = _PREFER.search(s)
    if not m:
        return None
    obj = m.group("obj").strip()
    tech = technologies(obj)
    cat = tech_category(tech[0]) if tech else None
    if not cat or _NOT_DECISION_OBJ.match(obj):
        return None
    return _said(
        subject=_fact_key(speaker),
        predicate=f"prefers {cat}",
        object=obj,
        kind="preference",
        statement=f"{speaker} prefers {obj}",
        confidence=0.65,
        t=t,
    )


def _todo(s: str, t: TurnInput, project: str) -> FactCandidate | None:
    m = _TODO.search(s)
    if not m:
        return None
    x = m.group("x").strip()
    return _said(
        subject=project,
        predicate=f"todo {normalize_key(x)[:60]}",
        object=x,
        kind="todo",
        statement=f"TODO: {x}",
        confidence=0.6,
        t=t,
    )


def _standing(s: str, t: TurnInput, speaker: str, chat: bool) -> FactCandidate | None:
    """A diet or an allergy the speaker states: what any suggestion for them must respect.

    One current diet (a new one ends the old); allergies add up. Told to an agent, it is a
    standing preference (`kind="preference"`: in force in every answer, like a rule); between
    people it is a personal fact. One said to no longer hold ("I'm not allergic to shellfish
    after all") ends the one said before and is a plain fact: nothing any answer must respect.
    """
    kind: FactKind = "other" if chat else "preference"
    if (nd := _NO_DIET.search(s)) is not None:
        return _diet(nd.group("d"), t, speaker, None)
    if (na := _NO_ALLERGY.search(s)) is not None:
        return _allergy(na.group("x"), t, speaker, None)
    if (dm := next((m for rx in _DIET if (m := rx.search(s))), None)) is not None:
        return _diet(dm.group("d"), t, speaker, kind)
    if (am := _ALLERGY.search(s)) is not None:
        return _allergy(am.group("x"), t, speaker, kind)
    return None


def _diet(diet: str, t: TurnInput, speaker: str, kind: FactKind | None) -> FactCandidate:
    """The speaker's diet (`kind` None: the diet no longer holds)."""
    diet = diet.lower()
    return _said(
        subject=_fact_key(speaker),
        predicate="diet",
        object=diet if kind else f"no longer {diet}",
        kind=kind or "other",
        statement=f"{speaker} is {diet} (diet)"
        if kind
        else f"{speaker} is no longer {diet} (diet)",
        confidence=0.7,
        t=t,
    )


def _allergy(what: str, t: TurnInput, speaker: str, kind: FactKind | None) -> FactCandidate:
    """The speaker's allergy (`kind` None: they are not allergic after all)."""
    what = what.strip()
    return _said(
        subject=_fact_key(speaker),
        predicate=f"allergic to {normalize_key(what)}",
        object=what if kind else "not allergic",
        kind=kind or "other",
        statement=f"{speaker} is {'' if kind else 'not '}allergic to {what}",
        confidence=0.7,
        t=t,
    )


_NOT_A_NAME = frozenset(
    {"the", "this", "that", "it", "he", "she", "they", "we", "i", "you", "who", "which"}
    | {"everyone", "nobody", "someone", "our", "my"}
)
_ACRONYM = r"[A-Z]{2,5}(?![\w-])"
"""A team or role named by its initials: QA, UX, SRE, HR (and then maybe words: "QA automation")."""
_TEAM = (
    r"(?P<team>(?:" + _ACRONYM + r"(?: [a-z][a-z\-]*){0,2}?|[a-z][a-z\- ]{1,30}?))"
    r"(?:\s+(?:team|squad|group|guild))?"
)
_NOW_OR_END = r"(?=\s*(?:[.,;!?\n]|\bnow\b|\bfrom\b|\bstarting\b|\bsince\b|\bas of\b|$))"
_LEADS = (
    re.compile(
        r"\b(?P<who>[A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:now |currently |will )?"
        r"(?:leads|heads|manages|is leading|is heading|took over|takes over|has taken over|"
        r"is taking over) (?:the )?" + _TEAM + _NOW_OR_END
    ),
    re.compile(
        r"\b(?P<who>[A-Z][a-z]+(?: [A-Z][a-z]+)?) is (?:now )?(?:the |our |the team's )?(?:new )?"
        + _TEAM
        + r" (?:team )?(?:lead|leader|manager|head)\b"
    ),
)
"""Who leads a team, one at a time: "Kenji now leads backend" ends "Maria leads backend"."""
_ROLE_TAIL = r"(?=\s*(?:[.,;!?\n]|\bnow\b|\bfrom\b|\bstarting\b|\bsince\b|\bas of\b|$))"
_ROLE_HOLDER = (
    re.compile(
        r"\b(?P<who>[A-Z][a-z]+(?: [A-Z][a-z]+)?) is (?:now |currently )?(?:our|the team's) "
        r"(?:new |current )?(?P<role>"
        + _ACRONYM
        + r"(?: [a-z][a-z\-]*){0,3}?|[a-z][a-z\- ]{2,30}?)"
        + _ROLE_TAIL
    ),
    re.compile(
        r"\b(?:[Oo]ur|[Tt]he team's) (?:new |current )?(?P<role>[A-Za-z][A-Za-z\- ]{1,30}?) is "
        r"(?:now )?(?P<who>[A-Z][a-z]+(?: [A-Z][a-z]+)?)" + _ROLE_TAIL
    ),
)
"""Who holds a role in the team, one at a time: "Eli is our new designer" ends Dana."""
_NOT_A_ROLE = re.compile(r"^(?:only|best|first|last|main|favou?rite|biggest|goal|plan)\b")
_MONTH_NAMES = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DATE = (
    r"(?P<when>(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day(?: the \d{1,2}(?:st|nd|rd|th)?)?|"
    + _MONTH_NAMES
    + r" \d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)? (?:of )?"
    + _MONTH_NAMES
    + r"|\d{4}-\d{2}-\d{2}|next (?:week|month|quarter|year|[A-Z][a-z]+day)|"
    r"(?:early|mid|late|the end of) " + _MONTH_NAMES + r"|Q[1-4]|"
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}|noon|midday)(?:,? \d{4})?)"
)
_WHAT = r"(?:(?:[Tt]he|[Oo]ur|[Mm]y) |^)(?P<what>[A-Za-z][A-Za-z\- ]{1,30}?)"
_SCHEDULED = (
    re.compile(
        r"(?:\b|^)" + _WHAT + r" (?:is|was|has been|got) (?:now |officially |always )?"
        r"(?:(?:scheduled|planned|set|booked|due|happening) (?:for|on|at)|at|on) " + _DATE
    ),
    re.compile(  # "the deadline for the report is Friday": a due date said plainly
        r"(?:\b|^)(?:[Tt]he|[Oo]ur|[Mm]y) (?P<what>deadline|due date|cutoff|cut-off|launch|"
        r"release|demo|review|interview|exam|appointment|meeting|offsite|kickoff|kick-off)"
        r"(?: for (?:the |our |my )?[a-z][a-z\- ]{1,30}?)? (?:is|was) (?:now )?" + _DATE
    ),
    re.compile(
        r"(?:\b|^)" + _WHAT + r" (?:has |have |had |is )?(?:slipped|moved|moves|moving|slid|"
        r"been moved|was moved|got moved|"
        r"(?:has been |was |got |is )?(?:pushed|postponed|delayed|rescheduled|pulled|brought)"
        r"(?: back| forward| in)?|is now) (?:to|until|till) " + _DATE
    ),
    re.compile(
        r"\b(?:[Ww]e |I )?(?:moved|pushed|postponed|rescheduled|delayed|pulled|brought) "
        r"(?:back |forward )?" + _WHAT + r" (?:back |forward |in )?(?:to|until|till) " + _DATE
    ),
)
"""When something is to happen, one date at a time: "the launch slipped to March 17"."""
_OFF_END = r"(?=\s*(?:[.,;!?\n]|\bfor good\b|\bfrom now on\b|$))"
_CANCELLED = (
    re.compile(
        r"\b(?:[Ww]e|I|[Tt]hey)(?:'ve| have)? (?:cancell?ed|called off|scrapped) "
        r"(?:the |our |my )(?P<what>[a-z][a-z\- ]{1,30}?)" + _OFF_END
    ),
    re.compile(
        r"(?:\b|^)"
        + _WHAT
        + r" (?:is|was|has been|got) (?:now )?(?:cancell?ed|called off)"
        + _OFF_END
    ),
)
"""Something scheduled that will not happen: "we cancelled the weekly sync"."""
_AMOUNT = (
    r"(?P<amount>(?:[$€£]\s?\d[\d,.]*\s?(?:[kKmM]\b|million|thousand)?|"
    r"\d[\d,.]*\s?(?:[kKmM]\s)?(?:USD|EUR|GBP|dollars|euros|pounds)\b)"
    r"(?:\s?(?:per|a|/)\s?(?:month|year|week|day|quarter|head|seat|user))?|"
    # a setting: a duration, a rate or a number of tries ("30 seconds", "500 requests per minute")
    r"\d[\d,.]*\s?(?:ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|days?|"
    r"(?:requests?|calls?|queries|messages|events|jobs|tokens)\s?(?:per|a|/)\s?"
    r"(?:second|sec|minute|min|hour|day|month|key|user)|retries|attempts)\b"
    # where the clause ends: "Emma is 7 minutes late" and "I'm 5 minutes away" are no setting
    r"(?=\s*(?:[.,;!?\n]|$|\b(?:now|per|each|for|because|since|from|starting|as of)\b)))"
)


def _said_other(
    subject: str, predicate: str, value: str, statement: str, t: TurnInput
) -> FactCandidate:
    """A fact with one current value per `subject` and `predicate`, kind `other`, said in `t`.

    A team's lead, a setting, a date, a habit given up.
    """
    return _said(
        subject=subject,
        predicate=predicate,
        object=value,
        kind="other",
        statement=statement,
        confidence=0.65,
        t=t,
    )


_SIZE = (
    r"(?P<n>\d[\d,.]*)\s?(?P<unit>[KMGTP]i?B|vCPUs?|CPUs?|GPUs?|cores?|nodes?|replicas?|"
    r"workers?)(?![\w-])(?:\s+(?:of\s+)?(?P<res>RAM|memory|disk space|disk|storage|swap|VRAM))?"
)
_CAPACITY = (
    re.compile(
        r"(?:\b|^)" + _WHAT + r" (?:now |still |only )?(?:has|have|runs on|runs with|comes with|"
        r"is running with|gets) (?:now )?" + _SIZE
    ),
    re.compile(
        r"\b(?:[Ww]e |[Tt]hey |I )?(?:upgraded|bumped|scaled|resized|downgraded|increased|"
        r"reduced|raised|cut) (?:the |our |my )?(?P<what>[A-Za-z][A-Za-z\- ]{1,30}?) "
        r"(?:up |down |back )?to " + _SIZE
    ),
    re.compile(
        r"(?:\b|^)" + _WHAT + r" (?:was|has been|got|is now|is being) (?:upgraded|bumped|scaled|"
        r"resized|downgraded|increased|reduced|raised|cut) (?:up |down |back )?to " + _SIZE
    ),
)
"""How much of a resource a machine or service has, one amount per resource at a time: "the
staging server has 16 GB of RAM", then "we upgraded staging to 64 GB of RAM"."""
_MACHINE_TAIL = re.compile(r"\s+(?:server|servers|machine|box|vm|instance|host|cluster)$")
_RESOURCES = {"ram": "memory", "disk space": "storage", "disk": "storage", "vram": "gpu memory"}


def _capacity(s: str, t: TurnInput, project: str) -> FactCandidate | None:
    """A machine's or service's memory, storage, CPUs or replicas (`_CAPACITY`).

    A size in bytes counts only with what it is of ("16 GB of RAM"): "the disk has 16 GB" and
    "the box has 16 GB" are different things, and a size alone says neither.
    """
    for rx in _CAPACITY:
        m = rx.search(s)
        if m is None:
            continue
        what = _MACHINE_TAIL.sub("", _fact_key(m.group("what")))
        unit = m.group("unit")
        said = m.group("res")
        if said is not None:
            resource = _RESOURCES.get(said.lower(), said.lower())
        elif not unit.upper().endswith("B"):  # "8 vCPUs", "3 replicas": the unit is the resource
            resource = unit.lower().rstrip("s")
            resource = "cpu" if resource in {"vcpu", "core"} else resource
        else:
            continue
        if not what or what in _NO_SUBJECT:
            continue
        amount = f"{m.group('n')} {unit}"
        return _said_other(
            what,
            f"has {resource}",
            amount,
            f"{project}: {what} has {amount}" + (f" of {said}" if said else ""),
            t,
        )
    return None


_AMOUNT_SET = (
    re.compile(
        r"(?:\b|^)" + _WHAT + r" (?:is|was|has been|got|will be) (?:now |officially )?"
        r"(?:(?:cut|raised|increased|reduced|lowered|bumped|set|capped|changed|dropped|"
        r"doubled|halved|moved) (?:back )?to |(?:fixed )?at )?" + _AMOUNT
    ),
    re.compile(
        r"\b(?:[Ww]e |[Tt]hey |I )?(?:cut|raised|increased|reduced|lowered|bumped|set|capped) "
        + _WHAT
        + r" to "
        + _AMOUNT
    ),
)
"""What something costs or is allowed, one amount at a time: "the budget was cut to $3,000"."""


_HABIT = r"(?P<x>[a-z][a-z\- ]{1,30}?)"
_HABIT_END = (
    r"(?=\s*(?:[.,;!?\n]|\bentirely\b|\bcompletely\b|\bfor good\b|\baltogether\b|"
    r"\bany ?more\b|\bnow\b|\bsince\b|\bafter\b|\bbecause\b|\band\b|$))"
)
_QUIT = (
    re.compile(
        r"\b[Ii](?:'ve| have)? (?:just |finally |completely |recently |totally )?"
        r"(?P<how>quit|gave up|given up|stopped|cut out) "
        r"(?:(?P<verb>" + "|".join(HABIT_VERBS.values()) + r") )?" + _HABIT + _HABIT_END
    ),
    re.compile(
        r"\b[Ii] (?:no longer|(?P<dont>don't|do not)) (?P<verb>"
        + "|".join(HABIT_VERBS)
        + r") "
        + _HABIT
        + _HABIT_END
    ),
)
_NOT_A_HABIT = re.compile(r"^(?:my|the|a|an|this|that|it|them|being|to|by|at|here|there)\b")


def _quit(s: str, t: TurnInput, speaker: str) -> FactCandidate | None:
    """A habit the user gave up ("I've quit coffee", "I no longer eat meat").

    What they said they do with it ends (`FactCandidate.ends`): "drinks their coffee black"
    is no longer true.
    """
    for rx in _QUIT:
        m = rx.search(s)
        if m is None:
            continue
        groups = m.groupdict()
        verb = groups.get("verb") or ""
        x = RELATIVE_TIME.split(m.group("x"))[0].strip()
        if not x and verb.endswith("ing"):  # "gave up smoking last year"
            x, verb = verb, ""
        if (
            not x
            or _NOT_A_HABIT.match(x)
            or (groups.get("dont") and not re.search(r"\bany ?more\b", s))
        ):
            continue
        doing = HABIT_VERBS.get(verb, verb)
        what = f"{doing} {x}".strip()
        return _said_other(
            _fact_key(speaker),
            f"gave up {normalize_key(x)}",
            what,
            f"{speaker} has given up {what}",
            t,
        ).model_copy(update={"ends": x})
    return None


_WHERE = (
    r"(?P<url>https?://[^\s,;!?]+?|[\w-]+(?:\.[\w-]+)*\.(?:io|com|dev|net|org|app|cloud|ai|co)"
    r"(?:/[^\s,;!?]*?)?)(?=[.,;!?]?(?:\s|$))"
)
_LOCATED = re.compile(
    r"(?:\b|^)" + _WHAT + r" (?:now |currently )?(?:lives|is|runs|is hosted|is deployed|"
    r"is reachable|is served|is available|moved|has moved|was moved|is now)(?: at| on| to| under)? "
    + _WHERE
)
"""Where a service is reached, one address at a time: "staging moved to https://stg.acme.dev"."""
_SERVICE_TAIL = re.compile(
    r"\s+(?:api|server|url|endpoint|site|environment|env|instance|host|service|app)$"
)


_TEAM_WORD = re.compile(r"\s+(?:team|squad|group|guild)$", re.IGNORECASE)


def _team_key(team: str) -> str:
    return _TEAM_WORD.sub("", _fact_key(team))


_CONFIG_NOUN = (  # words that also name a conversation's "topic" or a "long queue" stay out
    r"(?:host|hostname|port|branch|bucket|region|namespace|domain|database name|db name|"
    r"username|user name|registry|base image|image tag)"
)
_CONFIG_VALUE = r"(?P<v>[A-Za-z0-9][\w.\-:/@]{0,80}?)"
_VALUE_END = (  # a full stop inside a value ("db1.internal") does not end it
    r"(?=[.,;!?:]+(?:\s|$)|$|\s+(?:now|after|since|from|starting|because|so|and|until)\b)"
)
_SETTING = (
    re.compile(  # "the default branch is master", "our database host is now db2.internal"
        r"(?:\b|^)(?:[Tt]he|[Oo]ur) (?P<what>(?:[A-Za-z][\w\-]* ){0,3}" + _CONFIG_NOUN + r")"
        r" is (?:now |still |currently )?(?:set to |called |named )?" + _CONFIG_VALUE + _VALUE_END
    ),
    re.compile(  # "we renamed the default branch to main", "changed the region to eu-west-1"
        r"\b(?:[Ww]e |I )?(?:renamed|changed|moved|switched|set|pointed|updated) (?:the |our )"
        r"(?P<what>(?:[A-Za-z][\w\-]* ){0,3}"
        + _CONFIG_NOUN
        + r") (?:over |back )?to "
        + _CONFIG_VALUE
        + _VALUE_END
    ),
)
"""A configuration value, one at a time: "the database host is db1.internal", then "the database
host is now db2.internal"; the name ends in what holds such a value (host, port, branch, ...)."""
_PORT = (
    re.compile(  # "the API runs on port 8080"
        r"(?:(?:[Tt]he|[Oo]ur|[Mm]y) |^)(?P<what>[A-Za-z][\w\- ]{0,30}?) (?:now )?(?:runs|listens|"
        r"is running|is served|is listening|serves) on port (?P<v>\d{2,5})\b"
    ),
    re.compile(  # "we moved the API to port 9000"
        r"\b(?:moved|changed|switched|put|bound) (?:the |our )?(?P<what>[A-Za-z][\w\- ]{0,30}?) "
        r"(?:over |back )?to port (?P<v>\d{2,5})\b"
    ),
)
"""The port a service listens on, one at a time (its key: "<service> port")."""
_FILLER = re.compile(
    r"^(?:(?:so|now|then|and|but|also|ok|okay|well|btw)\s+)*(?:(?:the|our|my)\s+)?"
)
"""Words a sentence opens with before the service it names ("so the API runs on ...")."""


def _setting(s: str, t: TurnInput, project: str) -> FactCandidate | None:
    """A configuration value (`_SETTING`) or a service's port (`_PORT`), one current value each."""
    for rx in _PORT:
        m = rx.search(s)
        service = None if m is None else _FILLER.sub("", _fact_key(m.group("what")))
        if m is not None and service and service not in _NO_SUBJECT:
            what, port = f"{service} port", m.group("v")
            return _said_other(what, "is set to", port, f"{project}: the {what} is {port}", t)
    for rx in _SETTING:
        m = rx.search(s)
        if m is None or _fact_key(m.group("what")) in _NO_SUBJECT:
            continue
        value = m.group("v").rstrip(".:/")
        if value.lower() in _NOT_A_VALUE:
            continue
        what = _fact_key(m.group("what"))
        return _said_other(what, "is set to", value, f"{project}: the {what} is {value}", t)
    return None


_NOT_A_VALUE = frozenset(
    {"it", "this", "that", "the", "a", "an", "not", "down", "up", "wrong", "broken", "fine", "ok"}
    | {"slow", "fast", "same", "different", "unknown", "missing", "empty", "full", "set", "free"}
    | {"ready", "done", "merged", "deployed", "live", "green", "red", "failing", "passing"}
    | {"stale", "protected", "locked", "open", "closed", "busy", "available", "unavailable"}
    | {"healthy", "unhealthy", "new", "old", "gone", "deleted", "outdated", "correct", "right"}
    | {"fixed", "blocked", "pending", "huge", "large", "small", "public", "private", "there"}
    | {"me", "you", "us", "him", "her", "them", "mine", "yours", "ours"}
)
"""Words after "is" that say how a setting is, not what it is set to."""


_LEAD_ROLE = re.compile(r"^(?P<team>.+?) (?:team )?(?:lead|leader|head)$")
"""A role that leads a team ("QA lead", "design team lead"): said as who leads the team."""


def _led_by(who: str, team: str, project: str, t: TurnInput) -> FactCandidate:
    """Who leads `team` (as said: "QA", "backend team"), one at a time."""
    key = _team_key(team)
    # initials keep their capitals in the statement ("the QA team"); the key is lower-case
    shown = _TEAM_WORD.sub("", team.strip()) if re.match(_ACRONYM, team) else key
    return _said_other(
        f"{key} team",
        "led by",
        who,
        f"{project}: {who} leads the {shown} team",
        t,
    )


def _project_fact(s: str, t: TurnInput, project: str) -> FactCandidate | None:
    """Who leads a team, or when something is scheduled: one current value each."""
    for rx in _LEADS:
        m = rx.search(s)
        if m is None:
            continue
        who, team = m.group("who"), m.group("team")
        if who.split()[0].lower() in _NOT_A_NAME or technologies(who) or not _team_key(team):
            continue
        return _led_by(who, team, project, t)
    for rx in _ROLE_HOLDER:
        m = rx.search(s)
        if m is None:
            continue
        who, role = m.group("who"), _fact_key(m.group("role"))
        if who.split()[0].lower() in _NOT_A_NAME or technologies(who) or _NOT_A_ROLE.match(role):
            continue
        lead = _LEAD_ROLE.match(m.group("role"))
        if lead is not None:  # "Maria is our QA lead" and "Jonas is the QA lead now": one key
            return _led_by(who, lead.group("team"), project, t)
        return _said_other(
            role,
            "held by",
            who,
            f"{project}: {who} is the {m.group('role')}",
            t,
        )
    for rx in _AMOUNT_SET:
        m = rx.search(s)
        if m is None:
            continue
        what = _fact_key(m.group("what"))
        if not what or what in _NO_SUBJECT:
            continue
        amount = m.group("amount").strip()
        return _said_other(
            what,
            "amounts to",
            amount,
            f"{project}: the {what} is {amount}",
            t,
        )
    held = _capacity(s, t, project)
    if held is not None:
        return held
    located = _LOCATED.search(s)
    if located is not None:
        what = _SERVICE_TAIL.sub("", _fact_key(located.group("what")))
        if what and what not in _NO_SUBJECT:
            url = located.group("url")
            return _said_other(
                what,
                "is at",
                url,
                f"{project}: {located.group('what')} is at {url}",
                t,
            )
    off = next((m for rx in _CANCELLED if (m := rx.search(s))), None)
    if off is not None and _fact_key(off.group("what")) not in _NO_SUBJECT:
        what = _fact_key(off.group("what"))
        return _said_other(
            what,
            "scheduled for",
            "cancelled",
            f"{project}: the {what} is cancelled",
            t,
        )
    for rx in _SCHEDULED:
        m = rx.search(s)
        if m is None:
            continue
        what, when = _fact_key(m.group("what")), m.group("when")
        if not what or what in _NO_SUBJECT:
            continue
        return _said_other(
            what,
            "scheduled for",
            when,
            f"{project}: the {what} is scheduled for {when}",
            t,
        )
    return _setting(s, t, project)


def _personal(s: str, t: TurnInput, speaker: str, chat: bool) -> FactCandidate | None:
    standing = _standing(s, t, speaker, chat)
    if standing is not None:
        return standing
    named = _NAME.search(s) if t.role == "user" else None
    if named:  # the name the user wants to be called by: one current value
        x = named.group("x")
        return _said(
            subject=_fact_key(speaker),
            predicate="is called",
            object=x,
            kind="other" if chat else "preference",
            statement=f"{speaker} is called {x} (call them {x})",
            confidence=0.7,
            t=t,
        )
    rel = _RELATION.search(s)
    if rel:
        who, x = rel.group("rel").lower(), rel.group("x").strip()
        return _said(
            subject=_fact_key(speaker),
            predicate=who,
            object=x,
            kind="other",
            statement=f"{speaker}'s {who} is {x}",
            confidence=0.6,
            t=t,
        )
    for rx, pred in _PERSONAL:
        pm = rx.search(s)
        if not pm:
            continue
        x = pm.group("x").strip()
        p = pred
        if pred == "has":  # "has dog": a puppy is the dog one has
            kin = pm.group("rel").lower()
            p = f"has {_YOUNG.get(kin, kin)}"
        return _said(
            subject=_fact_key(speaker),
            predicate=p,
            object=x,
            kind="event" if pred == "started" else "other",
            statement=f"{speaker} {p} {x}",
            confidence=0.6,
            t=t,
        )
    return None


_PARTING_WITH = re.compile(
    rf"\b(?:I|[Ww]e)(?:'ve| have)? (?:just |finally |recently |already |also )?(?:{PARTING}) "
    r"(?:my|our) (?P<x>[A-Za-z0-9][\w\-' ]{1,40}?)"
    r"(?=\s*(?:[.,;!?\n]|\band\b|\bto\b|\bfor\b|\bbecause\b|\bsince\b|\bso\b|$))"
)


def _parted_facts(turns: Sequence[TurnInput], chat: bool) -> list[FactCandidate]:
    """What a person says they no longer have ("I sold my Honda Civic and bought a Tesla").

    Each is a fact of its own (`FactCandidate.parted`) that ends their current statements of
    having, driving or owning it (`knowledge.habits.ends_having`); the turn keeps its
    observation, since it may say what came instead.
    """
    out: list[FactCandidate] = []
    for t in turns:
        person = is_person(t.speaker)
        if t.tool_name or not (t.role == "user" or (chat and person)):
            continue
        speaker = t.speaker if person else t.role
        for m in _PARTING_WITH.finditer(t.text):
            x = RELATIVE_TIME.split(m.group("x"))[0].strip()
            x = re.sub(r"^(?:old|former|previous|trusty|beloved)\s+", "", x, flags=re.I)
            if not x or _NOT_A_HABIT.match(x.lower()):
                continue
            fact = _said(
                subject=_fact_key(speaker),
                predicate=f"parted with {normalize_key(x)}",
                object=x,
                kind="other",
                statement=f"{speaker} no longer has their {x}",
                confidence=0.65,
                t=t,
            )
            out.append(fact.model_copy(update={"parted": x}))
    return out


def _todo_list_facts(turns: Sequence[TurnInput]) -> list[FactCandidate]:
    """Agent todo lists (Claude Code's TodoWrite): one status fact per item.

    Each item's latest status supersedes the previous one, because subject (the item) and
    predicate ("status") are the same.
    """
    return [
        FactCandidate(
            subject=_fact_key(content)[:120],
            predicate="status",
            object=status,
            kind="todo",
            statement=f"TODO ({status}): {content}",
            confidence=0.9,
            turn_ids=(t.id,),
            valid_from=t.timestamp,
        )
        for t in turns
        if t.role == "assistant" and (t.tool_name or "").lower() in {"todowrite", "todo_write"}
        for content, status in todo_items(t.text)
    ]


# --- topics -------------------------------------------------------------------------------------


def _name_words(turns: Sequence[TurnInput], entities: EntityMentions) -> set[str]:
    """Lower-cased words of the people named or speaking in a session."""
    names = {w.lower() for p in entities.people for w in p.split()}
    return names | {w.lower() for t in turns if is_person(t.speaker) for w in t.speaker.split()}


_URL_WORDS = frozenset({"http", "https", "www", "com", "io", "html", "localhost"})


def _names_a_topic(k: Keyphrase, min_docs: int, names: set[str], technical: bool) -> bool:
    """Whether a keyphrase can title a topic: recurring, not the speakers' names, not vague.

    A technology's name titles one however common the word ("python", "react"), in a session
    that is technical: "black coffee" is no talk of the formatter.
    """
    if len(k.doc_ids) < min_docs or (len(k.doc_ids) < 2 and " " not in k.phrase):
        return False
    ws = k.phrase.split()
    if not _URL_WORDS.isdisjoint(ws):
        return False  # pieces of an address ("https", "www") name nothing
    if len(ws) > 1 and is_verb_form(ws[-1]):
        return False  # a clause ("maria leads", "deadline moved"), not a subject
    if all(w in names for w in ws):
        return False  # the people talking are entities, not topics
    if len(ws) == 1 and ws[0] in TECH_CATEGORIES and technical:
        return True
    # a lone gerund or adverb ("taking", "really") names no subject, nor a common word ("photo")
    return not (len(ws) == 1 and ws[0].endswith(("ing", "ly"))) and not is_generic_label(k.phrase)


def _topic(
    k: Keyphrase, turns: Sequence[TurnInput], texts: Sequence[str], entities: EntityMentions
) -> TopicCandidate:
    """The topic a keyphrase titles, from the turns that mention it."""
    kw = [k.phrase, *top_words(texts, 8, exclude=set(k.phrase.split()))]
    tech = tuple(dict.fromkeys(x for tx in texts for x in technologies(tx)))
    people = tuple(dict.fromkeys(t.speaker for t in turns if is_person(t.speaker)))
    return TopicCandidate(
        title=k.phrase,
        keywords=tuple(dict.fromkeys(kw)),
        turn_ids=tuple(t.id for t in turns),
        score=k.score,
        entities=EntityMentions(
            people=people[:10],
            projects=entities.projects,
            technologies=tech[:10],
        ),
        tokens=sum(len(tx) // 4 for tx in texts),
        first_seen=min(t.timestamp for t in turns),
        last_seen=max(t.timestamp for t in turns),
    )


# --- lessons ------------------------------------------------------------------------------------


_CAUSE = re.compile(
    r"\b(because|since|due to|caused by|root cause|the (?:issue|problem|reason|bug) (?:is|was)|"
    r"did(?: not|n't) exist|does(?: not|n't) exist|(?:is|was|were|are) missing|"
    r"not (?:installed|running|found|set|started|available|defined)|needs?|requires?|expects?|"
    r"turns out|forgot|wrong|stale|outdated|mismatch|conflict|collides?)\b",
    re.IGNORECASE,
)
_FILE = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|go|rs|java|kt|rb|php|c|h|cpp|"
    r"hpp|cs|swift|md|json|toml|ya?ml|ini|cfg|sql|sh|lock|env))\b"
)
_CODE_TALK = re.compile(
    r"\b(?:code|repo|lint\w*|format\w*|src|files?|commits?|merge|PRs?|pull request|refactor\w*|"
    r"install\w*|pip|npm|run(?:ning)?|CI)\b",
    re.IGNORECASE,
)
"""Words of a session about software, where a tool's name that is a common word is the tool."""
_CLAUSE_BREAK = re.compile(r";\s+|,\s+so\s+")
_TECHNICAL = re.compile(
    r"`|\b(?:port|container|server|config(?:uration)?|build|deploy|tests?|error|bug|function|api|"
    r"database|query|script|commit|branch|package|library|version|cache|index|endpoint|schema|"
    r"migration|dependenc(?:y|ies)|compiler|runtime|memory|thread|process|timeout)s?\b",
    re.IGNORECASE,
)
_TOOL_PREFIX = re.compile(r"^\[tool_(?:use|result) [^\]]*\]\s*")


def _excerpt(text: str, headline: str, lines: int = 6, limit: int = 700) -> str:
    """The error output around its headline: a few lines a person would paste into a ticket."""
    rows = [r.rstrip() for r in clean_text(text, 4000).splitlines() if r.strip()]
    at = next((k for k, r in enumerate(rows) if headline[:40] in r), None)
    if at is None:
        at = next((k for k, r in enumerate(rows) if _ERROR.search(r)), 0)
    lo = max(0, at - lines // 2)
    return "\n".join(rows[lo : lo + lines])[:limit]


def _command(t: TurnInput) -> str:
    """The first line of a tool turn (the command it ran, in generic transcripts)."""
    head = _TOOL_PREFIX.sub("", t.text.strip()).split("\n", 1)[0].strip()
    return head[:160]


def _context(turns: Sequence[TurnInput], k: int) -> TurnInput | None:
    """The nearest earlier user or assistant turn with text (what a stated lesson answers)."""
    for t in reversed(turns[:k]):
        if t.role in ("user", "assistant") and not t.tool_name and t.text.strip():
            return t
    return None


_PUSHBACK = re.compile(
    r"^\s*(?:no\b|nope\b|actually\b|stop\b|don'?t\b|do not\b|i told you\b|wrong\b)",
    re.IGNORECASE,
)


_MARKDOWN_EMPHASIS = re.compile(r"\*\*|__|`")
"""Bold and code marks, left out of a lesson's words ("we have **three levels**")."""


def _stated_lesson(
    x: str, category: LessonCategory, t: TurnInput, before: TurnInput | None
) -> LessonCandidate:
    """A lesson stated in words: the statement, quoted whole, with the turn it answers."""
    title = x[0].upper() + x[1:]
    kw = top_words([x], 6)
    quote = "\n".join(f"> {line}" for line in clean_text(t.text, 1200).splitlines())
    return LessonCandidate(
        category=category,
        title=title[:120],
        content=(f"Context: {before.text[:400]}\n\n" if before else "") + quote,
        summary=title[:200],
        applicable_when=", ".join(kw),
        keywords=tuple(kw),
        has_examples=False,
        has_steps=False,
        turn_ids=((before.id,) if before else ()) + (t.id,),
        seen_at=t.timestamp,
    )


def _task(turns: Sequence[TurnInput], i: int) -> str:
    """What the user last asked for before turn `i` (pushback such as "no, use X" is skipped)."""
    asked = [t for t in turns[:i] if t.role == "user" and not t.tool_name and t.text.strip()]
    for t in reversed(asked):
        if not _PUSHBACK.match(t.text):
            return _first_sentence(t.text, 200)
    return _first_sentence(asked[-1].text, 200) if asked else ""


def _add(into: list[str], s: str, cap: int) -> None:
    if len(into) < cap and s[:300] not in into:
        into.append(s[:300])


@dataclass(frozen=True)
class _Steps:
    """What the turns between an error and its passing run say: cause, fixes, changed files."""

    causes: tuple[str, ...]
    fixes: tuple[str, ...]
    files: tuple[str, ...]

    @classmethod
    def of(cls, attempts: Sequence[TurnInput], between: Sequence[TurnInput]) -> _Steps:
        causes: list[str] = []
        fixes: list[str] = []
        for s in (
            c.strip()
            for a in attempts
            for sent in _clauses(_TOOL_PREFIX.sub("", a.text))
            for c in _CLAUSE_BREAK.split(sent)
        ):
            if _ERROR.search(s) or len(s) < 12:
                continue
            if _CAUSE.search(s):
                _add(causes, s, 3)
            elif _FIX_VERB.search(s):
                _add(fixes, s, 4)
        if not fixes and attempts:
            fixes.append(_first_sentence(_TOOL_PREFIX.sub("", attempts[-1].text), 300))
        files = dict.fromkeys(
            m for t in between if t.role != "user" for m in _FILE.findall(t.text[:4000])
        )
        return cls(tuple(causes), tuple(fixes), tuple(list(files)[:8]))


def _record(
    turns: Sequence[TurnInput],
    i: int,
    j: int,
    attempts: Sequence[TurnInput],
    steps: _Steps,
    cmd: str,
    headline: str,
) -> list[str]:
    """The lesson's Markdown: problem, cause, fix, verification and provenance sections."""
    error, outcome = turns[i], turns[j]
    task = _task(turns, i)
    passed = _excerpt(outcome.text, "", 3, 300) or _first_sentence(outcome.text, 200)
    parts = ["## Problem", *([f"While working on: {task}"] if task else [])]
    parts.append(f"`{cmd}` failed with:" if cmd else "The run failed with:")
    parts += ["```", _excerpt(error.text, headline), "```", "", "## Cause"]
    parts.append(" ".join(steps.causes) if steps.causes else "Not stated in the session.")
    parts += ["", "## Fix", *(f"- {f}" for f in steps.fixes)]
    parts += [f"- Changed: {', '.join(steps.files)}"] if steps.files else []
    parts += ["", "## Verification", f"{j - i} turns later the run passed:", "```", passed, "```"]
    return [
        *parts,
        "",
        "## Provenance",
        f"- error: {error.id} ({error.timestamp:%Y-%m-%d %H:%M} UTC)",
        f"- fix: {', '.join(a.id for a in attempts)}",
        f"- verification: {outcome.id} ({outcome.timestamp:%Y-%m-%d %H:%M} UTC)",
    ]


def _error_lesson(
    turns: Sequence[TurnInput], i: int, attempts: Sequence[TurnInput], j: int
) -> LessonCandidate:
    """A problem → cause → fix → verification record from an error, its fixes and a passing run.

    Every part is quoted from the session (the task asked, the error output, the sentences that
    explain and change things, the files touched, the passing run), with the turns it came from.
    """
    error, outcome = turns[i], turns[j]
    headline = _error_headline(error.text)
    steps = _Steps.of(attempts, turns[i + 1 : j])
    cmd = _command(error) if error.role == "tool" else ""
    parts = _record(turns, i, j, attempts, steps, cmd, headline)
    fix = steps.fixes[0] if steps.fixes else ""
    first = steps.causes[0].rstrip(". ") if steps.causes else ""
    cause = f" because {first[0].lower()}{first[1:]}" if first else ""
    return LessonCandidate(
        category="problem-solution",
        # the title names the problem only: lessons are matched by the problem they solve, so a
        # later, different fix for the same error refines this lesson
        title=f"Fix: {headline[:90]}",
        content="\n".join(parts),
        summary=f"When {headline[:100]!r} appears{cause[:160]}: {fix[:160]}",
        applicable_when=f"{f'Running {cmd!r}: ' if cmd else ''}an error like {headline[:160]}",
        keywords=tuple(top_words([headline, *steps.causes, *steps.fixes, *steps.files], 8)),
        has_examples=True,
        has_steps=len(steps.fixes) >= 2 or bool(steps.files),
        turn_ids=(error.id, *(a.id for a in attempts), outcome.id),
        seen_at=outcome.timestamp,
    )


def _tool_stats(turns: Sequence[TurnInput]) -> dict[str, dict[str, int]]:
    """Calls and failures per tool, from the turns that report a tool's success."""
    stats: dict[str, dict[str, int]] = {}
    for t in turns:
        if t.tool_name and t.tool_ok is not None:
            s = stats.setdefault(t.tool_name, {"calls": 0, "failures": 0})
            s["calls"] += 1
            s["failures"] += 0 if t.tool_ok else 1
    return stats


# --- the extractor -------------------------------------------------------------------------------


class OfflineExtractor:
    """Deterministic, network-free extraction from one session's turns.

    Args:
        max_topics: topic candidates per session.
        lesson_window: turns after an error within which a passing run makes it a lesson.
        acts: read rules, decisions and project facts with the sentence-act model.
        embedder: the service's embedder, for the act head when it is the head's model.
    """

    name = "offline"

    def __init__(
        self,
        *,
        max_topics: int = 6,
        lesson_window: int = 16,
        acts: bool = False,
        embedder: Embedder | None = None,
    ) -> None:
        self.max_topics = max_topics
        self.lesson_window = lesson_window
        self._judge = SentenceActs(embedder)
        self.acts = self._judge if acts else None

    async def extract(self, session: SessionInput) -> ExtractionResult:
        """Extract candidates from `session` (pure; runs inline, it is fast)."""
        return self.extract_sync(session)

    def extract_sync(self, session: SessionInput) -> ExtractionResult:
        turns = session.turns
        entities = self._entities(session)
        if self.acts is not None and not between_people(turns):
            said = distil(
                turns,
                session.project,
                self.acts,
                patterns=(self._corrections(turns), self._facts(session)),
            )
            corrections, facts = said.corrections, said.facts
        else:
            corrections = tuple(self._corrections(turns))
            facts = tuple(self._facts(session))
        return ExtractionResult(
            session_id=session.id,
            project=session.project,
            corrections=corrections,
            facts=facts,
            lessons=tuple(self._lessons(turns) + self._insights(turns)),
            topics=tuple(self._topics(turns, entities)),
            entities=entities,
            enrichment=self._enrichment(turns, len(corrections)),
            extractor=self.name,
        )

    # corrections
    def _corrections(self, turns: Sequence[TurnInput]) -> list[CorrectionCandidate]:
        if between_people(turns):
            return []
        out: list[CorrectionCandidate] = []
        seen: set[str] = set()
        prev_agent = ""
        for t in turns:
            if t.role == "assistant" and t.text.strip():
                prev_agent = _first_sentence(t.text)
            if t.role != "user":
                continue
            after_lift = False
            for clause in _clauses(t.text):
                if _reply_language_of(clause) is not None:
                    continue  # the reply language is a fact of one current value
                replacement = _replacement(clause, t) if after_lift else None
                if replacement is not None:
                    out.append(replacement)
                    continue
                lift = lifting(clause)
                after_lift = lift is not None
                if lift is not None:
                    said, _ = lift  # "..., so go ahead and run X again": the lifting part
                    out.append(
                        CorrectionCandidate(
                            type=_classify(said),
                            corrected_behaviour=said,
                            rule_text=normalize_rule(said),
                            confidence=0.75,
                            explicit_rule=True,
                            turn_ids=(t.id,),
                            seen_at=t.timestamp,
                            negates=lift[1],
                            withdraws=True,
                        )
                    )
                    # "Forget what I said about pnpm, we use bun now": what replaces it
                    tail = _AFTER_COMMA.split(said, maxsplit=1)[1:]
                    replacement = _replacement(tail[0], t) if tail else None
                    if replacement is not None:
                        out.append(replacement)
                    continue
                parsed = correction_from_clause(clause)
                if parsed is None:
                    continue
                rule, corrected, original, explicit, negates = parsed
                key = normalize_key(rule)
                if not rule or key in seen or len(rule) < 8:
                    continue
                seen.add(key)
                out.append(
                    CorrectionCandidate(
                        type=_classify(rule),
                        original_behaviour=original or prev_agent,
                        corrected_behaviour=corrected,
                        rule_text=rule,
                        confidence=0.75 if explicit or original else 0.6,
                        explicit_rule=explicit,
                        turn_ids=(t.id,),
                        seen_at=t.timestamp,
                        negates=negates,
                    )
                )
        return out

    # facts
    def _facts(self, session: SessionInput) -> list[FactCandidate]:
        out: list[FactCandidate] = []
        chat = between_people(session.turns)
        for t in session.turns:
            if t.role not in ("user", "assistant") or t.tool_name:
                continue
            # "I misspoke: I work at Initrode": what this turn states corrects a mistake
            mistake = t.role == "user" and not chat and _MISTAKE.search(t.text) is not None
            for clause in _clauses(t.text):
                for s in decision_parts(clause):
                    found = _clause_fact(s, t, session.project, chat)
                    if found is not None:
                        out.append(
                            found.model_copy(update={"corrects": True}) if mistake else found
                        )
        out += _todo_list_facts(session.turns)
        # a turn that states a fact of its own (a diet, a decision) needs no observation besides
        told = {tid for f in out for tid in f.turn_ids}
        seen = observations(session.turns, chat=chat, lasting=self._judge.lasting)
        out += [o for o in seen if not told & set(o.turn_ids)]
        out += _parted_facts(session.turns, chat)
        # "started <hobby>" accumulates (never contradicts); make each its own predicate.
        return [
            f.model_copy(update={"predicate": f"started {normalize_key(f.object)}"})
            if f.predicate == "started"
            else f
            for f in out
        ]

    # lessons
    def _lessons(self, turns: Sequence[TurnInput]) -> list[LessonCandidate]:
        out: list[LessonCandidate] = []
        i = 0
        while i < len(turns):
            lesson, end = self._lesson_from(turns, i) if _is_error(turns[i]) else (None, i)
            if lesson is None:
                i += 1
                continue
            out.append(lesson)
            i = end + 1
        return out

    def _lesson_from(
        self, turns: Sequence[TurnInput], i: int
    ) -> tuple[LessonCandidate | None, int]:
        """Error at `i` → fix attempts → a passing run within `lesson_window` turns: a lesson.

        Returns the lesson (None when no attempt or no pass follows) and the passing turn's index.
        """
        attempts: list[TurnInput] = []
        j = i + 1
        while j < len(turns) and j <= i + self.lesson_window:
            u = turns[j]
            if _is_pass(u) or _reran_clean(turns[i], u):
                return (_error_lesson(turns, i, attempts, j) if attempts else None), j
            if u.role == "assistant" and u.text.strip():  # whatever the agent did in between
                attempts.append(u)
            j += 1
        return None, j

    # insights: lessons stated in words ("I learned that...", "the root cause was...")
    def _insights(self, turns: Sequence[TurnInput]) -> list[LessonCandidate]:
        """Lessons stated in words, in work sessions (tools ran) or about a named technology.

        In casual conversation "it turns out they live close by" is news, not a lesson.
        """
        out: list[LessonCandidate] = []
        seen: set[str] = set()
        work = any(t.role == "tool" or t.tool_name for t in turns)
        for k, t in enumerate(turns):
            if t.role not in ("user", "assistant") or t.tool_name:
                continue
            if not work and not (technologies(t.text) or _TECHNICAL.search(t.text)):
                continue
            for sent in _clauses(t.text):
                for rx, category in _INSIGHTS:
                    m = rx.search(sent)
                    if not m:
                        continue
                    x = _MARKDOWN_EMPHASIS.sub("", m.group("x")).strip(" ,;:-")
                    key = normalize_key(x)
                    if key in seen or len(words(x)) < 3 or _VAGUE.match(x):
                        break
                    seen.add(key)
                    out.append(_stated_lesson(x, category, t, _context(turns, k)))
                    break
        return out

    # topics
    def _topics(self, turns: Sequence[TurnInput], entities: EntityMentions) -> list[TopicCandidate]:
        docs_turns = [t for t in turns if t.role in ("user", "assistant") and t.text.strip()]
        docs = [clean_text(t.text, 3000) for t in docs_turns]
        if not docs or self.max_topics == 0:
            return []
        min_docs = 2 if len(docs) >= 3 else 1
        names = _name_words(turns, entities)
        technical = len(entities.technologies) > 1 or any(
            _TECHNICAL.search(d) or _FILE.search(d) or _CODE_TALK.search(d) for d in docs
        )
        out: list[TopicCandidate] = []
        for k in keyphrases(docs, top=self.max_topics * 4):
            if not _names_a_topic(k, min_docs, names, technical):
                continue
            out.append(
                _topic(
                    k, [docs_turns[i] for i in k.doc_ids], [docs[i] for i in k.doc_ids], entities
                )
            )
            if len(out) >= self.max_topics:
                break
        return out

    # entities
    def _entities(self, session: SessionInput) -> EntityMentions:
        people: dict[str, None] = {}
        tech: dict[str, None] = {}
        generic = {"user", "assistant", "system", "tool", "human", "ai", "claude", "chatgpt"}
        for t in session.turns:
            if is_person(t.speaker) and t.speaker.lower() not in generic and t.role != "tool":
                people[t.speaker] = None
            if t.role in ("user", "assistant") and not t.tool_name:
                text = clean_text(t.text, 2000)
                for name in capitalised_names(text):
                    people.setdefault(name, None)
                for x in technologies(text):
                    tech[x] = None
        names = Counter(people)
        return EntityMentions(
            people=tuple(list(names)[:50]),
            projects=(session.project,),
            technologies=tuple(list(tech)[:50]),
        )

    # enrichment
    def _enrichment(self, turns: Sequence[TurnInput], corrections: int) -> SessionEnrichment:
        users = [t for t in turns if t.role == "user" and t.text.strip() and not t.tool_name]
        stats = _tool_stats(turns)
        frustration = sum(len(_FRUSTRATION.findall(t.text[:2000])) for t in users)
        tools = sum(s["calls"] for s in stats.values())
        judged = (
            None
            if between_people(turns) or not users
            else assess(turns, corrections=corrections, frustration=frustration)
        )
        return SessionEnrichment(
            intent=_first_sentence(users[0].text) if users else None,
            outcome=judged.outcome if judged else None,
            quality=judged.quality if judged else None,
            summary=_summary(turns) or (_first_sentence(users[0].text, 120) if users else None),
            complexity=min(1.0, len(turns) / 200 + tools / 100),
            frustration_signals=frustration,
            tool_stats=stats,
        )
