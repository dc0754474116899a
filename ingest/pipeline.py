"""The ingest pipeline: find files → parse → normalise → embed → write → hooks → file state.

`ingest_paths` is the one entry point (CLI, watch mode, API port, benchmarks and tests all call
it). Per file it decides from the saved `SourceFile` state whether the file is unchanged (skip),
appended (parse only the new bytes, after checking the hash of the part already ingested) or new
or edited (parse all of it; turns that vanished are closed). The state is saved only after the
file's turns are written, so a crash at any point followed by a re-run converges on the graph one
clean run gives: every write is a MERGE on deterministic ids.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import ValidationError

from ai.embed import Embedder, Vectors, make_embedder
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.errors import GraphUnavailableError, InvalidInputError
from graph.models import Session, Turn
from graph.repositories.source_files import OpenTurn, SourceFileRepository, SourceFileState
from ingest.config import IngestSettings
from ingest.models import FileOutcome, FileReport, IngestReport, ParsedSession, ParseIssue
from ingest.normalize import embedding_text, normalize_session
from ingest.sources.base import ParseCursor, ParseOptions, ParseResult, SourceParser
from ingest.sources.detect import detect_format, formats, parser_for, wanted_file
from ingest.writer import TurnWriter, session_model, turn_model

__all__ = [
    "BacklogProgress",
    "PostSessionHook",
    "Progress",
    "WatchTail",
    "collect_files",
    "ingest_parsed",
    "ingest_paths",
]

log = logging.getLogger("remgraph.ingest")

PostSessionHook = Callable[[GraphDB, ParsedSession, list[str]], Awaitable[None]]
"""Called after a session's turns are written, with the ids of the turns written this run (the
composition root registers knowledge extraction here; `--no-extract` skips the hooks). A hook
object may also define `async finish(db)`, awaited once at the end of a run that wrote sessions,
`absorb(report)`, given what the backlog's queued extractions changed, and `extractor`, the
extractor the backlog drain runs them with."""


@runtime_checkable
class BacklogProgress(Protocol):
    """Receives the embedding backlog's progress (a second Rich bar in the CLI)."""

    def backlog_total(self, n: int) -> None: ...
    def backlog_done(self, n: int) -> None: ...


class Progress(Protocol):
    """Receives progress events (the CLI drives a Rich progress bar with them)."""

    def files_total(self, n: int) -> None: ...
    def file_started(self, path: str, fmt: str) -> None: ...
    def turns_written(self, n: int) -> None: ...
    def file_done(self, report: FileReport) -> None: ...


@dataclass
class _Run:
    """Mutable accumulators of one `ingest_paths` call."""

    files: list[FileReport] = field(default_factory=list)
    issues: list[ParseIssue] = field(default_factory=list)
    hook_errors: list[str] = field(default_factory=list)
    extraction: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            (
                "parse",
                "normalize",
                "embed",
                "write",
                "hooks",
                "searchable",
                "backlog",
                "extract",
                "total",
            ),
            0.0,
        )
    )
    sessions: int = 0
    turns_new: int = 0
    turns_unchanged: int = 0
    turns_skipped: int = 0
    turns_failed: int = 0
    turns_closed: int = 0


def collect_files(paths: Iterable[Path], issues: list[ParseIssue]) -> list[tuple[Path, bool]]:
    """Absolute files to ingest as `(path, explicit)`; directories expand to files below them."""
    out: list[tuple[Path, bool]] = []
    seen: set[Path] = set()
    for arg in paths:
        try:
            # Python 3.11 raises RuntimeError on a symlink loop, later versions OSError.
            p = arg.expanduser().resolve()
            if p.is_dir():
                found = sorted(f for f in p.rglob("*") if f.is_file() and wanted_file(f))
                out.extend((f, False) for f in found if f not in seen)
                seen.update(found)
                continue
            is_file = p.is_file()
        except (OSError, RuntimeError) as e:
            # One bad argument is reported and skipped; the others are still ingested.
            issues.append(ParseIssue(file=str(arg), reason=f"cannot open: {e}"))
            continue
        if is_file:
            if p not in seen:
                out.append((p, True))
                seen.add(p)
        else:
            issues.append(ParseIssue(file=str(p), reason="no such file or directory"))
    return out


