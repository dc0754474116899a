"""What the installed hooks do when an agent runs them.

- **session start**: print the project's rules and preferences in force (the same read as the
  GraphQL `rules` query, `recall.rules`) and its context pack (latest monthly, weekly and daily
  primers), within a byte budget, for the agent to read before its first turn; the rules printed
  are recorded as served (one `ContextQuery` write), which counts as use for REM staleness;
- **stop / session end**: ingest the session's transcript incrementally. The hook hands the file to
  a detached worker and returns at once (agents wait for hooks, and Claude Code ends SessionEnd
  hooks when it exits); the worker runs the same pipeline as `remgraph ingest` (parsing from the
  saved offset, extraction included), one at a time per transcript: a call that finds the
  transcript busy leaves a note, and the running worker goes round again.

Hooks talk to the graph directly, like the other `remgraph` commands run by the user who owns the
data (no API key in agents' settings files). A hook never fails the agent's session: errors are
one line on stderr (and in `<data dir>/hooks/hooks.log` for the worker), the exit code is 0.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

from ai.injection import quoted
from consolidate.text import fit_bytes, utf8_len
from core.timeutil import now_ms
from ingest.normalize import slugify
from recall.rules import InForce
from remgraph.settings import Settings

DEFAULT_MAX_BYTES = 8000
"""Session-start output budget: Claude Code caps what a hook adds to the context at 10,000
characters, so the default stays below it."""


# -- input ----------------------------------------------------------------------------------------


def read_payload(stream: IO[str]) -> dict[str, Any]:
    """The hook's JSON input ({} when there is none or it is not a JSON object)."""
    try:
        text = stream.read()
    except (OSError, ValueError):
        return {}
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def project_for(payload: dict[str, Any], pinned: str | None) -> str | None:
    """The remgraph project of a session: `--project`, else the slug of its working directory.

    `remgraph ingest` names Claude Code and Codex sessions the same way (the `cwd` folder's name),
    so the rules read at session start belong to the project the transcript lands in.
    """
    if pinned:
        return pinned
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd.strip("/"):
        return slugify(PurePosixPath(cwd).name)
    return None


# -- session start --------------------------------------------------------------------------------


def compose(
    project: str, rules: Sequence[InForce], pack: str, max_bytes: int = DEFAULT_MAX_BYTES
) -> str:
    """The session-start text: rules first (they matter most), then the pack, within the budget.

    Empty when there is nothing to say. Rules that do not fit are counted, never cut mid-line.
    """
    if not rules and not pack.strip():
        return ""
    head = f"# remgraph memory for project `{project}`\n"
    out = head
    if rules:
        out += f"\n## Rules and preferences in force ({len(rules)})\n\n"
        shown = 0
        for r in rules:
            line = _rule_line(r)
            if utf8_len(out + line) > max_bytes - 64:
                break
            out += line
            shown += 1
        if shown < len(rules):
            out += f"- … and {len(rules) - shown} more (`rules` query / MCP tool)\n"
    if pack.strip():
        title = "\n## Context pack (monthly, weekly and recent days' primers)\n\n"
        room = max_bytes - utf8_len(out + title) - 1
        if room > 200:
            # a primer quoting a line that addresses a model carries it quoted and marked
            out += title + fit_bytes(quoted(pack.strip()), room) + "\n"
    return fit_bytes(out, max_bytes)


def _rule_line(r: InForce) -> str:
    return f"- [{r.status}] {' '.join(r.text.split())}\n"


def shown_rules(rules: Sequence[InForce], text: str) -> list[InForce]:
    """The rules `compose` put in `text` (those that did not fit were only counted)."""
    return [r for r in rules if _rule_line(r) in text]


async def session_start_text(
    settings: Settings, project: str, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> str:
    """Read the project's current rules and context pack and compose the session-start text.

    The rules shown are recorded as served (`source` `session_start`), so REM staleness and
    `rem run --auto` count them as used; a failed record is one line on stderr, never a failure.
    """
    from consolidate.pack import context_pack
    from graph.connect import graph_session
    from graph.repositories.context_queries import ContextQueryRecord, ContextQueryRepository
    from recall.rules import read_current_rules, served_refs

    async with graph_session(settings, migrate=False) as db:
        at = now_ms()
        rules = await read_current_rules(db, [project], now_ms=at, limit=200)
        pack = await context_pack(db, project, budget=max_bytes)
        text = compose(project, rules, pack.text, max_bytes)
        shown = shown_rules(rules, text)
        if shown:
            record = ContextQueryRecord(
                project=project,
                query="",
                items=served_refs(shown),
                at_ms=at,
                source="session_start",
            )
            try:
                await ContextQueryRepository(db).record_many([record])
            except Exception as e:  # the agent's session matters more than the record
                log_line(f"could not record the rules served: {type(e).__name__}: {e}")
    return text


def session_start_output(text: str, client: str) -> str:
    """What to print: plain text for Claude Code, `additionalContext` JSON for Codex."""
    if not text or client != "codex":
        return text
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    )


