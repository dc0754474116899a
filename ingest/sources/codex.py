"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.

Each line is `{"timestamp", "type", "payload"}` with `type` one of `session_meta` (id, cwd, git,
CLI version), `response_item` (payload `type` `message`, `function_call`, `function_call_output`,
`custom_tool_call(_output)`, `local_shell_call`, `reasoning`, `web_search_call`), `event_msg`
(`token_count` carries cumulative usage; `user_message`/`agent_message`/... repeat response items
and are skipped), `turn_context` (model, cwd) and `compacted` (a compaction summary). Older
rollouts have no wrapper: the first line is the session meta and items follow bare; both work.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from core.timeutil import parse_time
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
    record_failed,
    unknown_record,
)

__all__ = ["CodexParser"]

_ITEM_TYPES = {
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
    "web_search_call",
}
_QUIET_EVENTS = {
    "user_message",
    "agent_message",
    "agent_reasoning",
    "agent_reasoning_section_break",
    "task_started",
    "task_complete",
    "turn_aborted",
    "exec_command_begin",
    "exec_command_end",
    "patch_apply_begin",
    "patch_apply_end",
    "turn_diff",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "entered_review_mode",
    "exited_review_mode",
    "plan_update",
    "web_search_begin",
    "web_search_end",
    "stream_error",
    "error",
    "background_event",
}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_EXIT = re.compile(r"(?:Exit code|exit_code)\W+(-?\d+)", re.IGNORECASE)
_CONTEXT_TAGS = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions",
    "# AGENTS.md instructions",
)


def _output_ok(output: Any) -> tuple[str, bool]:
    """Text of a function output and whether the call succeeded (exit code 0, no error flag)."""
    if isinstance(output, dict):
        text = as_text(output.get("content") if "content" in output else output)
        ok = output.get("success") is not False
        return text, ok
    text = as_text(output)
    try:
        parsed = json.loads(text) if text.startswith("{") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        meta: dict[str, Any] = m if isinstance(m := parsed.get("metadata"), dict) else {}
        code = meta.get("exit_code", parsed.get("exit_code"))
        body = parsed.get("output", text)
        return as_text(body), code in (None, 0)
    m = _EXIT.search(text[:200])
    if m:
        return text, int(m.group(1)) == 0
    low = text[:80].lower()
    return text, not (low.startswith(("error", "failed", "aborted")) or "execution error" in low)


