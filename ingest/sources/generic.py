"""Generic transcripts: one message object per JSONL line, or a JSON array / `{"messages": [...]}`.

Each message: `session_id` (or `session`/`conversation_id`), `role` (`user`, `assistant`, `system`,
`tool`; `human`/`ai`/`bot`/`model`/`function` are mapped), `content` (string or a list of text
blocks; `text` also works), `timestamp` (ISO 8601 or epoch). Optional: `id`, `speaker`/`name`,
`project`, `tool_name`, `tool_ok`/`is_error`, `model`, `input_tokens`, `output_tokens`,
`parent_id`, `title`. A file without session ids is one session named after the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ingest.models import ParseIssue, Role
from ingest.normalize import slugify
from ingest.sources.base import (
    Builders,
    ParseCursor,
    ParseOptions,
    ParseResult,
    SessionBuilder,
    as_text,
    iter_jsonl,
    payload,
)

__all__ = ["GenericParser"]

_ROLE_MAP: dict[str, Role] = {
    "user": "user",
    "human": "user",
    "customer": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "agent": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
    "tool_result": "tool",
}


class GenericParser:
    """Parser for generic JSONL/JSON message lists."""

    name = "generic"
    incremental = True  # for JSONL; JSON documents are re-read whole (see `parse`)

    def sniff(self, path: Path, head: str) -> int:
        score = 0
        if '"role"' in head and ('"content"' in head or '"text"' in head):
            score += 40
        if '"session_id"' in head:
            score += 20
        return min(score, 100)

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
        stripped = data.removeprefix(b"\xef\xbb\xbf").lstrip()  # a UTF-8 BOM may open it
        if (
            (cursor is None or cursor.offset == 0)
            and stripped[:1] in (b"[", b"{")
            and (not opts.file.endswith(".jsonl"))
        ):
            whole = self._try_document(data, opts)
            if whole is not None:
                return whole
        cur = cursor or ParseCursor()
        issues: list[ParseIssue] = []
        counters: dict[str, int] = {}
        builders = Builders(cursor, self.name, opts.file, opts.tool_payload_chars)
        skipped = 0
        for rec in iter_jsonl(
            data,
            start_offset=cur.offset,
            start_line=cur.line,
            file=opts.file,
            issues=issues,
            counters=counters,
        ):
            ok = self._message(rec.obj, rec.line, builders, opts, issues)
            if ok is None:
                counters["failed"] = counters.get("failed", 0) + 1
            elif not ok:
                skipped += 1
        return builders.jsonl_result(issues, counters, cur, skipped=skipped)

    def _try_document(self, data: bytes, opts: ParseOptions) -> ParseResult | None:
        try:
            doc = json.loads(data.decode("utf-8-sig", errors="replace"))
        except (json.JSONDecodeError, RecursionError):
            return None  # maybe JSONL after all
        if isinstance(doc, dict):
            items = doc.get("messages") or doc.get("turns")
            defaults = {k: v for k, v in doc.items() if k not in ("messages", "turns")}
        else:
            items, defaults = doc, {}
        if not isinstance(items, list):
            return None
        issues: list[ParseIssue] = []
        builders = Builders(None, self.name, opts.file, opts.tool_payload_chars)
        skipped = failed = 0
        for pos, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                failed += 1
                issues.append(
                    ParseIssue(file=opts.file, line=pos, reason=f"message #{pos} is not an object")
                )
                continue
            ok = self._message({**defaults, **item}, pos, builders, opts, issues)
            if ok is None:
                failed += 1
            elif not ok:
                skipped += 1
        res = builders.result(issues, offset=len(data), line=0, skipped=skipped, failed=failed)
        res.resumable = False  # a JSON document is re-read whole when it changes
        return res

    def _message(
        self,
        obj: dict[str, Any],
        line: int,
        builders: Builders,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> bool | None:
        """Add one message; False when skipped on purpose, None when it failed."""
        try:
            return self._add(obj, line, builders, opts, issues)
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
            issues.append(ParseIssue(file=opts.file, line=line, reason=f"bad message: {e}"))
            return None

    def _add(
        self,
        obj: dict[str, Any],
        line: int,
        builders: Builders,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> bool | None:
        """Add one message; False when skipped on purpose, None when it failed."""
        raw_role = str(obj.get("role") or obj.get("type") or "").lower()
        role = _ROLE_MAP.get(raw_role)
        if role is None:
            issues.append(
                ParseIssue(
                    file=opts.file, line=line, reason=f"unknown or missing role {raw_role!r}"
                )
            )
            return None
        text = as_text(_present(obj, "content", "text", "message"))
        if not text.strip():
            return False
        b = _session_builder(obj, builders, opts)
        if isinstance(obj.get("title"), str) and obj["title"]:
            b.cursor.title = obj["title"]
        ts = b.timestamp(_present(obj, "timestamp", "created_at", "time"))
        tool_name, tool_ok = _tool(obj, role)
        full, cut = None, False
        if role == "tool" or tool_name:
            text, full, cut = payload(text, opts.tool_payload_chars)
        _count(b, obj, role, tool_name, tool_ok)
        key = _either(obj, "id", "turn_id", "uuid")
        b.add_turn(
            key=str(key) if key is not None else f"ordinal-{b.cursor.next_ordinal}",
            role=role,
            speaker=str(_either(obj, "speaker", "name") or role),
            text=text,
            timestamp=ts,
            line=line,
            tool_name=tool_name,
            tool_ok=bool(tool_ok) if tool_ok is not None else None,
            parent_key=str(obj["parent_id"]) if obj.get("parent_id") else None,
            model=obj.get("model") if isinstance(obj.get("model"), str) else None,
            full_size=full,
            truncated=cut,
        )
        return True


def _present(obj: dict[str, Any], *keys: str) -> Any:
    """The value of the first of `keys` the object has (even if empty), else None."""
    return next((obj[k] for k in keys if k in obj), None)


def _either(obj: dict[str, Any], *keys: str) -> Any:
    """`obj.get(a) or obj.get(b) or ...`: the first non-empty value, else the last key's."""
    values = [obj.get(k) for k in keys]
    return next((v for v in values if v), values[-1])


