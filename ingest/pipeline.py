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
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from ai.embed import Embedder, Vectors, make_embedder
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.errors import GraphUnavailableError, InvalidInputError
from graph.models import Session, Turn
from graph.repositories.source_files import SourceFileRepository, SourceFileState
from ingest.config import IngestSettings
from ingest.models import FileOutcome, FileReport, IngestReport, ParsedSession, ParseIssue
from ingest.normalize import embedding_text, normalize_session
from ingest.sources.base import ParseCursor, ParseOptions, ParseResult
from ingest.sources.detect import detect_format, formats, parser_for, wanted_file
from ingest.writer import TurnWriter, session_model, turn_model

__all__ = [
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
object may also define `async finish(db)`, awaited once at the end of a run that wrote sessions."""


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
    timings: dict[str, float] = field(
        default_factory=lambda: dict.fromkeys(
            ("parse", "normalize", "embed", "write", "hooks", "total"), 0.0
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
    for p in paths:
        p = p.expanduser().resolve()
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and wanted_file(f))
            out.extend((f, False) for f in found if f not in seen)
            seen.update(found)
        elif p.is_file():
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
            detected = detect_format(path)
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
        parser = parser_for(name)
        state = await self.states.get(key)
        if state is not None and state.format != name:
            state = None  # the format changed (forced): start over
        t0 = time.perf_counter()
        st = await asyncio.to_thread(path.stat)
        if state is not None and state.size == st.st_size and state.mtime_ns == st.st_mtime_ns:
            self._unchanged(key, name, state)  # same size and mtime: not even read
            return
        cursor: ParseCursor | None = None
        outcome: FileOutcome = "new" if state is None else "changed"
        prior_turns = 0
        can_append = state is not None and parser.incremental and bool(state.cursor_json)
        memo = self.tails.get(key) if self.tails is not None else None
        before = b""
        chunk: bytes | None = None
        if (
            can_append
            and state is not None
            and memo is not None
            and (memo.inode, memo.offset, memo.prefix_sha)
            == (st.st_ino, state.offset, state.prefix_sha)
            and st.st_size > state.size
        ):
            # --watch: read only what follows the offset, after checking the bytes just before
            # it are the ones this process ingested (hash of the prefix carried in memory)
            raw = await asyncio.to_thread(_read_from, path, state.offset - len(memo.tail))
            if raw.startswith(memo.tail):
                base_off, base_hash, before = state.offset, memo.hasher.copy(), memo.tail
                chunk = raw[len(memo.tail) :]
        if chunk is None:
            data = await asyncio.to_thread(path.read_bytes)
            if state is not None and state.size == len(data) and state.file_sha == _sha(data):
                self._unchanged(key, name, state)  # touched, not changed
                return
            base_off, base_hash, chunk = 0, hashlib.sha256(), data
            if can_append and state is not None and len(data) >= state.offset:
                head = hashlib.sha256(memoryview(data)[: state.offset])
                if head.hexdigest() == state.prefix_sha:
                    base_off, base_hash = state.offset, head
                    before, chunk = data[max(0, base_off - _TAIL) : base_off], data[base_off:]
        if base_off and state is not None:  # resume after what was ingested
            cursor = ParseCursor.model_validate_json(state.cursor_json)
            outcome = "appended"
            prior_turns = state.turns
            self.run.turns_unchanged += state.turns
        opts = ParseOptions(
            file=key,
            project=self.project,
            tool_payload_chars=self.settings.ingest.tool_payload_chars,
        )
        result: ParseResult = await asyncio.to_thread(parser.parse, chunk, cursor, opts)
        self.run.timings["parse"] += time.perf_counter() - t0
        t1 = time.perf_counter()
        limit = self.settings.ingest.max_turn_chars
        sessions = [normalize_session(s, max_chars=limit) for s in result.sessions]
        self.run.timings["normalize"] += time.perf_counter() - t1
        self.run.issues.extend(result.issues)
        self.run.turns_skipped += result.skipped
        self.run.turns_failed += result.failed
        n_issues = len(result.issues)
        new_turns = sum(len(s.turns) for s in sessions)
        if self.dry_run:
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
                )
            )
            return
        gone = (
            []
            if state is None
            else sorted(set(state.session_ids) - {session_model(s).id for s in sessions})
        )
        written_ids, closed, fresh = await self.write(
            sessions, full=cursor is None, file=key, gone_sessions=gone
        )
        await self.run_hooks(sessions, written_ids)
        size = base_off + len(chunk)
        consumed = result.cursor.offset if parser.incremental and result.resumable else size
        prefix = base_hash.copy()
        prefix.update(memoryview(chunk)[: consumed - base_off])
        whole = base_hash.copy()
        whole.update(chunk)
        await self.states.save(
            SourceFileState(
                path=key,
                format=name,
                size=size,
                mtime_ns=st.st_mtime_ns,
                file_sha=whole.hexdigest(),
                offset=consumed,
                line=result.cursor.line,
                prefix_sha=prefix.hexdigest(),
                cursor_json=result.cursor.model_dump_json()
                if parser.incremental and result.resumable
                else "",
                session_ids=tuple(
                    sorted(
                        {session_model(s).id for s in sessions}
                        | set(state.session_ids if state and cursor else ())
                    )
                ),
                turns=prior_turns + new_turns,
                updated_at=now_ms(),
            )
        )
        if self.tails is not None and parser.incremental and result.resumable:
            tail = (before + chunk[: consumed - base_off])[-_TAIL:]
            self.tails[key] = WatchTail(st.st_ino, consumed, prefix.hexdigest(), prefix, tail)
        self.run.sessions += len(sessions)
        self.run.turns_new += fresh
        self.run.turns_unchanged += new_turns - fresh
        self.run.turns_closed += closed
        self._done(
            FileReport(
                path=key,
                format=name,
                outcome=outcome,
                sessions=len(sessions),
                turns_new=fresh,
                turns_closed=closed,
                issues=n_issues,
            )
        )

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
        size = self.settings.ingest.batch_size
        pending: asyncio.Task[None] | None = None
        for i in range(0, len(turns), size):
            bt = turns[i : i + size]
            want = [j for j in range(i, min(i + size, len(turns))) if embed[j]]
            vecs = await self._embed([texts[j] for j in want])
            ids = [turns[j].id for j in want]
            if pending is not None:
                await pending
            pending = asyncio.create_task(self._write_batch(bt, ids, vecs))
            if not self.settings.ingest.overlap:
                await pending
                pending = None
        if pending is not None:
            await pending
        written: dict[str, list[str]] = {}
        for t, f in zip(turns, fresh, strict=True):
            if f:
                written.setdefault(t.session_id, []).append(t.id)
        closed = 0
        if full and prior:
            t0 = time.perf_counter()
            vanished = sorted(set(prior) - {t.id for t in turns})
            if vanished:
                closed = await self.writer.close_turns(vanished)
            keep = [
                (a.id, b.id) for a, b in itertools.pairwise(turns) if a.session_id == b.session_id
            ]
            await self.states.close_stale_links(file, [*sids, *gone_sessions], keep, now_ms())
            if gone_sessions:
                await self.writer.close_sessions(gone_sessions)
            self.run.timings["write"] += time.perf_counter() - t0
        return written, closed, sum(fresh)

    async def _embed(self, texts: list[str]) -> Vectors | None:
        if self.embedder is None or not texts:
            return None
        t0 = time.perf_counter()
        vecs = await self.embedder.embed(texts)
        self.run.timings["embed"] += time.perf_counter() - t0
        return vecs

    async def _write_batch(self, turns: list[Turn], ids: list[str], vecs: Vectors | None) -> None:
        t0 = time.perf_counter()
        await self.writer.write_turns(turns, ids, vecs)
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