class CodexParser:
    """Parser for Codex CLI rollout JSONL."""

    name = "codex"
    incremental = True

    def sniff(self, path: Path, head: str) -> int:
        score = 0
        if '"session_meta"' in head or '"response_item"' in head or '"turn_context"' in head:
            score += 70
        if path.name.startswith("rollout-"):
            score += 25
        if '"input_text"' in head or '"output_text"' in head or '"function_call"' in head:
            score += 15
        return min(score, 100)

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
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
            kind, pl = _kind_and_payload(rec.obj, rec.line)
            if kind == _STATE:
                skipped += 1
                continue
            try:
                if not isinstance(pl, dict):
                    raise ValueError("record has no `payload` object")
                if not self._record(
                    kind, pl, rec.line, rec.obj.get("timestamp"), builders, opts, issues
                ):
                    skipped += 1
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                record_failed(issues, counters, opts.file, rec.line, kind, e)
        return builders.jsonl_result(issues, counters, cur, skipped=skipped)

    def _record(
        self,
        kind: str | None,
        pl: dict[str, Any],
        line: int,
        ts_raw: Any,
        builders: Builders,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> bool:
        """Handle one record; False when it added no turn (counted as skipped)."""
        if kind == "session_meta":
            self._meta(pl, builders, opts)
            return True
        if kind == "turn_context":
            b = self._session(builders, opts)
            model = pl.get("model")
            if isinstance(model, str):
                b.add_model(model)
                builders.cursor.extra["model"] = model
            return False
        if kind == "response_item":
            return self._item(pl, line, ts_raw, builders, opts)
        if kind == "event_msg":
            self._event(pl, line, builders, opts, issues)
            return False
        if kind == "compacted":
            b = self._session(builders, opts)
            b.add_compaction()
            b.add_turn(
                key=f"line-{line}",
                role="system",
                speaker="compaction",
                text=as_text(pl.get("message")),
                timestamp=b.timestamp(ts_raw),
                line=line,
            )
            return True
        issues.append(unknown_record(opts.file, line, kind))
        return False

    def _event(
        self,
        pl: dict[str, Any],
        line: int,
        builders: Builders,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> None:
        et = pl.get("type")
        if et == "token_count":
            self._tokens(pl, builders, opts)
        elif et not in _QUIET_EVENTS:
            issues.append(
                ParseIssue(
                    file=opts.file,
                    line=line,
                    severity="info",
                    reason=f"unknown event_msg type {et!r}; skipped",
                )
            )

    @staticmethod
    def _default_key(opts: ParseOptions) -> str:
        m = _UUID.search(Path(opts.file).name)
        return m.group(0) if m else Path(opts.file).stem

    def _session(self, builders: Builders, opts: ParseOptions) -> SessionBuilder:
        key = builders.cursor.current_session or self._default_key(opts)
        builders.cursor.current_session = key
        project = opts.project or builders.cursor.extra.get("project") or "codex"
        return builders.get(key, project)

    def _meta(self, pl: dict[str, Any], builders: Builders, opts: ParseOptions) -> None:
        key = pl.get("id")
        if isinstance(key, str) and key:
            builders.cursor.current_session = key
        cwd = pl.get("cwd")
        if not opts.project and isinstance(cwd, str) and cwd.strip("/"):
            builders.cursor.extra["project"] = slugify(PurePosixPath(cwd).name)
        b = self._session(builders, opts)
        for k in ("cwd", "cli_version", "originator", "model_provider"):
            v = pl.get(k)
            if isinstance(v, str) and v:
                b.cursor.meta[k] = v
        git = pl.get("git")
        if isinstance(git, dict):
            for k in ("branch", "commit_hash", "repository_url"):
                v = git.get(k)
                if isinstance(v, str) and v:
                    b.cursor.meta[f"git_{k}"] = v
        if b.cursor.date is None:
            b.cursor.date = parse_time(pl.get("timestamp"))

    def _tokens(self, pl: dict[str, Any], builders: Builders, opts: ParseOptions) -> None:
        info = pl.get("info")
        if not isinstance(info, dict):
            return
        total = info.get("total_token_usage")
        if isinstance(total, dict):
            b = self._session(builders, opts)
            b.set_tokens(int(total.get("input_tokens") or 0), int(total.get("output_tokens") or 0))

    def _item(
        self, pl: dict[str, Any], line: int, ts_raw: Any, builders: Builders, opts: ParseOptions
    ) -> bool:
        b = self._session(builders, opts)
        at = _At(b, f"line-{line}", b.timestamp(ts_raw), line, builders.cursor.extra.get("model"))
        t = pl.get("type")
        if not isinstance(t, str) or t not in _ITEMS:
            raise ValueError(f"unknown response_item type {t!r}")
        return _ITEMS[t](pl, at, opts.tool_payload_chars, t)


_STATE = "<state>"
"""Kind of a legacy `record_type: state` line (skipped)."""


def _kind_and_payload(obj: dict[str, Any], line: int) -> tuple[str | None, Any]:
    """A record's kind and payload; legacy rollouts hold bare items, meta on the first line."""
    kind = obj.get("type") if isinstance(obj.get("type"), str) else None
    if "payload" in obj:
        return kind, obj.get("payload")
    if kind is None and "id" in obj and line == 1:
        return "session_meta", obj
    if kind in _ITEM_TYPES:
        return "response_item", obj
    if obj.get("record_type") == "state":
        return _STATE, None
    return kind, None


@dataclass(frozen=True)
class _At:
    """Where a response item lands: its session, turn key, time, line and the current model."""

    b: SessionBuilder
    key: str
    ts: datetime
    line: int
    model: str | None

    def turn(self, role: Role, speaker: str, text: str, **kw: Any) -> None:
        self.b.add_turn(
            key=self.key,
            role=role,
            speaker=speaker,
            text=text,
            timestamp=self.ts,
            line=self.line,
            **kw,
        )


def _message_item(pl: dict[str, Any], at: _At, limit: int, t: str) -> bool:
    role = pl.get("role")
    text = as_text(pl.get("content"))
    if not text.strip():
        return False
    if role == "user":
        is_ctx = text.lstrip().startswith(_CONTEXT_TAGS)
        at.turn("system" if is_ctx else "user", "context" if is_ctx else "user", text)
    elif role == "assistant":
        at.turn("assistant", at.model or "assistant", text, model=at.model)
    else:  # developer / system instructions
        at.turn("system", str(role or "system"), text)
    return True


def _tool_call_item(pl: dict[str, Any], at: _At, limit: int, t: str) -> bool:
    name = str(pl.get("name") or ("shell" if t == "local_shell_call" else "?"))
    args = pl.get("arguments", pl.get("input", pl.get("action")))
    raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    short, size, cut = payload(raw, limit)
    at.b.add_tool_call(name, pl.get("call_id") or pl.get("id"))
    at.turn(
        "assistant",
        at.model or "assistant",
        f"[tool_use {name}] {short}",
        tool_name=name,
        model=at.model,
        full_size=size,
        truncated=cut,
    )
    return True


def _tool_output_item(pl: dict[str, Any], at: _At, limit: int, t: str) -> bool:
    text, ok = _output_ok(pl.get("output"))
    result_name = at.b.add_tool_result(pl.get("call_id"), ok)
    short, size, cut = payload(text, limit)
    label = f"[tool_result {result_name or '?'}{'' if ok else ' ERROR'}]"
    at.turn(
        "tool",
        result_name or "tool",
        f"{label} {short}",
        tool_name=result_name,
        tool_ok=ok,
        full_size=size,
        truncated=cut,
    )
    return True


def _reasoning_item(pl: dict[str, Any], at: _At, limit: int, t: str) -> bool:
    summary = pl.get("summary")
    text = as_text(summary) if summary else as_text(pl.get("content"))
    if not text.strip():
        return False
    at.turn("assistant", at.model or "assistant", f"[thinking] {text}", model=at.model)
    return True


def _web_search_item(pl: dict[str, Any], at: _At, limit: int, t: str) -> bool:
    action = pl.get("action")
    query = action.get("query") if isinstance(action, dict) else None
    at.b.add_tool_call("web_search")
    at.turn(
        "assistant",
        at.model or "assistant",
        f"[tool_use web_search] {query or ''}",
        tool_name="web_search",
        model=at.model,
    )
    return True


_ITEMS: dict[str, Callable[[dict[str, Any], _At, int, str], bool]] = {
    "message": _message_item,
    "function_call": _tool_call_item,
    "custom_tool_call": _tool_call_item,
    "local_shell_call": _tool_call_item,
    "function_call_output": _tool_output_item,
    "custom_tool_call_output": _tool_output_item,
    "reasoning": _reasoning_item,
    "web_search_call": _web_search_item,
}
"""Turns of each response item type: `(payload, where, payload limit, type) -> added`."""
