"""Claude Code project transcripts: `~/.claude/projects/<project>/<session>.jsonl`.

One JSON object per line. `user` and `assistant` records carry `uuid`/`parentUuid` threading,
`sessionId`, `timestamp`, `isSidechain` and a `message` whose `content` is a string or a list of
blocks (`text`, `thinking`, `tool_use`, `tool_result`, `image`). Assistant messages are often split
across several records that share `message.id` and repeat its `usage`, so usage is counted once per
message id. `summary` records (`{summary, leafUuid}`) and user records flagged `isCompactSummary`
are compaction summaries. Other bookkeeping records are skipped; unknown types are reported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any

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

__all__ = ["ClaudeCodeParser"]

_MESSAGE_TYPES = {"user", "assistant"}
_BOOKKEEPING = {"file-history-snapshot", "queue-operation", "progress", "system"}


_CWD = re.compile(rb'"cwd"\s*:\s*("(?:[^"\\]|\\.)*")')


def _file_project(data: bytes, cursor: ParseCursor, opts: ParseOptions) -> str:
    """One project per file: `--project`, else the first record's `cwd` name, else the folder."""
    if opts.project:
        return opts.project
    if "project" in cursor.extra:
        return cursor.extra["project"]
    m = _CWD.search(data[: 1 << 20])
    if m:
        try:
            cwd = json.loads(m.group(1))
        except ValueError:
            cwd = ""
        if isinstance(cwd, str) and cwd.strip("/"):
            return slugify(PurePosixPath(cwd).name)
    parent = Path(opts.file).parent.name
    return slugify(parent) if parent else "claude-code"


class ClaudeCodeParser:
    """Parser for Claude Code JSONL transcripts."""

    name = "claude-code"
    incremental = True

    def sniff(self, path: Path, head: str) -> int:
        first = head.lstrip().split("\n", 1)[0]
        score = 0
        if '"sessionId"' in head and '"parentUuid"' in head:
            score += 60
        if '"type":' in first and ('"uuid"' in head or '"leafUuid"' in head):
            score += 20
        if "/.claude/" in str(path):
            score += 20
        return min(score, 100)

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
        cur = cursor or ParseCursor()
        issues: list[ParseIssue] = []
        counters: dict[str, int] = {}
        builders = Builders(cursor, self.name, opts.file, opts.tool_payload_chars)
        project = _file_project(data, builders.cursor, opts)
        builders.cursor.extra["project"] = project
        uuid_session: dict[str, str] = {}
        self._pending: list[tuple[dict[str, Any], int]] = []
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
            try:
                if kind in _MESSAGE_TYPES:
                    if not self._message(obj, rec.line, builders, uuid_session, project):
                        skipped += 1
                elif kind == "summary":
                    self._summary(obj, rec.line, builders, uuid_session, project)
                elif kind in _BOOKKEEPING:
                    skipped += 1
                else:
                    skipped += 1
                    issues.append(unknown_record(opts.file, rec.line, kind))
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                record_failed(issues, counters, opts.file, rec.line, kind, e)
        for obj, line in self._pending:  # summaries in a file without messages
            b = builders.get(Path(opts.file).stem, project)
            self._add_summary(b, obj, line, b.timestamp(None))
        return builders.jsonl_result(issues, counters, cur, skipped=skipped)

    def _session(self, obj: dict[str, Any], builders: Builders, project: str) -> SessionBuilder:
        key = obj.get("sessionId")
        if not isinstance(key, str) or not key:
            key = builders.cursor.current_session or Path(builders.file).stem
        agent = obj.get("agentId")
        parent = None
        if isinstance(agent, str) and agent and obj.get("isSidechain"):
            # a sub-agent transcript (`agent-<id>.jsonl`) shares its parent's sessionId: keep it
            # a session of its own so ordinals, the NEXT chain and statistics never mix
            parent, key = key, f"{key}/agent-{agent}"
        b = builders.get(key, project)
        builders.cursor.current_session = key
        meta = b.cursor.meta
        if parent is not None:
            meta.setdefault("parent_session", parent)
            meta.setdefault("agent_id", str(agent))
        for src, dst in (("cwd", "cwd"), ("gitBranch", "git_branch"), ("version", "version")):
            v = obj.get(src)
            if isinstance(v, str) and v and dst not in meta:
                meta[dst] = v
        return b

    def _message(
        self,
        obj: dict[str, Any],
        line: int,
        builders: Builders,
        uuid_session: dict[str, str],
        project: str,
    ) -> bool:
        msg = obj.get("message")
        if not isinstance(msg, dict):
            raise ValueError("record has no `message` object")
        b = self._session(obj, builders, project)
        key = obj.get("uuid") or msg.get("id") or f"line-{line}"
        uuid_session[str(key)] = b.cursor.key
        ts = b.timestamp(obj.get("timestamp"))
        if self._pending:  # summaries that preceded the first message belong to its session
            for sobj, sline in self._pending:
                self._add_summary(b, sobj, sline, ts)
            self._pending = []
        common: dict[str, Any] = {
            "key": str(key),
            "timestamp": ts,
            "line": line,
            "parent_key": obj.get("parentUuid") if isinstance(obj.get("parentUuid"), str) else None,
            "is_sidechain": bool(obj.get("isSidechain", False)),
        }
        content = msg.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        if obj["type"] == "assistant":
            return self._assistant(obj, msg, blocks, b, common, builders.limit)
        return _user(obj, content, blocks, b, common, builders.limit)

    def _assistant(
        self,
        obj: dict[str, Any],
        msg: dict[str, Any],
        blocks: list[Any],
        b: SessionBuilder,
        common: dict[str, Any],
        limit: int,
    ) -> bool:
        model = msg.get("model") if isinstance(msg.get("model"), str) else None
        if model == "<synthetic>":
            model = None
        _count_usage(obj, msg, b)
        acc = _AssistantText(b, limit)
        for blk in blocks:
            acc.add(blk)
        text = "\n".join(p for p in acc.parts if p)
        if not text.strip():
            return False
        b.add_turn(
            role="assistant",
            speaker=model or "assistant",
            text=text,
            tool_name=",".join(dict.fromkeys(acc.tools)) or None,
            model=model,
            full_size=len(text) + acc.cut_chars,
            truncated=acc.cut,
            **common,
        )
        return True

    def _summary(
        self,
        obj: dict[str, Any],
        line: int,
        builders: Builders,
        uuid_session: dict[str, str],
        project: str,
    ) -> None:
        leaf = obj.get("leafUuid")
        key = uuid_session.get(str(leaf)) or builders.cursor.current_session
        if key is None:
            self._pending.append((obj, line))
            return
        b = builders.get(key, project)
        self._add_summary(b, obj, line, b.timestamp(None))

    @staticmethod
    def _add_summary(b: SessionBuilder, obj: dict[str, Any], line: int, ts: Any) -> None:
        text = str(obj.get("summary") or "")
        leaf = obj.get("leafUuid")
        b.add_compaction()
        if text:
            b.cursor.meta["summary"] = text[:500]
        b.add_turn(
            key=f"summary:{leaf or line}",
            role="system",
            speaker="summary",
            text=text,
            timestamp=ts,
            line=line,
            parent_key=str(leaf) if leaf else None,
        )


