"""`remgraph hooks install|uninstall claude-code|codex`: which files change, and how.

Claude Code (`~/.claude/settings.json`, or `$CLAUDE_CONFIG_DIR/settings.json`, or `--settings`):

- `SessionStart` → `python -m remgraph.hooks claude-code session-start`: its standard output (the
  project's rules and context pack) is added to the session's context;
- `Stop` (after every answer) and `SessionEnd` → `... claude-code stop|session-end`: the
  transcript at `transcript_path` is ingested incrementally in the background.

Codex CLI (`$CODEX_HOME`, default `~/.codex`):

- `hooks.json` gets the same `SessionStart` (printed as Codex's `additionalContext` JSON) and
  `Stop` (after every turn) hooks;
- `config.toml` gets `[features] codex_hooks = true`, which Codex versions whose hooks are still
  behind a feature flag need (newer versions enable hooks by default and accept the old name);
- with `--notify`, also a top-level `notify` command for Codex versions without hooks: after each
  turn it ingests the thread's rollout file (found by thread id). Codex runs one `notify` program
  only, so an existing one is never replaced.

Installing twice changes nothing; installing again with other options replaces remgraph's own
entries only; uninstalling removes exactly those.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from remgraph.hooks.files import (
    FileChange,
    SettingsFileError,
    checked_json_change,
    checked_toml_change,
    load_toml,
    read_text,
    strip_ours,
    toml_set_in_table,
    toml_set_top_level,
    toml_without_ours,
    with_hooks,
)
from remgraph.mcp_config import settings_env

HookClient = Literal["claude-code", "codex"]
CLIENTS: tuple[HookClient, ...] = ("claude-code", "codex")

HOOK_TIMEOUT_S = 30
"""Seconds an agent waits for one of our hooks (session start reads the graph; the others only
start the background worker)."""

_SECRET_WORDS = ("PASSWORD", "SECRET", "TOKEN", "KEY")

# event in the agent's settings → our event name
CLAUDE_EVENTS = {"SessionStart": "session-start", "Stop": "stop", "SessionEnd": "session-end"}
CODEX_EVENTS = {"SessionStart": "session-start", "Stop": "stop"}


def claude_settings_path() -> Path:
    """Claude Code's user settings: `$CLAUDE_CONFIG_DIR/settings.json` or `~/.claude/...`."""
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return Path(base).expanduser() / "settings.json"


def codex_dir() -> Path:
    """Codex's home: `$CODEX_HOME`, else `~/.codex`."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def hook_env(environ: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """`REMGRAPH_*` settings to carry into the hook commands, and the secrets left out.

    Hooks run in the agent's environment, not this shell's: settings that locate the graph
    (engine, data dir, graph name, Neo4j URI) travel with the command, secrets never do (they
    would sit in a settings file).
    """
    env = settings_env(environ)
    secrets = sorted(k for k in env if any(w in k for w in _SECRET_WORDS))
    return {k: v for k, v in env.items() if k not in secrets}, secrets


def hook_argv(client: HookClient, event: str, project: str | None) -> list[str]:
    """The program and arguments of one hook.

    `-P`: the agent runs hooks in the user's project folder, whose own `graph/` or `api/` must not
    shadow remgraph's packages.
    """
    argv = [sys.executable, "-P", "-m", "remgraph.hooks", client, event]
    return [*argv, "--project", project] if project else argv


def hook_command(
    client: HookClient, event: str, project: str | None, env: Mapping[str, str]
) -> str:
    """One hook as a shell command line (`K=V ... python -m remgraph.hooks CLIENT EVENT`)."""
    parts = [f"{k}={shlex.quote(v)}" for k, v in env.items()]
    parts += [shlex.quote(a) for a in hook_argv(client, event, project)]
    return " ".join(parts)


def _groups(
    client: HookClient, events: Mapping[str, str], project: str | None, env: Mapping[str, str]
) -> dict[str, list[dict[str, Any]]]:
    return {
        agent_event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": hook_command(client, ours, project, env),
                        "timeout": HOOK_TIMEOUT_S,
                    }
                ]
            }
        ]
        for agent_event, ours in events.items()
    }


def plan_claude_code(
    settings_path: Path, project: str | None, env: Mapping[str, str], *, remove: bool = False
) -> list[FileChange]:
    """The change to Claude Code's settings file (install, or `remove`)."""
    if remove:
        return [checked_json_change(settings_path, strip_ours)]
    groups = _groups("claude-code", CLAUDE_EVENTS, project, env)
    return [checked_json_change(settings_path, lambda doc: with_hooks(doc, groups))]


def _toml_array(argv: list[str]) -> str:
    return "[" + ", ".join(json.dumps(a) for a in argv) + "]"


def plan_codex(
    home: Path,
    project: str | None,
    env: Mapping[str, str],
    *,
    notify: bool = False,
    remove: bool = False,
) -> list[FileChange]:
    """The changes to Codex's `hooks.json` and `config.toml` (install, or `remove`)."""
    hooks_path, config_path = home / "hooks.json", home / "config.toml"
    old = read_text(config_path)
    text = toml_without_ours(old or "")  # our earlier lines go first: installing is idempotent
    ours = [("features", "codex_hooks"), ("notify",)]
    if remove:
        return [
            checked_json_change(hooks_path, strip_ours),
            checked_toml_change(config_path, old, text, ours),
        ]
    groups = _groups("codex", CODEX_EVENTS, project, env)
    notes: list[str] = []
    doc = load_toml(text, config_path)
    raw = doc.get("features")
    features: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if features.get("codex_hooks") is True or features.get("hooks") is True:
        pass
    elif "codex_hooks" in features or "hooks" in features:
        notes.append(f"{config_path}: hooks are turned off in [features]; left as it is")
    else:
        edited = toml_set_in_table(text, "features", "codex_hooks", "true")
        if edited is None:
            notes.append(
                f"{config_path}: `features` is not a plain table; add `codex_hooks = true` to it "
                "if your Codex version needs the flag"
            )
        else:
            text = edited
    if notify:
        if "notify" in doc:
            notes.append(
                f"{config_path}: a `notify` command is already set; Codex runs only one, so it is "
                "left as it is (the Stop hook ingests transcripts on versions with hooks)"
            )
        else:
            argv = hook_argv("codex", "notify", project)
            if env:
                argv = ["env", *(f"{k}={v}" for k, v in env.items()), *argv]
            text = toml_set_top_level(text, "notify", _toml_array(argv))
    new_config = text if (old is not None or text.strip()) else ""
    return [
        checked_json_change(hooks_path, lambda d: with_hooks(d, groups)),
        checked_toml_change(config_path, old, new_config, ours, *notes),
    ]


def plan(
    client: HookClient,
    *,
    project: str | None = None,
    settings_path: Path | None = None,
    notify: bool = False,
    remove: bool = False,
    environ: Mapping[str, str] | None = None,
) -> tuple[list[FileChange], list[str]]:
    """The file changes for `client`, and notes for the user (secrets not carried, etc.)."""
    env, secrets = hook_env(environ)
    notes = []
    if secrets and not remove:
        notes.append(
            "not written into the hook commands (secrets): "
            + ", ".join(secrets)
            + "; set them in the environment the agent runs in"
        )
    if client == "claude-code":
        path = settings_path or claude_settings_path()
        changes = plan_claude_code(path, project, env, remove=remove)
    elif client == "codex":
        changes = plan_codex(
            settings_path or codex_dir(), project, env, notify=notify, remove=remove
        )
    else:  # pragma: no cover - the CLI checks the name
        raise SettingsFileError(f"unknown client {client!r}")
    return changes, notes
