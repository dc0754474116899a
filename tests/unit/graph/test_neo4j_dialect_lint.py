"""Every Neo4j-dialect query and Browser guide passes Neo4j's own Cypher front end, serverless.

No Neo4j server runs on these machines, so the contract suite's Neo4j leg skips here. This test
closes most of that gap: `tools/cypher-lint/lint.mjs` runs `@neo4j-cypher/language-support` (Neo4j's
Cypher 5 parser and semantic analysis compiled to JavaScript) over every query
`registry().names(Dialect.NEO4J)` resolves to, each schema statement, and `cypher/browser/*.cypher`,
in one `node` call. It checks syntax, undefined variables, aliasing and aggregation rules, procedure
and function names and signatures (Neo4j 5.26 catalogue, no APOC/GDS), `$parameters` against the
header, deprecations, and labels or relationship types that no query ever writes.

Install the linter with `npm ci --prefix tools/cypher-lint` (`make lint-cypher` does it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graph.cypher import Dialect, registry

ROOT = Path(__file__).resolve().parents[3]
LINTER = ROOT / "tools" / "cypher-lint"
BROWSER = ROOT / "cypher" / "browser"

# Statements that Neo4j must reject: if the linter stops reporting these, it checks nothing.
_CONTROLS: dict[str, tuple[str, list[str], str]] = {
    "selftest.unaliased_with": ("MATCH (n:Turn) WITH n.id RETURN 1 AS x", [], "must be aliased"),
    "selftest.undefined_variable": ("MATCH (n:Turn) RETURN m AS m", [], "`m` not defined"),
    "selftest.falkordb_procedure": (
        "CALL db.idx.fulltext.queryNodes('Turn', $q) YIELD node, score\n"
        "RETURN node.id AS id, score AS score",
        ["q"],
        "Procedure db.idx.fulltext.queryNodes is not present",
    ),
    "selftest.falkordb_function": (
        "MATCH (n:Turn) SET n.embedding = vecf32($v) RETURN n.id AS id",
        ["v"],
        "Function vecf32 is not present",
    ),
    "selftest.apoc": (
        "RETURN apoc.coll.sum([1, 2]) AS s",
        [],
        "Function apoc.coll.sum is not present",
    ),
    "selftest.signature": (
        "CALL db.index.vector.queryNodes('turn_embedding', $k) YIELD node RETURN node.id AS id",
        ["k"],
        "expected at least 3",
    ),
    "selftest.yield": (
        "CALL db.index.fulltext.queryNodes('turn_text', $q) YIELD nod RETURN nod AS n",
        ["q"],
        "Unknown procedure output: `nod`",
    ),
    "selftest.undeclared_param": ("MATCH (n:Turn {id: $id}) RETURN n.id AS id", [], "$id"),
    "selftest.ddl": (
        "CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (n:Turn) REQUIRE n.id IS UNIQUEE",
        [],
        "Invalid input 'UNIQUEE'",
    ),
    "selftest.unwritten_label": (
        "MATCH (n:Trun) RETURN n.id AS id",
        [],
        "Trun is not present in the database",
    ),
}

# Warnings accepted on purpose: (query name, message fragment) -> why it is fine.
_ACCEPTED_WARNINGS: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Item:
    """One statement sent to the linter, and where it comes from."""

    name: str
    text: str
    params: list[str]
    path: Path | None
    line_offset: int


def _split(text: str) -> list[tuple[str, int]]:
    """Statements of a file at lines holding only `;`, each with its first line's offset."""
    parts: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for i, line in enumerate(text.splitlines()):
        if line.strip() == ";":
            parts.append(("\n".join(current), start))
            current, start = [], i + 1
        else:
            current.append(line)
    parts.append(("\n".join(current), start))
    return [(t, o) for t, o in parts if re.sub(r"//[^\n]*", "", t).strip()]


