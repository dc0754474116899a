"""The sentences of a message a person typed, cleaned, each kept in their own words.

A message is split into its typed lines; pasted material is set aside
(fenced code, quoted lines, log and stack-trace lines, table rows, long unbroken tokens); each
unit is split into sentences by the parser (`ai.language`), which does not need a capital
letter or a full stop to see where one ends. A sentence keeps its words: only markdown marks
and discourse lead-ins ("ok so", "also,", "yes -") are taken off, never content.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ai import language

if TYPE_CHECKING:
    from spacy.tokens import Span

__all__ = ["pasted_lines", "said", "typed"]

_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
_DETAILS = re.compile(r"<details>.*?</details>", re.S | re.I)
_TAG = re.compile(r"</?[a-z][a-z0-9_-]*(?:\s[^<>]*)?>", re.I)
_LIST_MARK = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)]|#{1,6})\s+")
_EMPHASIS = re.compile(r"(\*\*|__|~~)")
_LOGGY = re.compile(
    r"^\s*(?:at\s+\S+\s*\(|File \"|Traceback|\$ |> |>>>|\[\d|\d{2}:\d{2}:\d{2}"
    r"|[A-Z][a-zA-Z]*Error\b|error(?:\[|:)|warning:|npm (?:ERR|WARN)|✓|✗|×|\+\s|-\s{2})",
)
_CODEY = re.compile(
    r"[{};]\s*$|^\s*(?:import|export|const|let|var|def|class|return)\s"
    r"|<<|>>|&&|\|\||\$\(|=>|::|==|!=|#!/"  # shell and code operators nobody types in prose
)
_LEAD = frozenset(
    {"ok", "okay", "k", "so", "also", "and", "but", "yes", "yeah", "yep", "no", "nope", "well"}
    | {"great", "cool", "nice", "thanks", "perfect", "hmm", "right", "alright", "now", "btw"}
    | {"hey", "hi", "oh", "ah", "then"}
)
"""Discourse lead-ins: words that open a sentence without being part of what it says."""
MIN_WORDS = 3
_RATIO_MIN = 48
"""Characters a line needs before its share of letters can mark it as pasted."""
MAX_WORDS = 80


def _pasted(line: str) -> bool:
    s = line.strip()
    if not s:
        return False
    if _LOGGY.match(line) or _CODEY.search(s) or s.count("|") >= 2:
        return True
    letters = sum(c.isalpha() for c in s)
    if len(s) >= _RATIO_MIN and letters < 0.55 * len(s):
        return True  # a short line's share of letters says little ("My number is +1 555 0100.")
    return any(len(w) > 60 for w in s.split())


def _indented(line: str) -> bool:
    """A non-blank line that starts with two spaces or a tab (code, a script, a nested log)."""
    return bool(line.strip()) and (line.startswith("  ") or line.startswith("\t"))


def _pasted_mask(lines: list[str]) -> list[bool]:
    """Which `lines` were pasted: each line on its own (`_pasted`), and a whole indented run.

    A run of indented lines (blank lines inside it included) is one pasted block when one of
    its lines reads as pasted or the line that opens it does ("Run # build", then the script
    indented under it): a log or a script carries prose-like lines ("  - Never open pagers.")
    that nobody typed to the agent.
    """
    mask = [_pasted(ln) for ln in lines]
    i, n = 0, len(lines)
    while i < n:
        if not _indented(lines[i]):
            i += 1
            continue
        j = i
        while j < n and (_indented(lines[j]) or not lines[j].strip()):
            j += 1
        if any(mask[i:j]) or (i > 0 and mask[i - 1]):
            mask[i:j] = [True] * (j - i)
        i = j
    return mask


def pasted_lines(text: str) -> list[str]:
    """The lines of a message that were pasted rather than typed (logs, code, tables)."""
    fenced = [m.group(0) for m in _FENCE.finditer(text)]
    lines = _FENCE.sub("\n", text).splitlines()
    return [*fenced, *(ln for ln, p in zip(lines, _pasted_mask(lines), strict=True) if p)]


def typed(text: str) -> str:
    """The part of a message a person typed: fenced code, folded details and pasted lines out.

    Line breaks are kept (people break lines between thoughts); every extractor reads a
    message's sentences from this, so a pasted log or script never becomes an instruction.
    """
    lines = _FENCE.sub("\n", _DETAILS.sub("\n", text)).splitlines()
    return "\n".join(ln for ln, p in zip(lines, _pasted_mask(lines), strict=True) if not p)


def _units(text: str) -> list[str]:
    """Each typed line of the message (people break lines between thoughts), marks removed."""
    lines = (_LIST_MARK.sub("", ln) for ln in typed(text).splitlines() if ln.strip())
    cleaned = (_EMPHASIS.sub("", _TAG.sub(" ", ln)).strip() for ln in lines)
    return [ln for ln in cleaned if ln]


def _trim(sent: Span) -> str:
    """The sentence without its discourse lead-ins (leading interjections, conjunctions)."""
    for t in sent:
        if t.is_space or t.is_punct or t.lower_ in _LEAD or t.pos_ in ("INTJ", "CCONJ"):
            continue
        return sent.doc.text[t.idx : sent.end_char].strip()
    return ""


def said(text: str, *, limit: int = 6000) -> list[str]:
    """The sentences a person typed in `text` (pasted material left out)."""
    units = _units(text[:limit])
    if not units:
        return []
    out: list[str] = []
    for doc in language.parse(units):
        for sent in doc.sents:
            clean = _trim(sent).strip(" -–—:;,")
            n = sum(1 for t in sent if t.is_alpha)
            if MIN_WORDS <= n <= MAX_WORDS and clean:
                out.append(clean)
    return out
