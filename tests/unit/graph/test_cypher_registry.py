"""Every `.cypher` file is checked without an engine: it loads, its header is right, each name
resolves for both dialects, overrides are legitimate and every query is used by some code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graph.cypher import Dialect, Mode, Registry, cypher_dir, parse_file, registry
from graph.errors import QueryFileError, UnknownQueryError

ROOT = Path(__file__).resolve().parents[3]
SOURCE_PACKAGES = (
    "core",
    "graph",
    "ai",
    "knowledge",
    "recall",
    "api",
    "ingest",
    "consolidate",
    "remgraph",
)
_Q_CALL = re.compile(r"""\bQ\(\s*["']([A-Za-z0-9_.]+)["']\s*\)""")


def referenced_in_sources() -> dict[str, list[str]]:
    """Query name -> files that reference it with a literal `Q("...")`."""
    found: dict[str, list[str]] = {}
    for pkg in SOURCE_PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for name in _Q_CALL.findall(path.read_text(encoding="utf-8")):
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


@pytest.fixture(scope="module")
def reg() -> Registry:
    return registry()


def test_every_file_loads_with_a_valid_header(reg: Registry) -> None:
    names = reg.all_names()
    assert names, "no queries found"
    for d in Dialect:
        for name in reg.names(d):
            q = reg.get(name, d)
            assert q.mode in Mode
            if q.mode in (Mode.READ, Mode.WRITE):
                assert q.returns, f"{q.path}: read/write queries declare their columns"
            if q.mode is Mode.SCHEMA:
                assert name.startswith("schema."), f"{q.path}: schema files live in schema/"
            else:
                assert not name.startswith("schema."), f"{q.path}: schema/ holds only DDL"


def test_declared_params_equal_used_params() -> None:
    # parse_file enforces this; re-parse every file so a loader change cannot hide a mismatch
    root = cypher_dir()
    for path in sorted(root.rglob("*.cypher")):
        rel = path.relative_to(root)
        if rel.parts[0] == "browser":
            continue
        q = parse_file(path, "x", None)
        body = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8"))
        body = re.sub(r"'(?:\\.|[^'\\])*'", "''", body)
        assert set(re.findall(r"\$([A-Za-z_]\w*)", body)) == set(q.params), str(rel)


def test_every_name_resolves_for_both_dialects(reg: Registry) -> None:
    missing = [
        f"{name} ({d})" for name in reg.all_names() for d in Dialect if name not in reg.names(d)
    ]
    assert missing == [], "dialect-only queries need a file in every dialect"


def test_every_override_has_a_common_counterpart_or_is_dialect_only(reg: Registry) -> None:
    common = {q.name for q in reg.common()}
    bad = []
    for q in reg.overrides():
        if q.dialect_only and q.name in common:
            bad.append(f"{q.path}: says dialect-only but {q.name} has a portable file")
        if not q.dialect_only and q.name not in common:
            bad.append(f"{q.path}: no portable {q.name}; add `// dialect-only: yes`")
        base = reg.get(q.name, Dialect.NEO4J if q.dialect is Dialect.FALKORDB else Dialect.FALKORDB)
        if q.mode is not base.mode or q.params != base.params or q.returns != base.returns:
            bad.append(f"{q.path}: mode/params/returns differ from the other dialect's {q.name}")
    assert bad == []


def test_every_query_is_referenced_by_code(reg: Registry) -> None:
    used = referenced_in_sources()
    dead = [n for n in reg.all_names() if not n.startswith("schema.") and n not in used]
    assert dead == [], f"queries no code references with Q(...): {dead}"


def test_every_referenced_name_exists(reg: Registry) -> None:
    unknown = {
        name: files
        for name, files in referenced_in_sources().items()
        if name not in reg.all_names()
    }
    assert unknown == {}


def test_schema_migrations_are_numbered_and_ordered(reg: Registry) -> None:
    for d in Dialect:
        ids = [q.name.removeprefix("schema.") for q in reg.migrations(d)]
        assert ids == sorted(ids)
        assert all(re.fullmatch(r"\d{4}_[a-z0-9_]+", i) for i in ids), ids
        assert {"0001_constraints", "0002_indexes", "0003_fulltext", "0004_vector"} <= set(ids)


def test_every_label_has_an_id_constraint(reg: Registry) -> None:
    labels = {
        "Project", "Session", "Turn", "Topic", "Lesson", "LessonVersion", "Correction", "Fact",
        "Community", "CommunityRun", "Primer", "ReferenceLayer", "JobRun", "Finding", "RemState",
        "ApiKey", "ProjectSnapshot", "SchemaMigration",
    }  # fmt: skip
    for d in Dialect:
        text = reg.get("schema.0001_constraints", d).text
        constrained = set(re.findall(r"FOR \(n:(\w+)\) REQUIRE n\.id IS UNIQUE", text))
        assert constrained >= labels, (d, labels - constrained)
        if d is Dialect.FALKORDB:
            indexed = set(re.findall(r"CREATE INDEX FOR \(n:(\w+)\) ON \(n\.id\)", text))
            assert indexed >= constrained, "FalkorDB needs the id index before the constraint"


# --- the checks themselves fail on bad files ----------------------------------------------------


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("// params: a\n// returns: x\nRETURN $a AS x\n", "mode"),
        ("// mode: read\n// params: a\n// returns: x\nRETURN $b AS x\n", "declared params"),
        ("// mode: read\n// returns: x\nRETURN 1 AS x\n", "params"),
        ("// mode: read\n// params:\nRETURN 1 AS x\n", "returns"),
        (
            "// mode: write\n// params:\n// returns:\nCALL { RETURN 1 } IN TRANSACTIONS\n",
            "autocommit",
        ),
        ("// mode: read\n// params:\n// returns: x\nRETURN {{x}} AS x\n", "template"),
        ("// mode: bogus\n// params:\n// returns: x\nRETURN 1 AS x\n", "unknown mode"),
    ],
)
def test_bad_files_are_refused(tmp_path: Path, text: str, reason: str) -> None:
    _write(tmp_path, "thing/get.cypher", text)
    with pytest.raises(QueryFileError, match=reason):
        Registry(tmp_path).get("thing.get", Dialect.NEO4J)


def test_dialect_file_wins_and_unknown_names_suggest(tmp_path: Path) -> None:
    common = "// mode: read\n// params:\n// returns: x\nRETURN 1 AS x\n"
    _write(tmp_path, "thing/get.cypher", common)
    _write(tmp_path, "dialect/falkordb/thing/get.cypher", common.replace("1 AS", "2 AS"))
    reg = Registry(tmp_path)
    assert "2 AS" in reg.get("thing.get", Dialect.FALKORDB).text
    assert "1 AS" in reg.get("thing.get", Dialect.NEO4J).text
    with pytest.raises(UnknownQueryError, match=r"thing\.get"):
        reg.get("thing.gett", Dialect.NEO4J)
