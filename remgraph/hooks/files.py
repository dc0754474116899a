"""Editing agents' settings files safely: merge our hook entries, keep everything else.

Claude Code's `settings.json` and Codex's `hooks.json` share one shape::

    {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}]}}

Our entries are recognised by `MARKER` in their command, so installing again replaces them
(idempotent) and uninstalling removes only them. Codex's `config.toml` is edited line by line
(Python reads TOML but cannot write it): each line we add ends with `TOML_MARK`.

Every edit is checked before it is written: with our entries taken out, the new document must
parse to exactly what the old one held, so an unrelated setting can never be lost or changed.
Writes are atomic (temporary file + rename), keep the file's mode, and leave a timestamped backup
of the previous content next to it.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import tempfile
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MARKER = "-m remgraph.hooks"
"""Every hook command remgraph installs contains this; nothing else is ever touched."""
TOML_MARK = "# added by remgraph hooks install"
"""Ends every line remgraph adds to a TOML file."""


class SettingsFileError(Exception):
    """A settings file cannot be edited safely (invalid, or an unexpected shape); names where."""


# -- JSON hook documents --------------------------------------------------------------------------


def is_ours(hook: Any) -> bool:
    """Whether a hook handler was installed by remgraph."""
    return isinstance(hook, dict) and MARKER in str(hook.get("command", ""))


def _check_shape(doc: Any, path: Path) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise SettingsFileError(f"{path}: the top level is not a JSON object")
    hooks = doc.get("hooks")
    if hooks is None:
        return doc
    if not isinstance(hooks, dict):
        raise SettingsFileError(f"{path}: `hooks` is not an object; not touching it")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise SettingsFileError(f"{path}: `hooks.{event}` is not a list; not touching it")
        for i, g in enumerate(groups):
            if not isinstance(g, dict) or not isinstance(g.get("hooks", []), list):
                raise SettingsFileError(
                    f"{path}: `hooks.{event}[{i}]` is not a matcher group; not touching it"
                )
    return doc


def strip_ours(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `doc` without remgraph's hook handlers (and the groups/events they alone made)."""
    out = copy.deepcopy(dict(doc))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = []
        for group in hooks[event]:
            handlers = group.get("hooks", [])
            kept = [h for h in handlers if not is_ours(h)]
            if handlers and not kept:
                continue  # a group that held only our handlers
            groups.append({**group, "hooks": kept} if len(kept) != len(handlers) else group)
        if hooks[event] and not groups:
            del hooks[event]  # an event that held only our groups
        else:
            hooks[event] = groups
    if not hooks and "hooks" in doc and doc["hooks"]:
        del out["hooks"]
    return out


def normalized(doc: Mapping[str, Any]) -> dict[str, Any]:
    """`doc` without empty event lists and an empty `hooks` object (they mean nothing)."""
    out = dict(doc)
    hooks = out.get("hooks")
    if isinstance(hooks, dict):
        kept = {k: v for k, v in hooks.items() if v != []}
        if kept:
            out["hooks"] = kept
        else:
            out.pop("hooks")
    return out


def with_hooks(
    doc: Mapping[str, Any], groups: Mapping[str, Sequence[dict[str, Any]]]
) -> dict[str, Any]:
    """`doc` with remgraph's previous handlers replaced by `groups` (event → matcher groups)."""
    out = strip_ours(doc)
    hooks = out.setdefault("hooks", {})
    for event, new in groups.items():
        hooks.setdefault(event, []).extend(copy.deepcopy(list(new)))
    return out


def load_json(path: Path) -> dict[str, Any]:
    """The JSON object in `path` ({} when the file does not exist or is empty)."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise SettingsFileError(f"{path}: not valid JSON ({e}); fix it first") from e
    return _check_shape(doc, path)


def dump_json(doc: Mapping[str, Any]) -> str:
    """JSON as the agents write it: two-space indent, key order kept, final newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# -- TOML (Codex config.toml) ---------------------------------------------------------------------

_TABLE = re.compile(r"^\s*\[")


