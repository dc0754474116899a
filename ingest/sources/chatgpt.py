"""ChatGPT data export: `conversations.json`, a list of conversations, each a `mapping` tree.

Every node is `{id, message, parent, children}`; edits and regenerations branch the tree, and
`current_node` names the leaf of the branch the user last saw. The parser follows `parent` links
from `current_node` up to the root, so only the current branch becomes turns. Hidden system
messages and empty nodes are skipped. Content types: `text`, `multimodal_text` (images become
`[image]`), `code`, `execution_output`, `tether_*`, `thoughts`, `reasoning_recap`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.timeutil import parse_time
from ingest.models import ParseIssue
from ingest.sources.base import (
    Builders,
    ParseCursor,
    ParseOptions,
    ParseResult,
    SessionBuilder,
    as_text,
    payload,
)

__all__ = ["ChatGPTParser"]

_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "tool": "tool"}


def _parts_text(content: dict[str, Any]) -> str:
    parts = []
    for p in content.get("parts") or []:
        if isinstance(p, str):
            parts.append(p)
        elif isinstance(p, dict):
            kind = str(p.get("content_type", ""))
            parts.append("[image]" if "image" in kind else as_text(p))
    return "\n".join(x for x in parts if x)


def _thoughts_text(content: dict[str, Any]) -> str:
    return "\n".join(
        f"[thinking] {t.get('content', '')}"
        for t in content.get("thoughts") or []
        if isinstance(t, dict)
    )


def _field_text(*names: str) -> Callable[[dict[str, Any]], str]:
    """The first non-empty of these fields, as text."""

    def text(content: dict[str, Any]) -> str:
        return str(next((content[n] for n in names if content.get(n)), "") or "")

    return text


_TEXT_OF: dict[str, Callable[[dict[str, Any]], str]] = {
    "text": _parts_text,
    "multimodal_text": _parts_text,
    "code": _field_text("text"),
    "execution_output": _field_text("text"),
    "thoughts": _thoughts_text,
    "reasoning_recap": _field_text("content"),
}
"""Text of a message's content by `content_type` (`tether*` types and others: see below)."""


def _content_text(content: Any) -> str:
    if not isinstance(content, dict):
        return as_text(content)
    ct = content.get("content_type")
    if not isinstance(ct, str):
        return as_text(content.get("parts") or content.get("text") or "")
    if ct in _TEXT_OF:
        return _TEXT_OF[ct](content)
    if ct.startswith("tether"):
        return _field_text("result", "text")(content)
    return as_text(content.get("parts") or content.get("text") or "")


def _branch(mapping: dict[str, Any], leaf: str | None) -> list[dict[str, Any]]:
    """Nodes from the root to `leaf` (or to the last leaf when there is no `current_node`)."""
    if leaf is None or leaf not in mapping:
        leaf = next(
            (
                k
                for k, v in reversed(list(mapping.items()))
                if isinstance(v, dict) and not v.get("children")
            ),
            None,
        )
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = leaf
    while node_id is not None and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        chain.append(node)
        parent = node.get("parent")
        node_id = parent if isinstance(parent, str) else None
    chain.reverse()
    return chain