def _header_params(text: str) -> list[str]:
    for line in text.splitlines():
        m = re.match(r"^\s*//\s*params\s*:(.*)$", line)
        if m:
            return [p.strip() for p in m.group(1).split(",") if p.strip()]
        if not line.lstrip().startswith("//"):
            break
    return []


def _items() -> list[Item]:
    reg = registry()
    items: list[Item] = []
    for name in reg.names(Dialect.NEO4J):
        q = reg.get(name, Dialect.NEO4J)
        parts = _split(q.text)
        for i, (text, offset) in enumerate(parts):
            label = name if len(parts) == 1 else f"{name}#{i + 1}"
            items.append(Item(label, text, sorted(q.params), q.path, offset))
    for path in sorted(BROWSER.glob("*.cypher")):
        raw = path.read_text(encoding="utf-8")
        parts = _split(raw)
        for i, (text, offset) in enumerate(parts):
            label = f"browser.{path.stem}" + ("" if len(parts) == 1 else f"#{i + 1}")
            items.append(Item(label, text, _header_params(raw), path, offset))
    return items


_CLAUSE_END = re.compile(
    r"\b(?:OPTIONAL|MATCH|WITH|RETURN|SET|ON|UNWIND|WHERE|MERGE|CREATE|CALL|FOREACH|DELETE|"
    r"DETACH|REMOVE|ORDER|LIMIT|UNION|YIELD)\b|[{}]"
)
_WRITE = re.compile(
    r"\b(?:MERGE|CREATE)\b(?!\s+(?:CONSTRAINT|INDEX|FULLTEXT|VECTOR|RANGE|TEXT|OR))"
)