def load_toml(text: str, path: Path) -> dict[str, Any]:
    """The TOML document in `text` (read from `path`, named in the error)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SettingsFileError(f"{path}: not valid TOML ({e}); fix it first") from e


def toml_without_ours(text: str) -> str:
    """`text` without the lines remgraph added (and a `[features]` header it added, if empty)."""
    lines = [ln for ln in text.splitlines(keepends=True) if not _ours_key(ln)]
    out: list[str] = []
    for i, ln in enumerate(lines):
        if ln.rstrip().endswith(TOML_MARK) and _TABLE.match(ln):
            rest = [x for x in lines[i + 1 :] if x.strip() and not x.lstrip().startswith("#")]
            if not rest or _TABLE.match(rest[0]):
                continue  # our header with nothing left under it
        out.append(ln)
    return "".join(out)


def _ours_key(line: str) -> bool:
    return line.rstrip().endswith(TOML_MARK) and not _TABLE.match(line)


def toml_set_top_level(text: str, key: str, value: str) -> str:
    """Add `key = value` (ours) before the first table; the key must not exist yet."""
    line = f"{key} = {value}  {TOML_MARK}\n"
    lines = text.splitlines(keepends=True)
    for i, ln in enumerate(lines):
        if _TABLE.match(ln):
            return "".join([*lines[:i], line, *lines[i:]])
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + line


def toml_set_in_table(text: str, table: str, key: str, value: str) -> str | None:
    """Add `key = value` (ours) under `[table]`, creating the table at the end when absent.

    Returns None when the table is defined in a way a line edit cannot extend safely (dotted keys
    or an inline table).
    """
    header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]\s*(#.*)?$")
    lines = text.splitlines(keepends=True)
    for i, ln in enumerate(lines):
        if header.match(ln.rstrip("\n")):
            return "".join([*lines[: i + 1], f"{key} = {value}  {TOML_MARK}\n", *lines[i + 1 :]])
    if re.search(rf"(?m)^\s*{re.escape(table)}\s*[.=]", text):
        return None
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + f"[{table}]  {TOML_MARK}\n{key} = {value}  {TOML_MARK}\n"


# -- planning and writing -------------------------------------------------------------------------


@dataclass(frozen=True)
class FileChange:
    """The new content of one file (`old` is None when the file does not exist yet)."""

    path: Path
    old: str | None
    new: str
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.new != (self.old or "")

    def diff(self) -> str:
        """A unified diff from the current content to the new one."""
        return "".join(
            difflib.unified_diff(
                (self.old or "").splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                fromfile=f"{self.path}" if self.old is not None else "/dev/null",
                tofile=f"{self.path}",
            )
        )


def read_text(path: Path) -> str | None:
    """The file's text, or None when it does not exist."""
    return path.read_text(encoding="utf-8") if path.exists() else None


def checked_json_change(
    path: Path, transform: Callable[[dict[str, Any]], dict[str, Any]], *notes: str
) -> FileChange:
    """A change of the JSON document in `path` that keeps every setting that is not ours."""
    old = read_text(path)
    doc = load_json(path)
    new_doc = transform(doc)
    if normalized(strip_ours(new_doc)) != normalized(strip_ours(doc)):
        raise SettingsFileError(f"{path}: the edit would change unrelated settings; nothing done")
    if old is not None and new_doc == doc:
        return FileChange(path, old, old, notes)
    if old is None and not new_doc:
        return FileChange(path, None, "", notes)
    return FileChange(path, old, dump_json(new_doc), notes)


def checked_toml_change(
    path: Path, old: str | None, new: str, ours: Sequence[tuple[str, ...]], *notes: str
) -> FileChange:
    """A TOML edit, refused unless the documents match outside the `ours` key paths."""
    before = load_toml(old or "", path)
    after = load_toml(new, path)
    if _drop(before, ours) != _drop(after, ours):
        raise SettingsFileError(f"{path}: the edit would change unrelated settings; nothing done")
    return FileChange(path, old, new, notes)


def _drop(doc: dict[str, Any], paths: Sequence[tuple[str, ...]]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for p in paths:
        node: Any = out
        for k in p[:-1]:
            node = node.get(k) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(p[-1], None)
    for p in paths:  # a table left empty by the drop counts as absent
        if len(p) > 1 and out.get(p[0]) == {}:
            out.pop(p[0])
    return out


def write_change(change: FileChange) -> Path | None:
    """Write `change` atomically; return the backup of the previous content (None if new)."""
    path = change.path
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    mode = 0o600
    if change.old is not None:
        mode = path.stat().st_mode & 0o777
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = path.with_name(f"{path.name}.remgraph-backup-{stamp}")
        backup.write_text(change.old, encoding="utf-8")
        backup.chmod(mode)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(change.new)
        Path(tmp).chmod(mode)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return backup
