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
from pathlib import Path, PurePosixPath
from typing import Any

from core.timeutil import parse_time
from ingest.models import ParseIssue
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
            obj = rec.obj
            kind = obj.get("type") if isinstance(obj.get("type"), str) else None
            pl = obj.get("payload")
            ts_raw = obj.get("timestamp")
            if "payload" not in obj:  # legacy rollout: bare items, meta on the first line
                if kind is None and "id" in obj and rec.line == 1:
                    kind, pl = "session_meta", obj
                elif kind in _ITEM_TYPES:
                    kind, pl = "response_item", obj
                elif obj.get("record_type") == "state":
                    skipped += 1
                    continue
            try:
                if not isinstance(pl, dict):
                    raise ValueError("record has no `payload` object")
                if kind == "session_meta":
                    self._meta(pl, builders, opts)
                elif kind == "turn_context":
                    b = self._session(builders, opts)
                    model = pl.get("model")
                    if isinstance(model, str):
                        b.add_model(model)
                        builders.cursor.extra["model"] = model
                    skipped += 1
                elif kind == "response_item":
                    if not self._item(pl, rec.line, ts_raw, builders, opts):
                        skipped += 1
                elif kind == "event_msg":
                    et = pl.get("type")
                    if et == "token_count":
                        self._tokens(pl, builders, opts)
                    elif et not in _QUIET_EVENTS:
                        issues.append(
                            ParseIssue(
                                file=opts.file,
                                line=rec.line,
                                severity="info",
                                reason=f"unknown event_msg type {et!r}; skipped",
                            )
                        )
                    skipped += 1
                elif kind == "compacted":
                    b = self._session(builders, opts)
                    b.add_compaction()
                    b.add_turn(
                        key=f"line-{rec.line}",
                        role="system",
                        speaker="compaction",
                        text=as_text(pl.get("message")),
                        timestamp=b.timestamp(ts_raw),
                        line=rec.line,
                    )
                else:
                    skipped += 1
                    issues.append(unknown_record(opts.file, rec.line, kind))
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                record_failed(issues, counters, opts.file, rec.line, kind, e)
        return builders.jsonl_result(issues, counters, cur, skipped=skipped)

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
        ts = b.timestamp(ts_raw)
        limit = opts.tool_payload_chars
        key = f"line-{line}"
        t = pl.get("type")
        model = builders.cursor.extra.get("model")
        if t == "message":
            role = pl.get("role")
            text = as_text(pl.get("content"))
            if not text.strip():
                return False
            if role == "user":
                is_ctx = text.lstrip().startswith(_CONTEXT_TAGS)
                b.add_turn(
                    key=key,
                    role="system" if is_ctx else "user",
                    speaker="context" if is_ctx else "user",
                    text=text,
                    timestamp=ts,
                    line=line,
                )
            elif role == "assistant":
                b.add_turn(
                    key=key,
                    role="assistant",
                    speaker=model or "assistant",
                    text=text,
                    timestamp=ts,
                    line=line,
                    model=model,
                )
            else:  # developer / system instructions
                b.add_turn(
                    key=key,
                    role="system",
                    speaker=str(role or "system"),
                    text=text,
                    timestamp=ts,
                    line=line,
                )
            return True
        if t in ("function_call", "custom_tool_call", "local_shell_call"):
            name = str(pl.get("name") or ("shell" if t == "local_shell_call" else "?"))
            args = pl.get("arguments", pl.get("input", pl.get("action")))
            raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            short, size, cut = payload(raw, limit)
            b.add_tool_call(name, pl.get("call_id") or pl.get("id"))
            b.add_turn(
                key=key,
                role="assistant",
                speaker=model or "assistant",
                text=f"[tool_use {name}] {short}",
                timestamp=ts,
                line=line,
                tool_name=name,
                model=model,
                full_size=size,
                truncated=cut,
            )
            return True
        if t in ("function_call_output", "custom_tool_call_output"):
            text, ok = _output_ok(pl.get("output"))
            result_name = b.add_tool_result(pl.get("call_id"), ok)
            short, size, cut = payload(text, limit)
            label = f"[tool_result {result_name or '?'}{'' if ok else ' ERROR'}]"
            b.add_turn(
                key=key,
                role="tool",
                speaker=result_name or "tool",
                text=f"{label} {short}",
                timestamp=ts,
                line=line,
                tool_name=result_name,
                tool_ok=ok,
                full_size=size,
                truncated=cut,
            )
            return True
        if t == "reasoning":
            summary = pl.get("summary")
            text = as_text(summary) if summary else as_text(pl.get("content"))
            if not text.strip():
                return False
            b.add_turn(
                key=key,
                role="assistant",
                speaker=model or "assistant",
                text=f"[thinking] {text}",
                timestamp=ts,
                line=line,
                model=model,
            )
            return True
        if t == "web_search_call":
            action = pl.get("action")
            query = action.get("query") if isinstance(action, dict) else None
            b.add_tool_call("web_search")
            b.add_turn(
                key=key,
                role="assistant",
                speaker=model or "assistant",
                text=f"[tool_use web_search] {query or ''}",
                timestamp=ts,
                line=line,
                tool_name="web_search",
                model=model,
            )
            return True
        raise ValueError(f"unknown response_item type {t!r}")