def _code(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", text)


def written_schema() -> tuple[set[str], set[str]]:
    """Labels with a uniqueness constraint or written by some query, and relationship types some
    query writes: a label or type read but in neither set is a typo or a dead read."""
    reg = registry()
    labels = set(
        re.findall(
            r"FOR\s*\(\s*\w+\s*:\s*(\w+)\s*\)",
            reg.get("schema.0001_constraints", Dialect.NEO4J).text,
        )
    )
    types: set[str] = set()
    for name in reg.names(Dialect.NEO4J):
        if name.startswith("schema."):
            continue
        code = _code(reg.get(name, Dialect.NEO4J).text)
        for m in _WRITE.finditer(code):
            end = _CLAUSE_END.search(code, m.end())
            clause = code[m.end() : end.start() if end else len(code)]
            for group in re.findall(r"\(\s*\w*\s*((?::\s*\w+\s*)+)", clause):
                labels.update(re.findall(r"\w+", group))
            types.update(re.findall(r"\[\s*\w*\s*:\s*(\w+)", clause))
        for m in re.finditer(r"\bSET\s+\w+((?:\s*:\s*\w+)+)", code):
            labels.update(re.findall(r"\w+", m.group(1)))
    return labels, types


@pytest.fixture(scope="module")
def lint() -> dict[str, tuple[Item | None, list[dict[str, Any]]]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("`node` is not on PATH: the Neo4j Cypher linter needs Node.js >= 20")
    if not (LINTER / "node_modules" / "@neo4j-cypher" / "language-support").is_dir():
        pytest.skip(
            "tools/cypher-lint/node_modules is missing: run `npm ci --prefix tools/cypher-lint`"
        )
    items = _items()
    payload = [{"name": i.name, "text": i.text, "params": i.params} for i in items]
    payload += [{"name": n, "text": t, "params": p} for n, (t, p, _) in _CONTROLS.items()]
    labels, types = written_schema()
    proc = subprocess.run(
        [
            node,
            str(LINTER / "lint.mjs"),
            "--labels=" + ",".join(sorted(labels)),
            "--rel-types=" + ",".join(sorted(types)),
        ],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert proc.returncode in (0, 1), f"linter failed ({proc.returncode}): {proc.stderr}"
    results = json.loads(proc.stdout)
    by_name = {i.name: i for i in items}
    return {r["name"]: (by_name.get(r["name"]), r["diagnostics"]) for r in results}


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _where(item: Item | None, name: str, d: dict[str, Any]) -> str:
    if item is None or item.path is None:
        return f"{name}:{d['line']}:{d['column']}"
    return f"{_rel(item.path)}:{d['line'] + item.line_offset}:{d['column']} ({name})"


def _report(
    lint: dict[str, tuple[Item | None, list[dict[str, Any]]]], severity: str, browser: bool
) -> list[str]:
    out = []
    for name, (item, diagnostics) in lint.items():
        if name.startswith("selftest.") or name.startswith("browser.") != browser:
            continue
        for d in diagnostics:
            if d["severity"] != severity:
                continue
            if any(n == name.split("#")[0] and f in d["message"] for n, f in _ACCEPTED_WARNINGS):
                continue
            out.append(f"{_where(item, name, d)}: {d['message']}")
    return out


def test_linter_reports_what_neo4j_rejects(lint: dict[str, Any]) -> None:
    missed = []
    for name, (_, _, fragment) in _CONTROLS.items():
        messages = [d["message"] for d in lint[name][1]]
        if not any(fragment in m for m in messages):
            missed.append(f"{name}: expected {fragment!r}, got {messages}")
    assert missed == [], "the linter no longer catches these:\n" + "\n".join(missed)


def test_every_neo4j_dialect_query_is_checked(lint: dict[str, Any]) -> None:
    names = {n.split("#")[0] for n in lint if not n.startswith(("selftest.", "browser."))}
    assert names == set(registry().names(Dialect.NEO4J))


def test_neo4j_dialect_queries_have_no_errors(lint: dict[str, Any]) -> None:
    errors = _report(lint, "error", browser=False)
    assert errors == [], "Neo4j rejects:\n" + "\n".join(errors)


def test_neo4j_dialect_queries_have_no_warnings(lint: dict[str, Any]) -> None:
    # Deprecations fail on Cypher 25; shadowing and unwritten labels/types are bugs. Accept one
    # on purpose in _ACCEPTED_WARNINGS with the reason.
    warnings = _report(lint, "warning", browser=False)
    assert warnings == [], "Neo4j warns:\n" + "\n".join(warnings)


def test_browser_guides_have_no_errors_or_warnings(lint: dict[str, Any]) -> None:
    assert any(n.startswith("browser.") for n in lint), "no Browser guides found"
    problems = _report(lint, "error", browser=True) + _report(lint, "warning", browser=True)
    assert problems == [], "Neo4j Browser would report:\n" + "\n".join(problems)


def test_index_procedures_name_indexes_the_migrations_create() -> None:
    # The linter knows the procedures but not the database's indexes: a misspelt index name only
    # fails on a live Neo4j. Every name passed to db.index.<kind>.query* must be created, as that
    # kind, by a Neo4j schema migration.
    reg = registry()
    created: dict[str, str] = {}
    for q in reg.migrations(Dialect.NEO4J):
        for kind, name in re.findall(r"\bCREATE\s+(?:(\w+)\s+)?INDEX\s+(\w+)", _code(q.text)):
            created[name] = kind.lower() or "range"
    assert {"fulltext", "vector"} <= set(created.values()), created
    sources = [
        (reg.get(n, Dialect.NEO4J).path, reg.get(n, Dialect.NEO4J).text)
        for n in reg.names(Dialect.NEO4J)
    ]
    sources += [(p, p.read_text(encoding="utf-8")) for p in sorted(BROWSER.glob("*.cypher"))]
    calls = 0
    bad = []
    for path, text in sources:
        for kind, name in re.findall(
            r"\bdb\.index\.(fulltext|vector)\.query\w+\(\s*'(\w+)'", re.sub(r"//[^\n]*", "", text)
        ):
            calls += 1
            if created.get(name) != kind:
                bad.append(f"{_rel(path)}: no {kind} index {name!r} in the migrations")
    assert calls > 0, "no index procedure calls found: the pattern is stale"
    assert bad == []
