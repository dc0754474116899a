"""`python -m remgraph.hooks CLIENT EVENT`: what the installed agent hooks run.

    claude-code session-start [--project P] [--max-bytes N]   (hook input JSON on stdin)
    claude-code stop|session-end [--project P] [--wait]       (stdin: `transcript_path`)
    codex session-start [--project P] [--max-bytes N]         (stdin; prints Codex's JSON)
    codex stop [--project P] [--wait]                         (stdin: `transcript_path`)
    codex notify [--project P] [--wait] JSON                  (Codex `notify`: JSON argument)
    ingest-file PATH --format F [--project P]                 (the detached ingest worker)

Argparse rather than the Typer CLI keeps the start-up small: agents wait for session-start hooks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remgraph.hooks import runtime
from remgraph.settings import Settings

CLIENT_FORMAT = {"claude-code": "claude-code", "codex": "codex"}
EVENTS = ("session-start", "stop", "session-end", "notify")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m remgraph.hooks", description=__doc__)
    p.add_argument("client", choices=[*CLIENT_FORMAT, "ingest-file"])
    p.add_argument("event", help="session-start | stop | session-end | notify, or a PATH")
    p.add_argument("payload", nargs="?", help="Codex notify: the JSON argument")
    p.add_argument("--project", default=None, help="remgraph project (default: the cwd's name)")
    p.add_argument("--max-bytes", type=int, default=None, help="session-start output budget")
    p.add_argument("--format", default="auto", help="ingest-file: transcript format")
    p.add_argument("--wait", action="store_true", help="ingest now instead of in the background")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run one hook; 0 whatever happens (errors are reported on stderr), 2 for bad usage."""
    args = _parser().parse_intermixed_args(argv)  # Codex appends its JSON after our options
    try:
        settings = Settings()
        if args.client == "ingest-file":
            for line in runtime.ingest_transcript(
                settings, Path(args.event), args.format, args.project
            ):
                runtime.log_line(line)
            return 0
        if args.event not in EVENTS:
            runtime.log_line(f"unknown event {args.event!r}; expected one of {', '.join(EVENTS)}")
            return 0
        if args.event == "notify":
            payload = json.loads(args.payload or "{}")
            if not isinstance(payload, dict) or payload.get("type") != "agent-turn-complete":
                return 0
            path = runtime.codex_rollout(str(payload.get("thread-id") or ""))
            if path is None:
                runtime.log_line(f"no Codex rollout for thread {payload.get('thread-id')!r}")
                return 0
        else:
            payload = runtime.read_payload(sys.stdin)
            if args.event == "session-start":
                return _session_start(settings, args, payload)
            raw = payload.get("transcript_path")
            if not raw:
                return 0  # nothing written yet (Codex may send null)
            path = Path(str(raw)).expanduser()
        fmt = CLIENT_FORMAT[args.client]
        if not path.is_file():
            runtime.log_line(f"transcript {path} not found")
        elif args.wait:
            for line in runtime.ingest_transcript(settings, path, fmt, args.project):
                runtime.log_line(line)
        else:
            runtime.spawn_ingest(settings, path, fmt, args.project)
    except Exception as e:  # a hook never breaks the agent's session
        runtime.log_line(f"{type(e).__name__}: {e}")
    return 0


def _session_start(settings: Settings, args: argparse.Namespace, payload: dict[str, Any]) -> int:
    project = runtime.project_for(payload, args.project)
    if project is None:
        runtime.log_line("no project: the hook input has no cwd and no --project was given")
        return 0
    budget = args.max_bytes or runtime.DEFAULT_MAX_BYTES
    text = asyncio.run(runtime.session_start_text(settings, project, max_bytes=budget))
    out = runtime.session_start_output(text, args.client)
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
