"""The Cypher query registry: every query the service runs is a named `.cypher` file.

Layout (see `cypher/README.md`): `cypher/<aggregate>/<method>.cypher` is the portable text of the
query `<aggregate>.<method>`; `cypher/dialect/<dialect>/<aggregate>/<method>.cypher` overrides it
for one engine. Schema migrations live in `cypher/schema/NNNN_<what>.cypher` (and the dialect
folders).

Each file starts with a header of `// key: value` lines:

- `mode:` `read` | `write` | `autocommit` | `schema` (required)
- `params:` comma-separated parameter names, exactly the `$names` the body uses (required, may be
  empty)
- `returns:` comma-separated column names the body returns (required for read/write, may be empty)
- `dialect-only:` `yes` in a dialect file that has no portable counterpart
- `why:` free text
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import LiteralString, cast

from graph.errors import QueryFileError, UnknownQueryError


class Mode(StrEnum):
    """How a query runs: in a read or write transaction, in autocommit, or as schema DDL."""

    READ = "read"
    WRITE = "write"
    AUTOCOMMIT = "autocommit"
    SCHEMA = "schema"


class Dialect(StrEnum):
    """Cypher dialects remgraph speaks."""

    NEO4J = "neo4j"
    FALKORDB = "falkordb"


@dataclass(frozen=True)
class Query:
    """One loaded `.cypher` file."""

    name: str
    text: LiteralString
    mode: Mode
    params: frozenset[str]
    returns: tuple[str, ...]
    path: Path
    dialect: Dialect | None = None
    dialect_only: bool = False

    def statements(self) -> list[LiteralString]:
        """Split a schema file into statements at lines holding only `;`."""
        parts: list[str] = []
        current: list[str] = []
        for line in self.text.splitlines():
            if line.strip() == ";":
                parts.append("\n".join(current))
                current = []
            else:
                current.append(line)
        parts.append("\n".join(current))
        return [cast(LiteralString, p.strip()) for p in parts if _strip_comments(p).strip()]


@dataclass(frozen=True)
class QueryRef:
    """A lazily resolved reference to a query by name; repositories hold these as constants."""

    name: str


def Q(name: str) -> QueryRef:  # noqa: N802 - reads like a constructor, by design
    """Reference the query `name`; resolution happens per engine dialect at first use."""
    return QueryRef(name)


_HEADER = re.compile(r"^//\s*([a-zA-Z\-]+)\s*:\s*(.*?)\s*$")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_TEMPLATE = re.compile(r"\{\{\s*[\w.]+\s*\}\}|\{%|%s|%\(\w+\)s|\{[a-z_]+\}")
_IN_TX = re.compile(r"\bIN\s+TRANSACTIONS\b", re.IGNORECASE)
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _strip_comments(text: str) -> str:
    """Remove `//` comments that are not inside string literals."""
    out: list[str] = []
    for line in text.splitlines():
        quote: str | None = None
        i = 0
        cut = len(line)
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = None
            elif ch in "'\"`":
                quote = ch
            elif line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def _strip_strings(text: str) -> str:
    return re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", text)


def _header(raw: str) -> dict[str, str]:
    """The leading `// key: value` lines of a file (keys lower-cased)."""
    header: dict[str, str] = {}
    for line in raw.splitlines():
        m = _HEADER.match(line.strip())
        if not m:
            break
        header[m.group(1).lower()] = m.group(2)
    return header


def _mode(header: dict[str, str], rel: str) -> Mode:
    if "mode" not in header:
        raise QueryFileError(rel, "header has no `// mode:` line")
    try:
        return Mode(header["mode"])
    except ValueError:
        raise QueryFileError(rel, f"unknown mode {header['mode']!r}") from None


def _names(value: str) -> list[str]:
    return [x.strip() for x in value.split(",") if x.strip()]


def _check_body(body: str, declared: frozenset[str], mode: Mode, rel: str) -> None:
    """The statement uses exactly the declared parameters and nothing a loader must refuse."""
    if not body.strip():
        raise QueryFileError(rel, "file has no statement")
    used = frozenset(_PARAM.findall(body))
    if used != declared:
        raise QueryFileError(
            rel,
            f"declared params {sorted(declared)} differ from used {sorted(used)}",
        )
    if _TEMPLATE.search(body):
        raise QueryFileError(rel, "template placeholders are not allowed; use $parameters")
    if _IN_TX.search(body) and mode is not Mode.AUTOCOMMIT:
        raise QueryFileError(rel, "CALL { ... } IN TRANSACTIONS needs `mode: autocommit`")
    if mode is not Mode.SCHEMA and re.search(r"^\s*;\s*$", body, re.MULTILINE):
        raise QueryFileError(rel, "only schema files may hold several statements")


def parse_file(path: Path, name: str, dialect: Dialect | None) -> Query:
    """Parse and check one `.cypher` file."""
    raw = path.read_text(encoding="utf-8")
    header = _header(raw)
    rel = str(path)
    mode = _mode(header, rel)
    if "params" not in header:
        raise QueryFileError(rel, "header has no `// params:` line")
    declared = frozenset(_names(header["params"]))
    if mode in (Mode.READ, Mode.WRITE) and "returns" not in header:
        raise QueryFileError(rel, "header has no `// returns:` line")
    _check_body(_strip_strings(_strip_comments(raw)), declared, mode, rel)
    # Safe: the text comes from files in this repository, never from user input. This is the one
    # place a plain str becomes a LiteralString for the drivers.
    text = cast(LiteralString, raw)
    return Query(
        name=name,
        text=text,
        mode=mode,
        params=declared,
        returns=tuple(_names(header.get("returns", ""))),
        path=path,
        dialect=dialect,
        dialect_only=header.get("dialect-only", "").lower() in {"yes", "true"},
    )


def cypher_dir() -> Path:
    """The `cypher/` folder: `$REMGRAPH_CYPHER_DIR`, else the sibling of the `graph` package."""
    env = os.environ.get("REMGRAPH_CYPHER_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "cypher"


def _name_for(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    for p in parts:
        if not _NAME.match(p) and not re.match(r"^\d{4}_[a-z0-9_]+$", p):
            raise QueryFileError(str(rel), f"path part {p!r} is not snake_case")
    return ".".join(parts)


class Registry:
    """All queries under one `cypher/` folder, indexed by name and dialect."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._common: dict[str, Query] = {}
        self._dialect: dict[Dialect, dict[str, Query]] = {d: {} for d in Dialect}
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        if not self.root.is_dir():
            raise QueryFileError(str(self.root), "cypher folder not found")
        dialect_root = self.root / "dialect"
        for path in sorted(self.root.rglob("*.cypher")):
            rel = path.relative_to(self.root)
            if rel.parts[0] == "dialect":
                d = Dialect(rel.parts[1])
                name = _name_for(Path(*rel.parts[2:]))
                self._dialect[d][name] = parse_file(path, name, d)
            elif rel.parts[0] == "browser":
                continue  # Neo4j Browser guides are documentation, run by their own test
            else:
                name = _name_for(rel)
                self._common[name] = parse_file(path, name, None)
        del dialect_root
        self._loaded = True

    def names(self, dialect: Dialect) -> list[str]:
        """Every query name that resolves for `dialect`."""
        self._load()
        return sorted(set(self._common) | set(self._dialect[dialect]))

    def all_names(self) -> list[str]:
        """Every query name in any dialect."""
        self._load()
        names = set(self._common)
        for d in Dialect:
            names |= set(self._dialect[d])
        return sorted(names)

    def get(self, name: str, dialect: Dialect) -> Query:
        """The query `name` for `dialect`: the dialect file if there is one, else the common one."""
        self._load()
        q = self._dialect[dialect].get(name) or self._common.get(name)
        if q is None:
            close = difflib.get_close_matches(name, self.all_names(), n=3)
            raise UnknownQueryError(name, close)
        return q

    def overrides(self) -> Iterable[Query]:
        """Every dialect-specific file."""
        self._load()
        for d in Dialect:
            yield from self._dialect[d].values()

    def common(self) -> Iterable[Query]:
        """Every portable file."""
        self._load()
        yield from self._common.values()

    def migrations(self, dialect: Dialect) -> list[Query]:
        """Schema files for `dialect`, in order of their number."""
        return [self.get(n, dialect) for n in self.names(dialect) if n.startswith("schema.")]


@cache
def registry() -> Registry:
    """The process-wide registry over `cypher_dir()`."""
    return Registry(cypher_dir())