def _user(
    obj: dict[str, Any],
    content: Any,
    blocks: list[Any],
    b: SessionBuilder,
    common: dict[str, Any],
    limit: int,
) -> bool:
    """A user record: a compaction summary, tool results, a meta message or what the user said."""
    if obj.get("isCompactSummary"):
        b.add_compaction()
        b.add_turn(role="system", speaker="compaction", text=as_text(content), **common)
        return True
    results = [x for x in blocks if isinstance(x, dict) and x.get("type") == "tool_result"]
    if results:
        _tool_results(b, blocks, results, limit, common)
        return True
    text = as_text(blocks)
    if not text.strip():
        return False
    if obj.get("isMeta"):
        b.add_turn(role="system", speaker="meta", text=text, **common)
    else:
        b.add_turn(role="user", speaker="user", text=text, **common)
    return True


def _tool_results(
    b: SessionBuilder,
    blocks: list[Any],
    results: list[dict[str, Any]],
    limit: int,
    common: dict[str, Any],
) -> None:
    """A user record carrying tool results: one `tool` turn, each result labelled and cut."""
    texts, names, ok_all, full = [], [], True, 0
    for r in results:
        ok = not bool(r.get("is_error", False))
        name = b.add_tool_result(r.get("tool_use_id"), ok)
        if name:
            names.append(name)
        ok_all = ok_all and ok
        short, size, _ = payload(as_text(r.get("content")), limit)
        full += size
        texts.append(f"[tool_result {name or '?'}{'' if ok else ' ERROR'}] {short}")
    other = as_text([x for x in blocks if x not in results])
    text = "\n".join(([other] if other else []) + texts)
    b.add_turn(
        role="tool",
        speaker=names[0] if names else "tool",
        text=text,
        tool_name=",".join(dict.fromkeys(names)) or None,
        tool_ok=ok_all,
        full_size=full + len(other),
        truncated=full > len(text),
        **common,
    )


_INPUT_TOKENS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _count_usage(obj: dict[str, Any], msg: dict[str, Any], b: SessionBuilder) -> None:
    """Token usage, once per message: a message split over records repeats its usage."""
    usage = msg.get("usage")
    mid = msg.get("id") or obj.get("requestId")
    if isinstance(usage, dict) and (mid is None or mid != b.cursor.last_usage_id):
        inp = sum(int(usage.get(k) or 0) for k in _INPUT_TOKENS)
        b.add_tokens(inp, int(usage.get("output_tokens") or 0))
        b.cursor.last_usage_id = mid


class _AssistantText:
    """The text of an assistant record, block by block: text, thinking, tool calls."""

    def __init__(self, b: SessionBuilder, limit: int) -> None:
        self.b = b
        self.limit = limit
        self.parts: list[str] = []
        self.tools: list[str] = []
        self.cut_chars = 0
        """Characters cut from tool inputs."""
        self.cut = False

    def add(self, blk: Any) -> None:
        if not isinstance(blk, dict):
            self.parts.append(str(blk))
            return
        t = blk.get("type")
        if t == "text":
            self.parts.append(str(blk.get("text") or ""))
        elif t == "thinking":
            th = str(blk.get("thinking") or "")
            if th:
                self.parts.append(f"[thinking] {th}")
        elif t == "redacted_thinking":
            self.parts.append("[thinking redacted]")
        elif t == "tool_use":
            self._tool_use(blk)
        else:
            self.parts.append(as_text([blk]))

    def _tool_use(self, blk: dict[str, Any]) -> None:
        name = str(blk.get("name") or "?")
        self.tools.append(name)
        self.b.add_tool_call(name, blk.get("id"))
        raw = json.dumps(blk.get("input"), ensure_ascii=False, sort_keys=True)
        short, size, was_cut = payload(raw, self.limit)
        self.cut_chars += size - len(short)
        self.cut = self.cut or was_cut
        self.parts.append(f"[tool_use {name}] {short}")