# -- transcript ingest ----------------------------------------------------------------------------


def state_dir(settings: Settings) -> Path:
    """`<data dir>/hooks`: locks, notes and the worker's log (0700)."""
    path = settings.embedded.data_dir.expanduser() / "hooks"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def _lock_paths(settings: Settings, transcript: Path) -> tuple[Path, Path]:
    digest = hashlib.sha256(str(transcript.resolve()).encode()).hexdigest()[:20]
    base = state_dir(settings)
    return base / f"{digest}.lock", base / f"{digest}.again"


@contextlib.contextmanager
def _try_lock(path: Path) -> Iterator[bool]:
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


async def _ingest_once(settings: Settings, path: Path, fmt: str, project: str | None) -> str:
    from ai.embed import make_embedder
    from graph.connect import graph_session
    from ingest.pipeline import ingest_paths
    from remgraph.wiring import extraction_hooks

    embedder = make_embedder(settings.embedding)  # loads the model only if turns are new
    async with graph_session(settings) as db:
        report = await ingest_paths(
            db,
            settings,
            [path],
            fmt=fmt,
            project=project,
            hooks=extraction_hooks(db, settings, embedder),
            embedder=embedder,
        )
    return (
        f"{path}: {report.turns_new} new turns, {report.turns_unchanged} unchanged, "
        f"{len(report.issues)} issues"
    )


def ingest_transcript(settings: Settings, path: Path, fmt: str, project: str | None) -> list[str]:
    """Ingest `path` now, unless another worker is at it (then leave it a note to go again).

    Returns one summary line per pass made (empty when another worker took the note).
    """
    import asyncio

    lock, again = _lock_paths(settings, path)
    with _try_lock(lock) as mine:
        if not mine:
            again.touch()
            # the holder may have just checked for the note and be leaving: try once more
            with _try_lock(lock) as second:
                if not second:
                    return []
                again.unlink(missing_ok=True)
                return _passes(settings, path, fmt, project, again, asyncio.run)
        again.unlink(missing_ok=True)
        return _passes(settings, path, fmt, project, again, asyncio.run)


def _passes(
    settings: Settings, path: Path, fmt: str, project: str | None, again: Path, run: Any
) -> list[str]:
    lines = [run(_ingest_once(settings, path, fmt, project))]
    while again.exists():  # a hook fired while we were ingesting: the file grew again
        again.unlink(missing_ok=True)
        lines.append(run(_ingest_once(settings, path, fmt, project)))
    return lines


def spawn_ingest(settings: Settings, path: Path, fmt: str, project: str | None) -> int:
    """Start a detached worker ingesting `path` and return its pid (the hook returns at once)."""
    args = [sys.executable, "-P", "-m", "remgraph.hooks", "ingest-file", str(path), "--format", fmt]
    if project:
        args += ["--project", project]
    log = state_dir(settings) / "hooks.log"
    with Path(os.devnull).open("rb") as devnull, log.open("ab") as out:
        proc = subprocess.Popen(
            args,
            stdin=devnull,
            stdout=out,
            stderr=out,
            start_new_session=True,  # survives the agent ending the hook's process group
            close_fds=True,
        )
    return proc.pid


def codex_home() -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def codex_rollout(thread_id: str, home: Path | None = None) -> Path | None:
    """The rollout file of a Codex thread (`sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl`)."""
    if not thread_id or "/" in thread_id or ".." in thread_id:
        return None
    found = sorted((home or codex_home()).glob(f"sessions/**/rollout-*{thread_id}.jsonl"))
    return found[-1] if found else None


def log_line(message: str) -> None:
    """One line on stderr, prefixed so it is clear which hook spoke."""
    print(f"remgraph hook: {message}", file=sys.stderr)  # noqa: T201  # a hook's only channel