def _session_builder(obj: dict[str, Any], builders: Builders, opts: ParseOptions) -> SessionBuilder:
    """The builder of the message's session, in its project.

    Session: the message's id, else the previous message's, else the file name. Project:
    `--project`, else the message's, else the file's folder.
    """
    session = str(
        _either(obj, "session_id", "session", "conversation_id")
        or builders.cursor.current_session
        or Path(opts.file).stem
    )
    project = opts.project or (slugify(str(obj["project"])) if obj.get("project") else None)
    if project is None:
        project = builders.cursor.extra.setdefault(
            "project", slugify(Path(opts.file).parent.name or "generic")
        )
    b = builders.get(session, project)
    builders.cursor.current_session = session
    return b


def _tool(obj: dict[str, Any], role: Role) -> tuple[str | None, Any]:
    """(tool name, success flag as given) of a message; a tool message may name it `name`."""
    tool_name = obj.get("tool_name") or obj.get("name") if role == "tool" else obj.get("tool_name")
    tool_ok = obj.get("tool_ok")
    if tool_ok is None and "is_error" in obj:
        tool_ok = not bool(obj["is_error"])
    return (str(tool_name) if tool_name else None), tool_ok


def _count(
    b: SessionBuilder, obj: dict[str, Any], role: Role, tool_name: str | None, tool_ok: Any
) -> None:
    """Session statistics: tool calls, tool results and token usage."""
    if role == "assistant" and tool_name:
        b.add_tool_call(tool_name)
    if role == "tool":
        b.add_tool_result(None, tool_ok is not False, tool_name)
    if obj.get("input_tokens") or obj.get("output_tokens"):
        b.add_tokens(int(obj.get("input_tokens") or 0), int(obj.get("output_tokens") or 0))
