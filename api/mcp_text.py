"""What the MCP tools answer by default: compact text an agent reads, sized to its budget.

A `context` answer as JSON (every `why` signal, ids, provenance, pretty-printed) is many times the
size of the item texts it carries, and an agent pays for every character. So the tools answer
with one line per item: its rank, kind, date, id (and session, for a turn) and its text, with
`why` only when asked; the whole answer stays within the `token_budget` asked for (the same
estimate the graph's token counts use: characters / 4). JSON stays available (`format="json"`).
An error is one line naming what and where (`error_line`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.text import estimate_tokens

__all__ = ["FORMATS", "context_text", "error_line", "rules_text", "search_text"]

FORMATS = ("text", "json")
"""The answer formats a tool takes."""

_OK = {"SearchHitConnection"}
"""Result types that are not errors besides the `...Payload` ones."""
_MIN_TEXT = 12
"""Characters of an item's text below which a cut item is left out instead."""


def error_line(payload: Mapping[str, Any]) -> str | None:
    """One line for a GraphQL error or an error result (`Forbidden`, `InvalidInput`, ...)."""
    if "errors" in payload:
        return "error: " + "; ".join(" ".join(str(e).split()) for e in payload["errors"])
    kind = str(payload.get("__typename", ""))
    if not kind or kind in _OK or kind.endswith("Payload"):
        return None
    where = payload.get("project") or payload.get("field") or payload.get("capability")
    message = " ".join(str(payload.get("message", "")).split())
    return f"{kind}{f' ({where})' if where else ''}: {message}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _date(ts: Any) -> str:
    return str(ts)[:10] if ts else "undated"


def _why(item: Mapping[str, Any]) -> str:
    signals = item.get("why") or []
    return " [why: " + ", ".join(f"{s['name']} {s['value']:.3g}" for s in signals) + "]"


def _item_head(rank: int, item: Mapping[str, Any]) -> str:
    prov = item.get("provenance") or {}
    where = [_date(prov.get("timestamp")), str(item.get("id", ""))]
    if item.get("kind") == "TURN" and prov.get("sessionId"):
        where.insert(1, f"session {prov['sessionId']}")
    speaker = f" {prov['speaker']}" if item.get("kind") == "TURN" and prov.get("speaker") else ""
    return f"{rank}. {item.get('kind')}{speaker} ({', '.join(where)}): "


def _fit(header: str, lines: Sequence[tuple[str, str, str]], budget: int | None) -> str:
    """`header` and as many `(head, text, tail)` lines as `budget` tokens hold, the last cut."""
    out = [header]
    for head, text, tail in lines:
        line = head + text + tail
        if budget is None or estimate_tokens("\n".join([*out, line])) <= budget:
            out.append(line)
            continue
        room = budget * 4 - len("\n".join(out)) - len(head) - len(tail) - 2
        if room >= _MIN_TEXT:
            out.append(head + text[: room - 1].rstrip() + "…" + tail)
        break
    return "\n".join(out)


def context_text(payload: Mapping[str, Any], budget: int | None, *, why: bool = False) -> str:
    """A `context` answer: a header, then one line per item, within `budget` tokens."""
    items = list(payload.get("items") or [])
    answerable = payload.get("answerable")
    score = f", answerable {answerable:.2f}" if isinstance(answerable, int | float) else ""
    lines = [
        (_item_head(rank, i), _one_line(str(i.get("text", ""))), _why(i) if why else "")
        for rank, i in enumerate(items, start=1)
    ]
    # fitted under the longest header it may need ("3 of 10 items"), then given the right one
    longest = f"{len(items)} of {len(items)} items{score}"
    body = _fit(longest, lines, budget).split("\n")[1:]
    shown = len(body)
    head = (
        f"{len(items)} items{score}"
        if shown == len(items)
        else f"{shown} of {len(items)} items{score}"
    )
    return "\n".join([head, *body])


def rules_text(payload: Mapping[str, Any]) -> str:
    """A `rules` answer: one line per rule or preference in force."""
    items = list(payload.get("items") or [])
    lines = [
        f"{n}. {r.get('status')} ({r.get('id')}{', confirmed' if r.get('confirmed') else ''}): "
        + _one_line(str(r.get("text", "")))
        for n, r in enumerate(items, start=1)
    ]
    return "\n".join([f"{len(items)} rules in force", *lines])


def search_text(payload: Mapping[str, Any]) -> str:
    """A `search` answer: one line per matching turn."""
    nodes = list(payload.get("nodes") or [])
    lines = []
    for n, hit in enumerate(nodes, start=1):
        t = hit.get("turn") or {}
        who = f" {t['speaker']}" if t.get("speaker") else ""
        lines.append(
            f"{n}. TURN{who} ({_date(t.get('timestamp'))}, session {t.get('sessionId')}, "
            f"{t.get('id')}): {_one_line(str(t.get('text', '')))}"
        )
    return "\n".join([f"{len(nodes)} turns", *lines])