_TAIL = 4096
"""Bytes before the ingested offset that a watch keeps to recognise a file it is tailing."""


@dataclass
class WatchTail:
    """What `--watch` keeps in memory per file so an append is read from the offset alone."""

    inode: int
    offset: int
    prefix_sha: str
    hasher: Any
    """SHA-256 state after the first `offset` bytes (`hashlib` objects copy cheaply)."""
    tail: bytes
    """The last bytes before `offset`."""


def _read_from(path: Path, offset: int) -> bytes:
    with path.open("rb") as f:
        f.seek(offset)
        return f.read()


def _sha(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class _Chunk:
    """The bytes of a file to parse, and what precedes them."""

    offset: int
    """Where `data` starts in the file (0, or the offset an append resumes from)."""
    hasher: Any
    """SHA-256 state of the file's first `offset` bytes."""
    data: bytes
    before: bytes = b""
    """The last bytes before `offset` (kept by `--watch` to recognise the file)."""

    @property
    def size(self) -> int:
        """The file size this chunk ends at."""
        return self.offset + len(self.data)

    @classmethod
    def of(cls, data: bytes, appendable: SourceFileState | None) -> _Chunk:
        """All of `data`, or only what follows the saved offset when the prefix is unchanged."""
        if appendable is not None and len(data) >= appendable.offset:
            head = hashlib.sha256(memoryview(data)[: appendable.offset])
            if head.hexdigest() == appendable.prefix_sha:
                off = appendable.offset
                return cls(off, head, data[off:], data[max(0, off - _TAIL) : off])
        return cls(0, hashlib.sha256(), data)


def _gone(state: SourceFileState | None, sessions: Sequence[ParsedSession]) -> list[str]:
    """Sessions the file held when it was last ingested and no longer has."""
    if state is None:
        return []
    return sorted(set(state.session_ids) - {session_model(s).id for s in sessions})


@dataclass(frozen=True)
class _Resume:
    """Where a parse starts: from scratch, or from the saved cursor after an unchanged prefix."""

    cursor: ParseCursor | None
    outcome: FileOutcome
    prior_turns: int

    @classmethod
    def of(cls, state: SourceFileState | None, chunk: _Chunk) -> _Resume:
        if chunk.offset and state is not None:
            return cls(ParseCursor.model_validate_json(state.cursor_json), "appended", state.turns)
        return cls(None, "new" if state is None else "changed", 0)


async def ingest_paths(
    db: GraphDB,
    settings: IngestSettings,
    paths: Sequence[Path | str],
    *,
    fmt: str = "auto",
    project: str | None = None,
    dry_run: bool = False,
    hooks: Sequence[PostSessionHook] = (),
    run_hooks: bool = True,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    tails: dict[str, WatchTail] | None = None,
    wait_embeddings: bool = True,
    renice: bool = False,
) -> IngestReport:
    """Ingest transcript files (directories are searched recursively) and report what happened.

    Args:
        db: an open, migrated graph.
        settings: the `ingest` and `embedding` sections are used.
        paths: files or directories.
        fmt: `auto` or a registered format (`formats()`), forcing every file to that format.
        project: project slug for every session, overriding what the sources say.
        dry_run: parse and report only; nothing is embedded or written.
        hooks: post-session hooks (knowledge extraction), run unless `run_hooks` is False.
        run_hooks: False for `--no-extract`.
        embedder: reuse an embedder; by default one is made from `settings.embedding`.
        progress: optional progress sink.
        tails: a dict kept across calls by `--watch`: appended files are then read from their
            offset only (the prefix hash is carried in memory instead of being recomputed).
        wait_embeddings: with `ingest.defer_embeddings`, drain the backlog (vectors, then the
            queued extractions) before returning; False returns as soon as the turns are
            written and searchable by text.
        renice: lower the process's priority (`ingest.backlog_nice`) before that drain (the
            CLI: what is left is background work).

    Raises:
        InvalidInputError: an unknown `fmt`.
        GraphUnavailableError: the engine stopped answering (the run is aborted; re-run it).
    """
    if fmt != "auto" and fmt not in formats():
        raise InvalidInputError("format", f"{fmt!r} is not one of auto, {', '.join(formats())}")
    started = time.perf_counter()
    run = _Run()
    files = collect_files([Path(p) for p in paths], run.issues)
    if progress:
        progress.files_total(len(files))
    if embedder is None and settings.ingest.embed and not dry_run:
        embedder = make_embedder(settings.embedding)
    if not settings.ingest.embed:
        embedder = None
    ctx = _FileContext(
        db=db,
        settings=settings,
        project=project,
        dry_run=dry_run,
        hooks=list(hooks) if run_hooks else [],
        embedder=embedder,
        progress=progress,
        run=run,
        tails=tails,
    )
    for path, explicit in files:
        await ctx.ingest_file(path, fmt, explicit)
    await ctx.finish_hooks()
    run.timings["searchable"] = time.perf_counter() - started
    if wait_embeddings and ctx.deferred:
        await ctx.drain(wait=True, renice=renice)
    run.timings["total"] = time.perf_counter() - started
    return IngestReport(
        files=tuple(run.files),
        sessions=run.sessions,
        turns_new=run.turns_new,
        turns_unchanged=run.turns_unchanged,
        turns_skipped=run.turns_skipped,
        turns_failed=run.turns_failed,
        turns_closed=run.turns_closed,
        timings={k: round(v, 4) for k, v in run.timings.items()},
        issues=tuple(run.issues),
        dry_run=dry_run,
        hook_errors=tuple(run.hook_errors),
        extraction=run.extraction,
    )


async def ingest_parsed(
    db: GraphDB,
    settings: IngestSettings,
    sessions: Sequence[ParsedSession],
    *,
    hooks: Sequence[PostSessionHook] = (),
    run_hooks: bool = True,
    embedder: Embedder | None = None,
) -> IngestReport:
    """Normalise, embed and write already parsed sessions (appends: nothing is closed), then hooks.

    The path for turns that arrive without a file (the API's `ingestTurns`); everything after
    parsing is the same as for `ingest_paths`.
    """
    started = time.perf_counter()
    run = _Run()
    if embedder is None and settings.ingest.embed:
        embedder = make_embedder(settings.embedding)
    ctx = _FileContext(
        db=db,
        settings=settings,
        project=None,
        dry_run=False,
        hooks=list(hooks) if run_hooks else [],
        embedder=embedder if settings.ingest.embed else None,
        progress=None,
        run=run,
    )
    limit = settings.ingest.max_turn_chars
    normalized = [normalize_session(s, max_chars=limit) for s in sessions]
    written, _, _ = await ctx.write(normalized, full=False)
    await ctx.run_hooks(normalized, written)
    await ctx.finish_hooks()
    if ctx.deferred:  # a drain already running elsewhere picks these turns up
        await ctx.drain(wait=False)
    run.sessions = len(normalized)
    run.turns_new = sum(len(v) for v in written.values())
    run.timings["total"] = time.perf_counter() - started
    return IngestReport(
        sessions=run.sessions,
        turns_new=run.turns_new,
        turns_failed=run.turns_failed,
        issues=tuple(run.issues),
        timings={k: round(v, 4) for k, v in run.timings.items()},
        hook_errors=tuple(run.hook_errors),
        extraction=run.extraction,
    )


@dataclass
class _FileContext:
    db: GraphDB
    settings: IngestSettings
    project: str | None
    dry_run: bool
    hooks: list[PostSessionHook]
    embedder: Embedder | None
    progress: Progress | None
    run: _Run
    tails: dict[str, WatchTail] | None = None

    def __post_init__(self) -> None:
        self.states = SourceFileRepository(self.db)
        self.writer = TurnWriter(self.db)

    @property
    def deferred(self) -> bool:
        """Turns go to the embedding backlog instead of being embedded before they are written."""
        return (
            self.embedder is not None and self.settings.ingest.defer_embeddings and not self.dry_run
        )

    async def drain(self, *, wait: bool, renice: bool = False) -> None:
        """Fill the backlog's vectors and run its queued extractions (single-flight)."""
        from ingest.backlog import drain_backlog  # deferred: it imports extraction

        assert self.embedder is not None
        t0 = time.perf_counter()
        bar = self.progress if isinstance(self.progress, BacklogProgress) else None
        extractor = next(
            (x for h in self.hooks if (x := getattr(h, "extractor", None)) is not None), None
        )
        rep = await drain_backlog(
            self.db,
            self.settings,
            self.embedder,
            progress=bar,
            wait=wait,
            renice=renice,
            extractor=extractor,
        )
        self.run.timings["embed"] += rep.embed_seconds
        self.run.timings["extract"] += rep.extract_seconds
        self.run.timings["backlog"] += time.perf_counter() - t0
        self.run.hook_errors.extend(rep.failures)
        for hook in self.hooks:
            absorb = getattr(hook, "absorb", None)
            if absorb is not None:
                absorb(rep.knowledge)
            summary = getattr(hook, "ingest_summary", None)
            if callable(summary) and rep.extractions:
                self.run.extraction = summary()  # what the drain's extraction did

    def _unchanged(self, key: str, name: str, state: SourceFileState) -> None:
        self.run.turns_unchanged += state.turns
        self._done(FileReport(path=key, format=name, outcome="unchanged"))

    def _done(self, rep: FileReport) -> None:
        self.run.files.append(rep)
        if self.progress:
            self.progress.file_done(rep)

    async def ingest_file(self, path: Path, fmt: str, explicit: bool) -> None:
        key = str(path)
        name = fmt
        if fmt == "auto":
            try:
                detected = detect_format(path)
            except OSError as e:
                self.run.issues.append(ParseIssue(file=key, reason=f"cannot read: {e}"))
                self._done(FileReport(path=key, format="unknown", outcome="failed", issues=1))
                return
            if detected is None:
                if explicit:
                    self.run.issues.append(
                        ParseIssue(file=key, reason="format not recognised; pass --format")
                    )
                    self._done(FileReport(path=key, format="unknown", outcome="failed", issues=1))
                else:
                    self.run.issues.append(
                        ParseIssue(
                            file=key, severity="info", reason="not a recognised transcript; skipped"
                        )
                    )
                return
            name = detected
        if self.progress:
            self.progress.file_started(key, name)
        try:
            await self._ingest(path, key, name)
        except GraphUnavailableError:
            raise
        except OSError as e:
            self.run.issues.append(ParseIssue(file=key, reason=f"cannot read: {e}"))
            self._done(FileReport(path=key, format=name, outcome="failed", issues=1))

    async def _ingest(self, path: Path, key: str, name: str) -> None:
        """Read what is new in one file, parse it, write it, run the hooks, save the file state."""
        parser = parser_for(name)
        state = await self.states.get(key)
        if state is not None and state.format != name:
            state = None  # the format changed (forced): start over
        t0 = time.perf_counter()
        st = await asyncio.to_thread(path.stat)
        chunk = await self._read_new(path, key, parser, state, st)
        if chunk is None:  # unchanged (only a file ingested before can be)
            if state is not None:
                self._unchanged(key, name, state)
            return
        resume = _Resume.of(state, chunk)
        self.run.turns_unchanged += resume.prior_turns
        result, sessions = await self._parse(parser, key, chunk.data, resume.cursor, t0)
        if self.dry_run:
            self._dry_run_done(key, name, sessions, len(result.issues))
            return
        written_ids, closed, fresh = await self.write(
            sessions, full=resume.cursor is None, file=key, gone_sessions=_gone(state, sessions)
        )
        await self.run_hooks(sessions, written_ids)
        await self._save_state(key, name, st, parser, result, chunk, sessions, state, resume)
        self.run.sessions += len(sessions)
        self.run.turns_new += fresh
        self.run.turns_unchanged += sum(len(s.turns) for s in sessions) - fresh
        self.run.turns_closed += closed
        self._done(
            FileReport(
                path=key,
                format=name,
                outcome=resume.outcome,
                sessions=len(sessions),
                turns_new=fresh,
                turns_closed=closed,
                issues=len(result.issues),
                projects=dict(Counter(s.project for s in sessions)),
            )
        )

    async def _read_new(
        self,
        path: Path,
        key: str,
        parser: SourceParser,
        state: SourceFileState | None,
        st: os.stat_result,
    ) -> _Chunk | None:
        """What to parse, or None when the file is unchanged (same size and mtime, or same bytes).

        The appended part when the ingested prefix is unchanged, else the whole file.
        """
        if state is not None and state.size == st.st_size and state.mtime_ns == st.st_mtime_ns:
            return None  # not even read
        appendable = state if state and parser.incremental and state.cursor_json else None
        chunk = await self._watched_chunk(path, key, appendable, st)
        if chunk is not None:
            return chunk
        data = await asyncio.to_thread(path.read_bytes)
        if state is not None and state.size == len(data) and state.file_sha == _sha(data):
            return None  # touched, not changed
        return _Chunk.of(data, appendable)

    async def _watched_chunk(
        self, path: Path, key: str, state: SourceFileState | None, st: os.stat_result
    ) -> _Chunk | None:
        """`--watch`: only what follows the offset of a file this process is tailing, or None.

        The bytes just before the offset must be the ones this process ingested (their hash is
        carried in memory), and the file must have grown.
        """
        memo = self.tails.get(key) if self.tails is not None else None
        if state is None or memo is None or st.st_size <= state.size:
            return None
        if (memo.inode, memo.offset, memo.prefix_sha) != (
            st.st_ino,
            state.offset,
            state.prefix_sha,
        ):
            return None
        raw = await asyncio.to_thread(_read_from, path, state.offset - len(memo.tail))
        if not raw.startswith(memo.tail):
            return None
        return _Chunk(state.offset, memo.hasher.copy(), raw[len(memo.tail) :], memo.tail)

    async def _parse(
        self, parser: SourceParser, key: str, data: bytes, cursor: ParseCursor | None, t0: float
    ) -> tuple[ParseResult, list[ParsedSession]]:
        """Parse `data` in a thread, normalise its sessions, count its issues and skips."""
        opts = ParseOptions(
            file=key,
            project=self.project,
            tool_payload_chars=self.settings.ingest.tool_payload_chars,
        )
        result: ParseResult = await asyncio.to_thread(parser.parse, data, cursor, opts)
        self.run.timings["parse"] += time.perf_counter() - t0
        t1 = time.perf_counter()
        limit = self.settings.ingest.max_turn_chars
        sessions = [normalize_session(s, max_chars=limit) for s in result.sessions]
        self.run.timings["normalize"] += time.perf_counter() - t1
        self.run.issues.extend(result.issues)
        self.run.turns_skipped += result.skipped
        self.run.turns_failed += result.failed
        return result, sessions

    def _dry_run_done(
        self, key: str, name: str, sessions: list[ParsedSession], n_issues: int
    ) -> None:
        new_turns = sum(len(s.turns) for s in sessions)
        self.run.sessions += len(sessions)
        self.run.turns_new += new_turns
        if self.progress:
            self.progress.turns_written(new_turns)  # "would write"
        self._done(
            FileReport(
                path=key,
                format=name,
                outcome="dry-run",
                sessions=len(sessions),
                turns_new=new_turns,
                issues=n_issues,
                projects=dict(Counter(s.project for s in sessions)),
            )
        )

    async def _save_state(
        self,
        key: str,
        name: str,
        st: os.stat_result,
        parser: SourceParser,
        result: ParseResult,
        chunk: _Chunk,
        sessions: list[ParsedSession],
        state: SourceFileState | None,
        resume: _Resume,
    ) -> None:
        """Remember how far the file was ingested (and, under `--watch`, its tail)."""
        resumable = parser.incremental and result.resumable
        consumed = result.cursor.offset if resumable else chunk.size
        prefix = chunk.hasher.copy()
        prefix.update(memoryview(chunk.data)[: consumed - chunk.offset])
        whole = chunk.hasher.copy()
        whole.update(chunk.data)
        earlier = set(state.session_ids) if state and resume.cursor else set()
        await self.states.save(
            SourceFileState(
                path=key,
                format=name,
                size=chunk.size,
                mtime_ns=st.st_mtime_ns,
                file_sha=whole.hexdigest(),
                offset=consumed,
                line=result.cursor.line,
                prefix_sha=prefix.hexdigest(),
                cursor_json=result.cursor.model_dump_json() if resumable else "",
                session_ids=tuple(sorted({session_model(s).id for s in sessions} | earlier)),
                turns=resume.prior_turns + sum(len(s.turns) for s in sessions),
                updated_at=now_ms(),
            )
        )
        if self.tails is not None and resumable:
            tail = (chunk.before + chunk.data[: consumed - chunk.offset])[-_TAIL:]
            self.tails[key] = WatchTail(st.st_ino, consumed, prefix.hexdigest(), prefix, tail)

    def _models(self, sessions: list[ParsedSession]) -> tuple[list[Session], list[Turn], list[str]]:
        """Domain models plus the text to embed per turn; unmappable turns become issues."""
        smodels: list[Session] = []
        turns: list[Turn] = []
        texts: list[str] = []
        prefix = self.settings.ingest.date_prefix
        for s in sessions:
            smodels.append(session_model(s))
            for t in s.turns:
                try:
                    turns.append(turn_model(s, t))
                except ValidationError as e:
                    self.run.turns_failed += 1
                    self.run.issues.append(
                        ParseIssue(
                            file=s.source_file, line=t.line, reason=f"turn {t.key!r} rejected: {e}"
                        )
                    )
                    continue
                texts.append(embedding_text(t, s.date, prefix=prefix))
        return smodels, turns, texts

    async def write(
        self,
        sessions: list[ParsedSession],
        *,
        full: bool,
        file: str = "",
        gone_sessions: Sequence[str] = (),
    ) -> tuple[dict[str, list[str]], int, int]:
        """Write sessions and turns; returns (new or changed turn ids per session, closed, new).

        `full`: the sessions are complete (a whole file was parsed). Then what is stored from the
        file is compared first: unchanged turns are re-linked but not re-embedded and not handed
        to the hooks, vanished turns and stale `NEXT`/`HAS_TURN` edges are closed, and so are
        `gone_sessions` (sessions the file no longer has) with their turns.
        """
        smodels, turns, texts = self._models(sessions)
        file = file or (sessions[0].source_file if sessions else "")
        sids = [s.id for s in smodels]
        prior = await self.states.open_turns(file, [*sids, *gone_sessions]) if full and file else {}
        fresh = [t.id not in prior or prior[t.id].content_hash != t.content_hash for t in turns]
        embed = [f or not prior[t.id].embedded for t, f in zip(turns, fresh, strict=True)]
        t0 = time.perf_counter()
        await self.writer.write_sessions(smodels)
        self.run.timings["write"] += time.perf_counter() - t0
        await self._write_turns(turns, texts, embed)
        written: dict[str, list[str]] = {}
        for t, f in zip(turns, fresh, strict=True):
            if f:
                written.setdefault(t.session_id, []).append(t.id)
        closed = 0
        if full and prior:
            closed = await self._close_vanished(file, turns, prior, [*sids, *gone_sessions])
            if gone_sessions:
                t0 = time.perf_counter()
                await self.writer.close_sessions(gone_sessions)
                self.run.timings["write"] += time.perf_counter() - t0
        return written, closed, sum(fresh)

    async def _write_turns(self, turns: list[Turn], texts: list[str], embed: list[bool]) -> None:
        """Embed and write turns in batches, embedding one batch while the previous one is written.

        Only turns flagged in `embed` get a new vector; `ingest.overlap=false` writes in lockstep.
        """
        size = self.settings.ingest.batch_size
        if self.deferred:
            for i in range(0, len(turns), size):
                batch = turns[i : i + size]
                todo = {turns[j].id: texts[j] for j in range(i, i + len(batch)) if embed[j]}
                await self._write_batch(batch, [], None, todo)
            return
        pending: asyncio.Task[None] | None = None
        for i in range(0, len(turns), size):
            want = [j for j in range(i, min(i + size, len(turns))) if embed[j]]
            vecs = await self._embed([texts[j] for j in want])
            if pending is not None:
                await pending
            ids = [turns[j].id for j in want]
            pending = asyncio.create_task(self._write_batch(turns[i : i + size], ids, vecs))
            if not self.settings.ingest.overlap:
                await pending
                pending = None
        if pending is not None:
            await pending

    async def _close_vanished(
        self, file: str, turns: list[Turn], prior: Mapping[str, OpenTurn], session_ids: list[str]
    ) -> int:
        """Close stored turns of a re-read file that it no longer has, and stale chain links."""
        t0 = time.perf_counter()
        vanished = sorted(set(prior) - {t.id for t in turns})
        closed = await self.writer.close_turns(vanished) if vanished else 0
        keep = [(a.id, b.id) for a, b in itertools.pairwise(turns) if a.session_id == b.session_id]
        await self.states.close_stale_links(file, session_ids, keep, now_ms())
        self.run.timings["write"] += time.perf_counter() - t0
        return closed

    async def _embed(self, texts: list[str]) -> Vectors | None:
        if self.embedder is None or not texts:
            return None
        t0 = time.perf_counter()
        vecs = await self.embedder.embed(texts)
        self.run.timings["embed"] += time.perf_counter() - t0
        return vecs

    async def _write_batch(
        self,
        turns: list[Turn],
        ids: list[str],
        vecs: Vectors | None,
        pending: Mapping[str, str] | None = None,
    ) -> None:
        t0 = time.perf_counter()
        await self.writer.write_turns(turns, ids, vecs, pending)
        self.run.timings["write"] += time.perf_counter() - t0
        if self.progress:
            self.progress.turns_written(len(turns))

    async def finish_hooks(self) -> None:
        """Await `finish(db)` on hooks that have one, once per run that touched a session."""
        if not self.hooks or not self.run.sessions or self.dry_run:
            return
        t0 = time.perf_counter()
        for hook in self.hooks:
            finish = getattr(hook, "finish", None)
            if finish is None:
                continue
            try:
                await finish(self.db)
                summary = getattr(hook, "ingest_summary", None)
                if callable(summary):  # what the ingest summary shows of this hook's work
                    self.run.extraction = summary()
            except GraphUnavailableError:
                raise
            except Exception as e:  # reported; the ingest itself succeeded
                log.exception("post-session hook finish failed")
                self.run.hook_errors.append(f"finish: {type(e).__name__}: {e}")
        self.run.timings["hooks"] += time.perf_counter() - t0

    async def run_hooks(self, sessions: list[ParsedSession], written: dict[str, list[str]]) -> None:
        if not self.hooks:
            return
        t0 = time.perf_counter()
        for s in sessions:
            ids = written.get(session_model(s).id, [])
            for hook in self.hooks:
                try:
                    await hook(self.db, s, ids)
                except GraphUnavailableError:
                    raise
                except Exception as e:  # a hook's bug must not lose the ingest
                    log.exception("post-session hook failed for %s", s.key)
                    self.run.hook_errors.append(f"{s.project}/{s.key}: {type(e).__name__}: {e}")
        self.run.timings["hooks"] += time.perf_counter() - t0
