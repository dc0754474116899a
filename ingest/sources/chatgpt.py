"""ChatGPT data export: `conversations.json`, a list of conversations, each a `mapping` tree.

Every node is `{id, message, parent, children}`; edits and regenerations branch the tree, and
`current_node` names the leaf of the branch the user last saw. The parser follows `parent` links
from `current_node` up to the root, so only the current branch becomes turns. Hidden system
messages and empty nodes are skipped. Content types: `text`, `multimodal_text` (images become
`[image]`), `code`, `execution_output`, `tether_*`, `thoughts`, `reasoning_recap`.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from core.timeutil import parse_time
from ingest.models import ParseIssue
from ingest.sources.base import (
    Builders,
    ParseCursor,
    ParseOptions,
    ParseResult,
    as_text,
    payload,
)

__all__ = ["ChatGPTParser"]

_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "tool": "tool"}


def _content_text(content: Any) -> str:
    if not isinstance(content, dict):
        return as_text(content)
    ct = content.get("content_type")
    if ct in ("text", "multimodal_text"):
        parts = []
        for p in content.get("parts") or []:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict):
                kind = str(p.get("content_type", ""))
                parts.append("[image]" if "image" in kind else as_text(p))
        return "\n".join(x for x in parts if x)
    if ct in ("code", "execution_output"):
        return str(content.get("text") or "")
    if ct == "thoughts":
        return "\n".join(
            f"[thinking] {t.get('content', '')}"
            for t in content.get("thoughts") or []
            if isinstance(t, dict)
        )
    if ct == "reasoning_recap":
        return str(content.get("content") or "")
    if isinstance(ct, str) and ct.startswith("tether"):
        return str(content.get("result") or content.get("text") or "")
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
        text = data.decode("utf-8", errors="replace")
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
            author: dict[str, Any] = a if isinstance(a := msg.get("author"), dict) else {}
            role = _ROLES.get(str(author.get("role")), "system")
            meta: dict[str, Any] = m if isinstance(m := msg.get("metadata"), dict) else {}
            text = _content_text(msg.get("content"))
            if not text.strip() or meta.get("is_visually_hidden_from_conversation"):
                skipped += 1
                continue
            ts = parse_time(msg.get("create_time"))
            if ts is None:  # undated nodes keep order: one second after the previous
                ts = (last + timedelta(seconds=1)) if last else b.timestamp(None)
            last = ts
            model = meta.get("model_slug") or (default_model if role == "assistant" else None)
            tool_name = None
            tool_ok = None
            full = None
            cut = False
            if role == "tool":
                tool_name = str(author.get("name") or "tool")
                status = str(msg.get("status") or "")
                tool_ok = "error" not in status and meta.get("is_error") is not True
                b.add_tool_call(tool_name)
                b.add_tool_result(None, tool_ok, tool_name)
                text, full, cut = payload(text, opts.tool_payload_chars)
            elif role == "assistant" and msg.get("recipient") not in (None, "all"):
                tool_name = str(msg.get("recipient"))
                text, full, cut = payload(text, opts.tool_payload_chars)
                text = f"[tool_use {tool_name}] {text}"
            b.add_turn(
                key=str(node.get("id") or msg.get("id")),
                role=role,  # type: ignore[arg-type]
                speaker=str(author.get("name") or model or role),
                text=text,
                timestamp=ts,
                line=pos,
                tool_name=tool_name,
                tool_ok=tool_ok,
                parent_key=node.get("parent") if isinstance(node.get("parent"), str) else None,
                model=model if isinstance(model, str) else None,
                full_size=full,
                truncated=cut,
            )
        return skipped
