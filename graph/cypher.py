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
- `rows:` `collected` on a read whose rows an engine should send as one row (the request path's
  small results, values only: no nodes or relationships): the Neo4j adapter runs
  `collected_text(query)`, one Bolt record instead of one per row; FalkorDB sends a whole result
  in one reply anyway
- `scope:` who may reach a query that takes neither `$project` nor `$projects`: `internal` (by id,
  ids from a project-scoped read, or a write of items one project's code built) or `admin`
  (operators' commands, never an API key); a query taking `$project`/`$projects` is `project`
- `knowledge:` `untouched` on a write that changes no knowledge item nor an edge between
  knowledge items or to their turns; every other write moves the knowledge clock
  (`knowledge_clock.bump` is put before its first clause; an autocommit one is followed by a bump)
- `why:` free text

A file whose header says `// fragment: yes` (with `params:` and optionally `returns:`, no `mode:`)
is not a query but a piece of one: a body line `// include: <aggregate>.<name>` splices it in at
load time, so dialect files hold only what differs. Includes nest; cycles, unknown names and
fragments under `dialect/` are refused, and every check runs on the composed text, which is the
text the engine receives (`Query.text`).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Literal, LiteralString, cast

from graph.errors import QueryFileError, UnknownQueryError

Scope = Literal["project", "internal", "admin"]
"""Who may reach a query (`Query.scope`)."""


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
    includes: tuple[str, ...] = ()
    """Fragments spliced into `text` (`// include:`), directly or through another fragment."""
    scope: Scope = "project"
    """`project` (takes `$project`/`$projects`), `internal` or `admin` (the `scope:` header)."""
    collected: bool = False
    """The `rows: collected` header: engines may send the rows as one row (`collected_text`)."""
    bumps_knowledge: bool = False
    """A write or autocommit query without `knowledge: untouched`: it moves the knowledge clock
    (a write by its composed text, an autocommit one by the adapter's bump after it)."""

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
_INCLUDE = re.compile(r"^\s*//\s*include\s*:\s*([A-Za-z0-9_.]*)\s*$")
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


def _split_list(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


@dataclass(frozen=True)
class Fragment:
    """A shared piece of Cypher (`// fragment: yes`) that queries splice in with `// include:`.

    Fragments live with the common queries (never under `dialect/`), so a query composes to the
    same text whichever dialect file includes it. `body` has its own includes already resolved.
    """

    name: str
    body: str
    params: frozenset[str]
    returns: tuple[str, ...]
    path: Path
    includes: tuple[str, ...] = ()
    """Every fragment spliced in, directly or through another fragment, in order of appearance."""


FragmentResolver = Callable[[str, str], Fragment]
"""`(fragment name, path of the including file) -> Fragment`; raises `QueryFileError`."""


def _read(path: Path) -> tuple[dict[str, str], list[str], list[str]]:
    """(header keys, header lines, body lines) of a file; the header ends at an include."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header: dict[str, str] = {}
    n = 0
    for line in lines:
        m = _HEADER.match(line.strip())
        if not m or _INCLUDE.match(line):
            break
        header[m.group(1).lower()] = m.group(2)
        n += 1
    return header, lines[:n], lines[n:]


def is_fragment(path: Path) -> bool:
    """Whether the file's header says `// fragment: yes`."""
    return _read(path)[0].get("fragment", "").lower() in {"yes", "true"}


def _expand(
    rel: str, body: list[str], resolve: FragmentResolver | None
) -> tuple[list[str], tuple[str, ...], list[Fragment]]:
    """`body` with every `// include: name` line replaced by that fragment's body.

    Returns the lines, every fragment name spliced in (transitively) and the direct fragments.
    """
    out: list[str] = []
    names: list[str] = []
    direct: list[Fragment] = []
    for line in body:
        m = _INCLUDE.match(line)
        if m is None:
            out.append(line)
            continue
        if resolve is None:
            raise QueryFileError(rel, "`// include:` needs the registry (load through `Registry`)")
        frag = resolve(m.group(1), rel)
        out.extend(frag.body.splitlines())
        names.extend((frag.name, *frag.includes))
        direct.append(frag)
    return out, tuple(dict.fromkeys(names)), direct


def _check_params(rel: str, declared: frozenset[str], body: str) -> None:
    used = frozenset(_PARAM.findall(body))
    if used != declared:
        raise QueryFileError(
            rel, f"declared params {sorted(declared)} differ from used {sorted(used)}"
        )


def _check_body(rel: str, mode: Mode | None, declared: frozenset[str], text: str) -> None:
    """The checks every statement or fragment passes once its includes are spliced in."""
    body = _strip_strings(_strip_comments(text))
    if not body.strip():
        raise QueryFileError(rel, "file has no statement")
    _check_params(rel, declared, body)
    if _TEMPLATE.search(body):
        raise QueryFileError(rel, "template placeholders are not allowed; use $parameters")
    if _IN_TX.search(body) and mode is not Mode.AUTOCOMMIT:
        raise QueryFileError(rel, "CALL { ... } IN TRANSACTIONS needs `mode: autocommit`")
    if mode is not Mode.SCHEMA and re.search(r"^\s*;\s*$", body, re.MULTILINE):
        raise QueryFileError(rel, "only schema files may hold several statements")


def _declared_params(rel: str, header: dict[str, str]) -> frozenset[str]:
    if "params" not in header:
        raise QueryFileError(rel, "header has no `// params:` line")
    return frozenset(_split_list(header["params"]))


def _mode(rel: str, header: dict[str, str]) -> Mode:
    if "mode" not in header:
        raise QueryFileError(rel, "header has no `// mode:` line")
    try:
        return Mode(header["mode"])
    except ValueError:
        raise QueryFileError(rel, f"unknown mode {header['mode']!r}") from None


def _returns(
    rel: str, mode: Mode, header: dict[str, str], direct: list[Fragment]
) -> tuple[str, ...]:
    """The declared columns, else those of the one included fragment that declares them.

    A query that declares columns and includes a fragment declaring others is refused: the
    fragment's `RETURN` is the query's.
    """
    own = tuple(_split_list(header.get("returns", "")))
    inherited = {f.returns for f in direct if f.returns}
    if len(inherited) > 1:
        raise QueryFileError(rel, "included fragments declare different `returns:` columns")
    if "returns" in header:
        if inherited and inherited != {own}:
            raise QueryFileError(rel, "`returns:` differs from the included fragment's columns")
        return own
    if inherited:
        return inherited.pop()
    if mode in (Mode.READ, Mode.WRITE):
        raise QueryFileError(rel, "header has no `// returns:` line")
    return ()


def parse_fragment(path: Path, name: str, resolve: FragmentResolver | None = None) -> Fragment:
    """Parse and check one fragment file (its own includes resolved through `resolve`)."""
    rel = str(path)
    header, _, body = _read(path)
    declared = _declared_params(rel, header)
    lines, includes, direct = _expand(rel, body, resolve)
    text = "\n".join(lines)
    _check_body(rel, None, declared, text)
    return Fragment(
        name=name,
        body=text,
        params=declared,
        returns=_returns(rel, Mode.AUTOCOMMIT, header, direct),
        path=path,
        includes=includes,
    )


def parse_file(
    path: Path, name: str, dialect: Dialect | None, resolve: FragmentResolver | None = None
) -> Query:
    """Parse and check one `.cypher` file, splicing in its `// include:` fragments.

    Every check runs on the composed text, which is what the engine receives; `params` must name
    every `$param` of the composed text, fragments' included.
    """
    rel = str(path)
    header, head, body = _read(path)
    mode = _mode(rel, header)
    declared = _declared_params(rel, header)
    lines, includes, direct = _expand(rel, body, resolve)
    composed = "\n".join([*head, *lines])
    _check_body(rel, mode, declared, composed)
    returns = _returns(rel, mode, header, direct)
    collected = _collected(rel, mode, header, returns)
    bumps = _bumps_knowledge(rel, mode, header, composed)
    if bumps and mode is Mode.WRITE:
        if resolve is None:
            raise QueryFileError(rel, "a write needs the registry for `knowledge_clock.bump`")
        bump = resolve(KNOWLEDGE_BUMP, rel).body.splitlines()
        lead = next((i for i, ln in enumerate(lines) if _strip_comments(ln).strip()), len(lines))
        composed = "\n".join([*head, *lines[:lead], *bump, *lines[lead:]])
        includes = (KNOWLEDGE_BUMP, *includes)
    # Safe: the text comes from files in this repository, never from user input. This is the one
    # place a plain str becomes a LiteralString for the drivers.
    text = cast(LiteralString, composed + "\n")
    return Query(
        name=name,
        text=text,
        mode=mode,
        params=declared,
        returns=returns,
        path=path,
        dialect=dialect,
        dialect_only=header.get("dialect-only", "").lower() in {"yes", "true"},
        includes=includes,
        scope=_scope(rel, header, declared, composed) if mode is not Mode.SCHEMA else "admin",
        collected=collected,
        bumps_knowledge=bumps,
    )


KNOWLEDGE_BUMP = "knowledge_clock.bump"
"""The fragment every write that may change knowledge starts with (`Query.bumps_knowledge`)."""

KNOWLEDGE_LABELS = frozenset(
    {"Correction", "Fact", "Lesson", "LessonVersion", "Primer", "ReferenceLayer", "Topic"}
)
"""Labels of the knowledge items the knowledge clock stands for."""

KNOWLEDGE_RELATIONSHIPS = frozenset(
    {
        "CONTRADICTS", "DERIVED_FROM", "DESCRIBES", "DUPLICATE_OF", "HAS_VERSION", "MENTIONS",
        "RELATED_TO", "SUMMARISES", "SUPERSEDES",
    }
)  # fmt: skip
"""Edges between knowledge items, or from them to their turns, that knowledge reads follow."""

_CLAUSE = re.compile(
    r"\b(ON\s+CREATE|ON\s+MATCH|OPTIONAL\s+MATCH|MATCH|MERGE|CREATE|SET|REMOVE|"
    r"DETACH\s+DELETE|DELETE|WITH|UNWIND|RETURN|WHERE|ORDER\s+BY|LIMIT|SKIP|CALL|FOREACH|UNION)\b",
    re.IGNORECASE,
)
_BOUND = re.compile(r"[(\[]\s*(\w+)\s*(:\s*\w+)?")
_TYPE = re.compile(r":\s*(\w+)")


def _clauses(body: str) -> list[tuple[str, str]]:
    """(keyword, text up to the next clause keyword) for each clause of `body`, upper case."""
    marks = list(_CLAUSE.finditer(body))
    return [
        (" ".join(m.group(1).upper().split()), body[m.end() : nxt.start() if nxt else len(body)])
        for m, nxt in zip(marks, [*marks[1:], None], strict=True)
    ]


def _bumps_knowledge(rel: str, mode: Mode, header: dict[str, str], text: str) -> bool:
    """Whether a query moves the knowledge clock: every write unless `knowledge: untouched`.

    `untouched` is refused on a write that creates or merges a knowledge item or edge
    (`KNOWLEDGE_LABELS`, `KNOWLEDGE_RELATIONSHIPS`), sets, removes or deletes a variable bound
    to a knowledge label, or deletes a variable bound without any label (it may be one).
    """
    value = header.get("knowledge")
    writes = mode in (Mode.WRITE, Mode.AUTOCOMMIT)
    if value is None:
        return writes
    if value != "untouched":
        raise QueryFileError(rel, f"`knowledge: {value}`: the only value is `untouched`")
    if not writes:
        raise QueryFileError(rel, "`knowledge: untouched` is for write and autocommit queries")
    body = _strip_strings(_strip_comments(text))
    labels: dict[str, set[str]] = {}
    for var, label in _BOUND.findall(body):
        labels.setdefault(var, set())
        if label:
            labels[var].add(label.lstrip(":").strip())
    knowledge_vars = {v for v, ls in labels.items() if ls & KNOWLEDGE_LABELS}
    for keyword, clause in _clauses(body):
        words = set(re.findall(r"\b\w+\b", clause))
        if keyword in ("CREATE", "MERGE"):
            named = set(_TYPE.findall(clause)) & (KNOWLEDGE_LABELS | KNOWLEDGE_RELATIONSHIPS)
            if named:
                raise QueryFileError(rel, f"`knowledge: untouched` but writes {sorted(named)}")
        elif keyword in ("SET", "REMOVE") and words & knowledge_vars:
            raise QueryFileError(rel, "`knowledge: untouched` but sets a knowledge item")
        elif keyword in ("DELETE", "DETACH DELETE"):
            unsure = {w for w in words if w in labels and not labels[w] - KNOWLEDGE_LABELS}
            if unsure:
                raise QueryFileError(
                    rel, f"`knowledge: untouched` but deletes {sorted(unsure)} (maybe knowledge)"
                )
    return False


def _collected(rel: str, mode: Mode, header: dict[str, str], returns: tuple[str, ...]) -> bool:
    """The `rows:` header: `collected` on a read with columns, else absent."""
    value = header.get("rows")
    if value is None:
        return False
    if value.lower() != "collected":
        raise QueryFileError(rel, f"`rows:` must be `collected`, got {value!r}")
    if mode is not Mode.READ or not returns:
        raise QueryFileError(rel, "`rows: collected` needs `mode: read` and `returns:` columns")
    return True


COLLECTED_COLUMN = "rows"
"""The one column of `collected_text`: a list holding each row's values in `returns` order."""


@cache
def collected_text(query: Query) -> LiteralString:
    """`query` returning its rows as one row: one Bolt message instead of one per row.

    The one column `rows` holds each row's values in `query.returns` order, in the query's row
    order. Per-message handling is most of the Neo4j driver's cost on a request that reads a few
    hundred rows.
    """
    if not query.collected:
        raise ValueError(f"{query.name}: the header does not say `rows: collected`")
    cols = ", ".join(f"`{c}`" for c in query.returns)
    # Safe: the columns come from the query file's checked header, never from user input.
    return cast(
        LiteralString,
        f"CALL () {{\n{query.text}}}\nRETURN collect([{cols}]) AS {COLLECTED_COLUMN}\n",
    )


SCOPES: tuple[Scope, ...] = ("project", "internal", "admin")

PROJECT_LABELS = frozenset(
    {
        "Backlog", "Community", "CommunityRun", "ContextQuery", "Correction", "Fact", "Finding",
        "JobRun", "Lesson", "LessonVersion", "Primer", "Project", "ProjectSnapshot",
        "ReferenceLayer", "RemAction", "RemState", "Session", "SourceFile", "Topic", "TopicBrief",
        "Turn",
    }
)  # fmt: skip
"""Labels whose nodes belong to one project: a query touching them is scoped or says why not."""

_LABEL = re.compile(r"\(\s*\w*\s*:\s*(\w+)")


def _scope(rel: str, header: dict[str, str], declared: frozenset[str], text: str) -> Scope:
    """The `scope:` header; `project` exactly when the query takes `$project` or `$projects`.

    A query that touches a project's nodes without taking the project must say who reaches it.
    """
    scoped = bool(declared & {"project", "projects"})
    value = header.get("scope", "project" if scoped else "")
    if not value:
        owned = sorted(set(_LABEL.findall(_strip_comments(text))) & PROJECT_LABELS)
        if owned:
            raise QueryFileError(
                rel,
                f"touches project-owned {', '.join(owned)} without `$project`/`$projects`: "
                "filter by project, or declare `// scope: internal` or `// scope: admin`",
            )
        value = "internal"
    if value not in SCOPES:
        raise QueryFileError(rel, f"`// scope: {value}`: expected one of {', '.join(SCOPES)}")
    if (value == "project") != scoped:
        raise QueryFileError(
            rel, "`scope: project` means the query takes `$project` or `$projects`, and only that"
        )
    return cast(Scope, value)


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
        self._fragment_paths: dict[str, Path] = {}
        self._fragments: dict[str, Fragment] = {}
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        if not self.root.is_dir():
            raise QueryFileError(str(self.root), "cypher folder not found")
        queries: list[tuple[Path, str, Dialect | None]] = []
        for path in sorted(self.root.rglob("*.cypher")):
            rel = path.relative_to(self.root)
            if rel.parts[0] == "browser":
                continue  # Neo4j Browser guides are documentation, run by their own test
            in_dialect = rel.parts[0] == "dialect"
            name = _name_for(Path(*rel.parts[2:]) if in_dialect else rel)
            if is_fragment(path):
                if in_dialect:
                    raise QueryFileError(str(path), "fragments are shared: move it out of dialect/")
                self._fragment_paths[name] = path
            else:
                queries.append((path, name, Dialect(rel.parts[1]) if in_dialect else None))
        for name in self._fragment_paths:
            self._fragment(name, str(self._fragment_paths[name]), ())
        for path, name, dialect in queries:
            q = parse_file(path, name, dialect, self._resolve)
            if dialect is None:
                self._common[name] = q
            else:
                self._dialect[dialect][name] = q
        self._loaded = True

    def _resolve(self, name: str, including: str) -> Fragment:
        return self._fragment(name, including, ())

    def _fragment(self, name: str, including: str, stack: tuple[str, ...]) -> Fragment:
        """The fragment `name`, its own includes resolved; refuses unknown names and cycles."""
        if name in self._fragments:
            return self._fragments[name]
        if name in stack:
            raise QueryFileError(including, f"include cycle: {' -> '.join((*stack, name))}")
        path = self._fragment_paths.get(name)
        if path is None:
            close = difflib.get_close_matches(name, list(self._fragment_paths), n=3)
            raise QueryFileError(including, f"includes unknown fragment {name!r} (close: {close})")
        frag = parse_fragment(path, name, lambda n, inc: self._fragment(n, inc, (*stack, name)))
        self._fragments[name] = frag
        return frag

    def fragments(self) -> list[Fragment]:
        """Every fragment (`// fragment: yes`), by name."""
        self._load()
        return [self._fragments[n] for n in sorted(self._fragments)]

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