class ChatGPTParser:
    """Parser for ChatGPT `conversations.json` exports."""

    name = "chatgpt"
    incremental = False

    def sniff(self, path: Path, head: str) -> int:
        score = 0
        if '"mapping"' in head:
            score += 60
        if '"current_node"' in head or '"create_time"' in head:
            score += 20
        if path.name == "conversations.json":
            score += 30
        return min(score, 100)

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
        issues: list[ParseIssue] = []
        builders = Builders(None, self.name, opts.file, opts.tool_payload_chars)
        text = data.decode("utf-8-sig", errors="replace")
        if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
            issues.append(
                ParseIssue(
                    file=opts.file,
                    severity="warning",
                    reason="invalid UTF-8; undecodable bytes replaced",
                )
            )
        try:
            doc = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            issues.append(
                ParseIssue(
                    file=opts.file,
                    line=getattr(e, "lineno", None),
                    reason=f"not valid JSON (truncated?): {e}",
                )
            )
            return builders.result(issues, offset=0, line=0, skipped=0, failed=1)
        convs = doc if isinstance(doc, list) else [doc]
        skipped = failed = 0
        project = opts.project or "chatgpt"
        for pos, conv in enumerate(convs, start=1):
            try:
                s = self._conversation(conv, pos, builders, project, opts)
                skipped += s
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                failed += 1
                issues.append(
                    ParseIssue(
                        file=opts.file, line=pos, reason=f"conversation #{pos} unreadable: {e}"
                    )
                )
        return builders.result(issues, offset=len(data), line=0, skipped=skipped, failed=failed)

    def _conversation(
        self, conv: Any, pos: int, builders: Builders, project: str, opts: ParseOptions
    ) -> int:
        if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
            raise ValueError("no `mapping` object")
        key = str(conv.get("conversation_id") or conv.get("id") or f"conversation-{pos}")
        b = builders.get(key, project)
        title = conv.get("title")
        if isinstance(title, str) and title:
            b.cursor.title = title
        created = parse_time(conv.get("create_time"))
        b.cursor.date = created
        default_model = conv.get("default_model_slug")
        skipped = 0
        last = created
        for node in _branch(conv["mapping"], conv.get("current_node")):
            msg = node.get("message")
            if not isinstance(msg, dict):
                continue
            added = self._message(node, msg, b, pos, last, default_model, opts)
            if added is None:
                skipped += 1
            else:
                last = added
        return skipped

    def _message(
        self,
        node: dict[str, Any],
        msg: dict[str, Any],
        b: SessionBuilder,
        pos: int,
        last: datetime | None,
        default_model: Any,
        opts: ParseOptions,
    ) -> datetime | None:
        """Add one message as a turn; returns its time, or None when it is skipped."""
        author: dict[str, Any] = a if isinstance(a := msg.get("author"), dict) else {}
        role = _ROLES.get(str(author.get("role")), "system")
        meta: dict[str, Any] = m if isinstance(m := msg.get("metadata"), dict) else {}
        text = _content_text(msg.get("content"))
        if not text.strip() or meta.get("is_visually_hidden_from_conversation"):
            return None
        ts = _time(msg, last, b)
        model = meta.get("model_slug") or (default_model if role == "assistant" else None)
        tool = _ToolPart.of(role, author, msg, meta, b)
        full, cut = None, False
        if tool.name is not None:
            text, full, cut = payload(text, opts.tool_payload_chars)
            if role == "assistant":
                text = f"[tool_use {tool.name}] {text}"
        b.add_turn(
            key=str(node.get("id") or msg.get("id")),
            role=role,  # type: ignore[arg-type]
            speaker=str(author.get("name") or model or role),
            text=text,
            timestamp=ts,
            line=pos,
            tool_name=tool.name,
            tool_ok=tool.ok,
            parent_key=node.get("parent") if isinstance(node.get("parent"), str) else None,
            model=model if isinstance(model, str) else None,
            full_size=full,
            truncated=cut,
        )
        return ts


def _time(msg: dict[str, Any], last: datetime | None, b: SessionBuilder) -> datetime:
    """The message's time; an undated one keeps its place, one second after the previous."""
    ts = parse_time(msg.get("create_time"))
    if ts is not None:
        return ts
    return (last + timedelta(seconds=1)) if last else b.timestamp(None)


@dataclass(frozen=True)
class _ToolPart:
    """The tool side of a message: a tool's answer, or an assistant message addressed to one."""

    name: str | None = None
    ok: bool | None = None

    @classmethod
    def of(
        cls,
        role: str,
        author: dict[str, Any],
        msg: dict[str, Any],
        meta: dict[str, Any],
        b: SessionBuilder,
    ) -> _ToolPart:
        if role == "tool":
            name = str(author.get("name") or "tool")
            ok = "error" not in str(msg.get("status") or "") and meta.get("is_error") is not True
            b.add_tool_call(name)
            b.add_tool_result(None, ok, name)
            return cls(name, ok)
        if role == "assistant" and msg.get("recipient") not in (None, "all"):
            return cls(str(msg.get("recipient")))
        return cls()
