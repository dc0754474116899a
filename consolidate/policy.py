"""What `rem run --auto` may apply on its own: reversible actions that are safe by rule.

Pure rules over a finding and the stored properties of its targets (`graph.rows.NodeImage`):

- `keep` changes nothing, so it stays open for a reviewer to read;
- `create_lesson` invents an item (and, for a cross-project finding, would need a project): never;
- `archive` only for the staleness kinds (`stale`, `faded`), and never a rule or preference, a
  confirmed item, one with positive feedback (helpful votes or effectiveness above zero), or one
  served in the last `served_days` (`context`, `rules`, the session-start hook: an agent is
  reading it, whatever its usage count says); a `contradicted` correction waits for a person to
  say which rule holds;
- `merge` only when the two texts are near-identical (`near_identical`), never on cosine alone;
- `link` adds one `RELATED_TO` edge between two existing items.

Every applied action is recorded with the before-image of what it touched, so
`remgraph rem undo RUN_ID` can put it back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from difflib import SequenceMatcher
from typing import Any

from consolidate.config import ConsolidateSection
from core.timeutil import days_between
from graph.models import Finding

SERVED_DAYS: float = ConsolidateSection.model_fields["served_days"].default
"""`consolidate.served_days`' default: an item served this recently is never auto-archived."""

AUTO_ARCHIVE_KINDS = frozenset({"stale", "faded"})
"""Finding kinds whose `archive` may be applied without review (subject to `protected`)."""

NEAR_IDENTICAL = 0.95
"""Character similarity (difflib ratio of the normalised texts) at or above which two texts are
the same statement; chosen so case, punctuation and a typo pass while "Use pnpm not npm." and
"Use pnpm not npm for this repo." (0.70) or two rewordings of one lesson (0.82) do not."""

POLARITY = frozenset(
    {"not", "no", "never", "always", "don", "dont", "do", "avoid", "stop", "instead", "only"}
)
"""Words that flip or narrow a statement: two texts differing in them are never the same."""

_NON_WORD = re.compile(r"[^\w]+")


def normalise(text: str) -> str:
    """Lower case, punctuation and runs of spaces folded to one space."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


def near_identical(a: str, b: str) -> bool:
    """The same statement up to case, punctuation and a small edit."""
    na, nb = normalise(a), normalise(b)
    if not na or not nb:
        return False
    if na == nb:
        return True
    if _anchors(na) != _anchors(nb):
        return False  # "always" vs "never", "3.11" vs "3.12": a different statement
    return SequenceMatcher(None, na, nb).ratio() >= NEAR_IDENTICAL


def _anchors(text: str) -> list[str]:
    """The polarity words and numbers of a normalised text, in order."""
    return [w for w in text.split() if w in POLARITY or any(c.isdigit() for c in w)]


def item_text(props: Mapping[str, Any]) -> str:
    """The text a merge compares: a correction's rule, else a lesson's title and content."""
    if props.get("rule_text"):
        return str(props["rule_text"])
    return f"{props.get('title') or ''} {props.get('content') or props.get('summary') or ''}"


def protected(props: Mapping[str, Any]) -> str | None:
    """Why an item must never be archived automatically, or None."""
    if props.get("status") in {"rule", "preference"}:
        return f"it is a {props['status']}"
    if props.get("category") == "rule":
        return "it is a rule"
    if props.get("confirmed"):
        return "a person confirmed it"
    if int(props.get("helpful_count") or 0) > 0 or float(props.get("effectiveness") or 0) > 0:
        return "it has positive feedback"
    return None


def served_recently(last_served_ms: int | None, now_ms: int, days: float) -> str | None:
    """Why an item served at `last_served_ms` (None: never) is in use at `now_ms`, or None.

    Served within the last `days` (a serving after `now_ms` counts too) means in use.
    """
    if last_served_ms is None:
        return None
    age = days_between(last_served_ms, now_ms)
    if age >= days:
        return None
    return f"it was served {age:.0f} days ago (within {days:g})"


def auto_refusal(
    finding: Finding,
    images: Mapping[str, Mapping[str, Any]],
    served: Mapping[str, int] | None = None,
    *,
    now_ms: int = 0,
    served_days: float = SERVED_DAYS,
) -> str | None:
    """Why `--auto` leaves `finding` for review, or None when it may apply it.

    Args:
        finding: the open finding.
        images: stored properties of its targets by id (missing: the target is gone).
        served: when each target was last served (epoch ms; missing: never).
        now_ms: the time of the run, which `served_days` counts back from.
        served_days: an item served within this many days is never archived.
    """
    action, targets = finding.proposed_action, finding.target_ids
    if action == "keep":
        return "nothing to apply: left for review"
    if action == "create_lesson":
        return "creates a new item: needs review"
    missing = [t for t in targets[:2] if t not in images]
    if missing:
        return f"target {missing[0]} is no longer current"
    if action == "archive":
        if finding.kind not in AUTO_ARCHIVE_KINDS:
            return f"archiving after a {finding.kind!r} finding needs review"
        why = protected(images[targets[0]]) or served_recently(
            (served or {}).get(targets[0]), now_ms, served_days
        )
        return None if why is None else f"never archived automatically: {why}"
    if action == "merge":
        if len(targets) < 2:
            return "nothing to merge"
        a, b = (item_text(images[t]) for t in targets[:2])
        return None if near_identical(a, b) else "texts differ: merging needs review"
    return None if len(targets) >= 2 else "nothing to link"  # link
