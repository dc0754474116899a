"""`remgraph mcp config CLIENT`: the exact snippet that registers `remgraph mcp` with an agent.

Clients:

- `claude-code`: a `claude mcp add` command line (user scope, stdio), which stores the server in
  Claude Code's own configuration (`~/.claude.json`), not in a file of the repository;
- `codex`: a `[mcp_servers.remgraph]` table for `~/.codex/config.toml`;
- `generic`: the `{"mcpServers": {...}}` JSON most other MCP clients read (Claude Desktop, Cursor,
  Windsurf, ...).

Each carries the command (an absolute path, so the client needs no activated virtualenv), its
arguments and the environment: the API key plus the `REMGRAPH_*` settings in force where the
command runs (environment and `.env`), so the server opens the same graph.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

CLIENTS = ("claude-code", "codex", "generic")
McpClient = Literal["claude-code", "codex", "generic"]
SERVER_NAME = "remgraph"
KEY_VAR = "REMGRAPH_API_KEY"
_SKIPPED = frozenset({KEY_VAR, "REMGRAPH_DEBUG"})


def remgraph_command() -> list[str]:
    """`[executable, *args]` that starts `remgraph` from anywhere (absolute path)."""
    exe = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if exe is not None and exe.name == "remgraph" and exe.exists():
        return [str(exe.resolve())]
    found = shutil.which("remgraph")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "remgraph"]


def settings_env(
    environ: Mapping[str, str] | None = None, dotenv: Path | None = Path(".env")
) -> dict[str, str]:
    """`REMGRAPH_*` settings in force here (`.env` first, the environment wins), minus the key."""
    out: dict[str, str] = {}
    if dotenv is not None and dotenv.is_file():
        from dotenv import dotenv_values

        for k, v in dotenv_values(dotenv).items():
            if k.upper().startswith("REMGRAPH_") and v is not None:
                out[k.upper()] = v
    for k, v in (os.environ if environ is None else environ).items():
        if k.upper().startswith("REMGRAPH_"):
            out[k.upper()] = v
    return {k: out[k] for k in sorted(out) if k not in _SKIPPED}


def _toml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid TOML basic string


def snippet(client: McpClient, key: str, command: list[str], env: Mapping[str, str]) -> str:
    """The text to paste (or run) to register remgraph's MCP server with `client`."""
    exe, *args = [*command, "mcp"]
    full_env = {KEY_VAR: key, **env}
    if client == "claude-code":
        parts = ["claude", "mcp", "add", "--transport", "stdio", "--scope", "user"]
        for k, v in full_env.items():
            parts += ["--env", f"{k}={v}"]
        parts += [SERVER_NAME, "--", exe, *args]
        return " ".join(shlex.quote(p) for p in parts) + "\n"
    if client == "codex":
        lines = [
            f"[mcp_servers.{SERVER_NAME}]",
            f"command = {_toml_str(exe)}",
            f"args = [{', '.join(_toml_str(a) for a in args)}]",
            "env = { " + ", ".join(f"{k} = {_toml_str(v)}" for k, v in full_env.items()) + " }",
        ]
        return "\n".join(lines) + "\n"
    server = {"type": "stdio", "command": exe, "args": args, "env": full_env}
    return json.dumps({"mcpServers": {SERVER_NAME: server}}, indent=2) + "\n"


WHERE = {
    "claude-code": "run it in a shell (Claude Code stores it in ~/.claude.json; `claude mcp list` "
    "shows it)",
    "codex": "append it to ~/.codex/config.toml",
    "generic": "merge it into your client's MCP configuration (Claude Desktop: "
    "claude_desktop_config.json; Cursor: ~/.cursor/mcp.json)",
}
"""Where each snippet goes, printed on stderr next to it."""
