"""LoCoMo benchmark conversations (`locomo10.json` layout).

A list of samples; each sample becomes project `locomo-<sample_id>`; each `session_<n>` in its
`conversation` becomes a session whose event time is `session_<n>_date_time` (e.g. `1:56 pm on 8
May, 2023`). Turns keep their `dia_id` as source key and their speaker name; `speaker_a` maps to
role `user`, `speaker_b` to `assistant`; turn timestamps are the session time plus the turn's
ordinal in seconds. Shared images are kept as `[shares image: <caption>]`.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.text import shared_image
from core.timeutil import MONTHS
from ingest.models import ParseIssue
from ingest.sources.base import (
    EPOCH,
    Builders,
    ParseCursor,
    ParseOptions,
    ParseResult,
    SessionBuilder,
)

__all__ = ["LocomoParser", "parse_locomo_time"]

_SESSION = re.compile(r"^session_(\d+)$")
_TIME = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$",
    re.IGNORECASE,
)


def parse_locomo_time(text: str) -> datetime | None:
    """`1:56 pm on 8 May, 2023` → aware UTC datetime (None when it does not match)."""
    m = _TIME.match(text or "")
    if not m:
        return None
    hour, minute, ampm, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    mon = MONTHS.get(month[:3].lower())
    if mon is None:
        return None
    try:
        return datetime(int(year), mon, int(day), h, int(minute), tzinfo=UTC)
    except ValueError:
        return None


class LocomoParser:
    """Parser for LoCoMo JSON."""

    name = "locomo"
    incremental = False

    def sniff(self, path: Path, head: str) -> int:
        score = 0
        if '"conversation"' in head and ('"speaker_a"' in head or '"qa"' in head):
            score += 80
        elif '"qa"' in head and '"evidence"' in head:
            score += 70  # samples open with their question list
        if "locomo" in path.name.lower():
            score += 20
        return min(score, 100)

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
        issues: list[ParseIssue] = []
        builders = Builders(None, self.name, opts.file, opts.tool_payload_chars)
        try:
            doc = json.loads(data.decode("utf-8-sig", errors="replace"))
        except (json.JSONDecodeError, RecursionError) as e:
            issues.append(
                ParseIssue(
                    file=opts.file,
                    line=getattr(e, "lineno", None),
                    reason=f"not valid JSON (truncated?): {e}",
                )
            )
            return builders.result(issues, offset=0, line=0, skipped=0, failed=1)
        samples = doc if isinstance(doc, list) else [doc]
        failed = skipped = 0
        for pos, sample in enumerate(samples, start=1):
            try:
                f, s = self._sample(sample, pos, builders, opts, issues)
                failed += f
                skipped += s
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                failed += 1
                issues.append(
                    ParseIssue(file=opts.file, line=pos, reason=f"sample #{pos} unreadable: {e}")
                )
        return builders.result(issues, offset=len(data), line=0, skipped=skipped, failed=failed)

    def _sample(
        self,
        sample: Any,
        pos: int,
        builders: Builders,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> tuple[int, int]:
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise ValueError("no `conversation` object")
        sid = str(sample.get("sample_id") or f"sample-{pos}")
        project = opts.project or f"locomo-{sid}"
        conv = sample["conversation"]
        numbered = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION.match(k)))
        failed = skipped = 0
        for n, k in numbered:
            turns = conv[k]
            if isinstance(turns, list):
                b = self._session(conv, k, n, sid, project, pos, builders, opts, issues)
                failed += self._turns(turns, b, k, sid, conv.get("speaker_a"), pos, opts, issues)
        return failed, skipped

    @staticmethod
    def _session(
        conv: dict[str, Any],
        k: str,
        n: int,
        sid: str,
        project: str,
        pos: int,
        builders: Builders,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> SessionBuilder:
        """The builder of `session_<n>`, dated by its `session_<n>_date_time`."""
        when_raw = conv.get(f"{k}_date_time")
        when = parse_locomo_time(str(when_raw or ""))
        if when is None:
            issues.append(
                ParseIssue(
                    file=opts.file,
                    line=pos,
                    severity="warning",
                    reason=f"{sid} {k}: unreadable date {when_raw!r}",
                )
            )
        b = builders.get(k, project)
        b.cursor.date = when
        b.cursor.title = f"{sid} session {n}"
        if when_raw:
            b.cursor.meta["date_time"] = str(when_raw)
        b.cursor.meta["sample_id"] = sid
        return b

    @staticmethod
    def _turns(
        turns: list[Any],
        b: SessionBuilder,
        k: str,
        sid: str,
        speaker_a: Any,
        pos: int,
        opts: ParseOptions,
        issues: list[ParseIssue],
    ) -> int:
        """Add a session's turns, one second apart from its date; returns how many failed."""
        base = b.cursor.date or EPOCH
        failed = 0
        for i, t in enumerate(turns):
            if not isinstance(t, dict) or not isinstance(t.get("text"), str):
                failed += 1
                issues.append(
                    ParseIssue(file=opts.file, line=pos, reason=f"{sid} {k} turn {i}: no text")
                )
                continue
            text = t["text"]
            caption = t.get("blip_caption")
            if isinstance(caption, str) and caption:
                text = shared_image(text, caption)
            speaker = str(t.get("speaker") or "")
            b.add_turn(
                key=str(t.get("dia_id") or f"{k}:{i}"),
                role="user" if speaker == speaker_a else "assistant",
                speaker=speaker,
                text=text,
                timestamp=base + timedelta(seconds=i),
                line=pos,
            )
        return failed
