"""Every `.cypher` file is checked without an engine: it loads, its header is right, each name
resolves for both dialects, overrides are legitimate and every query is used by some code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graph.cypher import (
    COLLECTED_COLUMN,
    Dialect,
    Mode,
    QueryRef,
    Registry,
    collected_text,
    cypher_dir,
    parse_file,
    registry,
)
from graph.db import resolve
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


def _q_name(node: ast.AST) -> str | None:
    """The literal query name of a `Q("...")` call, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Q"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _targets(stmt: ast.stmt) -> set[str]:
    """Names a module-level assignment binds."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target]
    else:
        return set()
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def queries_in_module(source: str) -> tuple[set[str], set[str]]:
    """(used, unused) query names of one module.

    A `Q("...")` inside a function or class body is used where it stands. A module-level constant
    (`_GET = Q("x.get")`, or a table of them) is used only when the module reads the name it is
    bound to somewhere else; a text mention, or a constant nothing reads, does not count.
    """
    tree = ast.parse(source)
    loads: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
    used: set[str] = set()
    unused: set[str] = set()
    for stmt in tree.body:
        names = [n for n in (_q_name(x) for x in ast.walk(stmt)) if n is not None]
        if not names:
            continue
        bound = _targets(stmt)
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and bound:
            value = stmt.value if stmt.value is not None else ast.Constant(None)
            own = {x.id for x in ast.walk(value) if isinstance(x, ast.Name)}
            read = any(loads.get(b, 0) - (b in own) > 0 for b in bound)
            (used if read else unused).update(names)
        else:
            used.update(names)
    return used, unused


def referenced_in_sources() -> dict[str, list[str]]:
    """Query name -> files that really use it through a `Q("...")` constant."""
    found: dict[str, list[str]] = {}
    for pkg in SOURCE_PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            used, _ = queries_in_module(path.read_text(encoding="utf-8"))
            for name in used:
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


def _used_params(text: str) -> set[str]:
    body = re.sub(r"//[^\n]*", "", text)
    body = re.sub(r"'(?:\\.|[^'\\])*'", "''", body)
    return set(re.findall(r"\$([A-Za-z_]\w*)", body))


def test_declared_params_equal_used_params(reg: Registry) -> None:
    # the loader enforces this; recount here so a loader change cannot hide a mismatch. Queries
    # are counted on their composed text (what the engine receives), fragments on their body.
    for d in Dialect:
        for name in reg.names(d):
            q = reg.get(name, d)
            assert _used_params(q.text) == set(q.params), str(q.path)
    for f in reg.fragments():
        assert _used_params(f.body) == set(f.params), str(f.path)


def test_files_without_includes_load_as_they_are_written(reg: Registry) -> None:
    for d in Dialect:
        for name in reg.names(d):
            q = reg.get(name, d)
            if not q.includes:
                assert q.text == q.path.read_text(encoding="utf-8"), str(q.path)


def test_composed_text_is_what_the_engine_runs(reg: Registry) -> None:
    for d in Dialect:
        for name in reg.names(d):
            q = reg.get(name, d)
            ran = resolve(QueryRef(name), d, q.mode)
            assert ran.text == q.text
            assert not re.search(r"^\s*//\s*include\s*:", ran.text, re.MULTILINE), q.path
            fragments = {f.name: f for f in reg.fragments()}
            for name in q.includes:
                assert fragments[name].body in ran.text, f"{q.path}: {name} not spliced in"


def test_every_fragment_is_included_and_shared(reg: Registry) -> None:
    included = {i for d in Dialect for n in reg.names(d) for i in reg.get(n, d).includes}
    unused = [f.name for f in reg.fragments() if f.name not in included]
    assert unused == [], f"fragments no query includes: {unused}"
    for f in reg.fragments():
        assert "dialect" not in f.path.relative_to(cypher_dir()).parts


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


@pytest.mark.parametrize(
    ("source", "used", "unused"),
    [
        ('_GET = Q("a.get")\n\ndef get(db):\n    return db.read(_GET)\n', {"a.get"}, set()),
        ('_GET = Q("a.get")\n', set(), {"a.get"}),
        ('_GET = Q("a.get")  # mentioned: _GET\n"_GET"\n', set(), {"a.get"}),
        (
            '_T = {"x": Q("a.x"), "y": Q("a.y")}\n\ndef f(k):\n    return _T[k]\n',
            {"a.x", "a.y"},
            set(),
        ),
        ('def f(db):\n    return db.read(Q("a.inline"))\n', {"a.inline"}, set()),
        ('class R:\n    upsert_query = Q("a.upsert")\n', {"a.upsert"}, set()),
    ],
)
def test_dead_query_check_counts_only_real_use(
    source: str, used: set[str], unused: set[str]
) -> None:
    assert queries_in_module(source) == (used, unused)


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
        ("// mode: read\n// rows: all\n// params:\n// returns: x\nRETURN 1 AS x\n", "rows"),
        (
            "// mode: write\n// rows: collected\n// params:\n// returns: x\nRETURN 1 AS x\n",
            "needs `mode: read`",
        ),
        ("// mode: read\n// rows: collected\n// params:\n// returns:\nRETURN 1\n", "columns"),
    ],
)
def test_bad_files_are_refused(tmp_path: Path, text: str, reason: str) -> None:
    _write(tmp_path, "thing/get.cypher", text)
    with pytest.raises(QueryFileError, match=reason):
        Registry(tmp_path).get("thing.get", Dialect.NEO4J)


def test_collected_text_returns_the_columns_in_order_as_one_row(tmp_path: Path) -> None:
    body = "MATCH (n:Thing) WHERE n.id IN $ids\nRETURN n.id AS id, n.count AS count ORDER BY id\n"
    _write(
        tmp_path,
        "thing/get.cypher",
        "// mode: read\n// params: ids\n// returns: id, count\n" + body,
    )
    _write(
        tmp_path,
        "thing/few.cypher",
        "// mode: read\n// rows: collected\n// params: ids\n// returns: id, count\n" + body,
    )
    reg = Registry(tmp_path)
    plain, few = reg.get("thing.get", Dialect.NEO4J), reg.get("thing.few", Dialect.NEO4J)
    assert not plain.collected
    assert few.collected
    text = collected_text(few)
    assert text.startswith("CALL () {\n" + few.text)  # the query itself, as composed
    assert text.rstrip().endswith(f"RETURN collect([`id`, `count`]) AS {COLLECTED_COLUMN}")
    with pytest.raises(ValueError, match="rows: collected"):
        collected_text(plain)


def test_the_request_path_reads_are_collected(reg: Registry) -> None:
    """The reads every `context` request runs come back from Neo4j as one row each."""
    for name in (
        "recall.turn_fulltext", "recall.turn_vector", "recall.turn_vector_exact",
        "recall.turns_fetch", "recall.turn_texts",
        "recall.knowledge_fulltext", "recall.knowledge_vector", "recall.knowledge_similarity",
        "recall.knowledge_of_turns", "recall.rules_in_force", "recall.turn_term_df",
    ):  # fmt: skip
        assert reg.get(name, Dialect.NEO4J).collected, name


def test_dialect_file_wins_and_unknown_names_suggest(tmp_path: Path) -> None:
    common = "// mode: read\n// params:\n// returns: x\nRETURN 1 AS x\n"
    _write(tmp_path, "thing/get.cypher", common)
    _write(tmp_path, "dialect/falkordb/thing/get.cypher", common.replace("1 AS", "2 AS"))
    reg = Registry(tmp_path)
    assert "2 AS" in reg.get("thing.get", Dialect.FALKORDB).text
    assert "1 AS" in reg.get("thing.get", Dialect.NEO4J).text
    with pytest.raises(UnknownQueryError, match=r"thing\.get"):
        reg.get("thing.gett", Dialect.NEO4J)


# --- includes: fragments spliced in at load time ------------------------------------------------

_FRAG = "// fragment: yes\n// params: {params}\n{returns}{body}\n"


def _frag(root: Path, rel: str, body: str, params: str = "", returns: str = "") -> None:
    ret = f"// returns: {returns}\n" if returns else ""
    _write(root, rel, _FRAG.format(params=params, returns=ret, body=body))


def test_include_splices_the_fragment_and_checks_the_composed_text(tmp_path: Path) -> None:
    _frag(tmp_path, "thing/filter.cypher", "WHERE n.project IN $projects", params="projects")
    _frag(
        tmp_path,
        "thing/columns.cypher",
        "// include: thing.filter\nRETURN n.id AS id, n.name AS name",
        params="projects",
        returns="id, name",
    )
    _write(
        tmp_path,
        "dialect/neo4j/thing/find.cypher",
        "// mode: read\n// params: q, projects\n// dialect-only: yes\n"
        "MATCH (n:Thing) WHERE n.name = $q\nWITH n\n// include: thing.columns\n",
    )
    _write(
        tmp_path,
        "dialect/falkordb/thing/find.cypher",
        "// mode: read\n// params: q, projects\n// dialect-only: yes\n"
        "MATCH (n:Thing) WHERE n.name STARTS WITH $q\nWITH n\n// include: thing.columns\n",
    )
    reg = Registry(tmp_path)
    neo, falkor = reg.get("thing.find", Dialect.NEO4J), reg.get("thing.find", Dialect.FALKORDB)
    assert neo.text == (
        "// mode: read\n// params: q, projects\n// dialect-only: yes\n"
        "MATCH (n:Thing) WHERE n.name = $q\nWITH n\n"
        "WHERE n.project IN $projects\nRETURN n.id AS id, n.name AS name\n"
    )
    assert "STARTS WITH $q\nWITH n\nWHERE n.project IN $projects\nRETURN" in falkor.text
    assert neo.returns == falkor.returns == ("id", "name")  # inherited from the fragment
    assert neo.includes == ("thing.columns", "thing.filter")
    assert [f.name for f in reg.fragments()] == ["thing.columns", "thing.filter"]
    assert "thing.filter" not in reg.all_names()  # a fragment is not a query


def test_include_at_the_top_of_the_body_ends_the_header(tmp_path: Path) -> None:
    _frag(tmp_path, "thing/all.cypher", "MATCH (n:Thing) RETURN n.id AS id", returns="id")
    _write(tmp_path, "thing/list.cypher", "// mode: read\n// params:\n// include: thing.all\n")
    q = Registry(tmp_path).get("thing.list", Dialect.NEO4J)
    assert q.text.endswith("// params:\nMATCH (n:Thing) RETURN n.id AS id\n")
    assert q.returns == ("id",)


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        # the query does not declare the fragment's parameter
        (
            {
                "thing/f.cypher": _FRAG.format(params="x", returns="", body="WHERE n.a = $x"),
                "thing/get.cypher": "// mode: read\n// params:\n// returns: id\n"
                "MATCH (n) // include: nowhere\n// include: thing.f\nRETURN n.id AS id\n",
            },
            "declared params",
        ),
        # a fragment that declares a parameter it does not use
        (
            {
                "thing/f.cypher": _FRAG.format(params="x, y", returns="", body="WHERE n.a = $x"),
                "thing/get.cypher": "// mode: read\n// params: x, y\n// returns: id\n"
                "MATCH (n)\n// include: thing.f\nRETURN n.id AS id\n",
            },
            "declared params",
        ),
        (
            {
                "thing/get.cypher": "// mode: read\n// params:\n// returns: id\n"
                "MATCH (n)\n// include: thing.missing\nRETURN n.id AS id\n",
            },
            "unknown fragment 'thing.missing'",
        ),
        (
            {
                "thing/a.cypher": _FRAG.format(params="", returns="", body="// include: thing.b"),
                "thing/b.cypher": _FRAG.format(params="", returns="", body="// include: thing.a"),
                "thing/get.cypher": "// mode: read\n// params:\n// returns: id\n"
                "MATCH (n)\n// include: thing.a\nRETURN n.id AS id\n",
            },
            "include cycle: thing.a -> thing.b -> thing.a",
        ),
        (
            {
                "thing/a.cypher": _FRAG.format(params="", returns="", body="// include: thing.a"),
                "thing/get.cypher": "// mode: read\n// params:\n// returns: id\n"
                "MATCH (n)\n// include: thing.a\nRETURN n.id AS id\n",
            },
            "include cycle: thing.a -> thing.a",
        ),
        (
            {
                "dialect/neo4j/thing/f.cypher": _FRAG.format(
                    params="", returns="", body="WITH 1 AS x"
                ),
            },
            "fragments are shared",
        ),
        (
            {
                "thing/f.cypher": _FRAG.format(
                    params="", returns="// returns: id\n", body="RETURN n.id AS id"
                ),
                "thing/get.cypher": "// mode: read\n// params:\n// returns: id, name\n"
                "MATCH (n)\n// include: thing.f\n",
            },
            "differs from the included fragment",
        ),
        (
            {
                "thing/f.cypher": _FRAG.format(params="", returns="", body="WITH {x} AS y"),
                "thing/get.cypher": "// mode: read\n// params:\n// returns: y\n"
                "MATCH (n)\n// include: thing.f\nRETURN y AS y\n",
            },
            "template",
        ),
    ],
)
def test_bad_includes_are_refused(tmp_path: Path, files: dict[str, str], reason: str) -> None:
    for rel, text in files.items():
        _write(tmp_path, rel, text)
    with pytest.raises(QueryFileError, match=re.escape(reason)):
        Registry(tmp_path).get("thing.get", Dialect.NEO4J)


def test_a_file_with_includes_needs_the_registry(tmp_path: Path) -> None:
    _write(tmp_path, "q.cypher", "// mode: read\n// params:\n// include: thing.f\n")
    with pytest.raises(QueryFileError, match="needs the registry"):
        parse_file(tmp_path / "q.cypher", "q", None)


_BUMP = (ROOT / "cypher" / "knowledge_clock" / "bump.cypher").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("MATCH (c:Correction {id: $id})\nSET c.status = 'rule'\nRETURN c.id AS id\n", "sets"),
        ("MATCH (f:Fact {id: $id})\nREMOVE f.kind\nRETURN f.id AS id\n", "sets"),
        ("MATCH (t:Turn {id: $id})\nMERGE (l:Lesson {id: $id})\nRETURN t.id AS id\n", "Lesson"),
        (
            "MATCH (t:Turn {id: $id}), (x:Finding {id: $id})\n"
            "MERGE (x)-[:DERIVED_FROM]->(t)\nRETURN t.id AS id\n",
            "DERIVED_FROM",
        ),
        ("MATCH (n)\nWHERE n.id = $id\nDETACH DELETE n\nRETURN 1 AS id\n", "deletes"),
    ],
)
def test_knowledge_untouched_is_refused_on_a_knowledge_write(
    tmp_path: Path, body: str, reason: str
) -> None:
    _write(tmp_path, "knowledge_clock/bump.cypher", _BUMP)
    head = "// mode: write\n// params: id\n// knowledge: untouched\n// scope: internal\n"
    _write(tmp_path, "thing/put.cypher", head + "// returns: id\n" + body)
    with pytest.raises(QueryFileError, match=reason):
        Registry(tmp_path).get("thing.put", Dialect.NEO4J)


def test_every_other_write_starts_by_moving_the_knowledge_clock(tmp_path: Path) -> None:
    _write(tmp_path, "knowledge_clock/bump.cypher", _BUMP)
    head = "// mode: write\n// params: id\n// scope: internal\n// returns: id\n"
    body = "MATCH (c:Correction {id: $id})\nSET c.status = 'rule'\nRETURN c.id AS id\n"
    _write(tmp_path, "thing/put.cypher", head + "// why: one\n//      two\n" + body)
    turn = "MATCH (t:Turn {id: $id})\nSET t.text = ''\nRETURN t.id AS id\n"
    _write(tmp_path, "thing/turn.cypher", head + "// knowledge: untouched\n" + turn)
    _write(
        tmp_path, "thing/get.cypher", "// mode: read\n// params:\n// returns: x\nRETURN 1 AS x\n"
    )
    reg = Registry(tmp_path)
    put = reg.get("thing.put", Dialect.FALKORDB)
    assert put.bumps_knowledge
    code = [ln for ln in put.text.splitlines() if not ln.startswith("//")]
    assert code[0].startswith("MERGE (knowledge_clock:KnowledgeClock")
    assert code[-3:] == body.splitlines()
    assert "knowledge_clock.bump" in put.includes
    turn_q = reg.get("thing.turn", Dialect.FALKORDB)
    assert not turn_q.bumps_knowledge
    assert "KnowledgeClock" not in turn_q.text
    assert not reg.get("thing.get", Dialect.FALKORDB).bumps_knowledge
    _write(
        tmp_path,
        "thing/bad.cypher",
        "// mode: read\n// params:\n// knowledge: untouched\n// returns: x\nRETURN 1 AS x\n",
    )
    with pytest.raises(QueryFileError, match="write"):
        Registry(tmp_path).get("thing.bad", Dialect.FALKORDB)


def test_the_shipped_writes_that_opt_out_write_no_knowledge(reg: Registry) -> None:
    """Every shipped write moves the clock but those whose header says why not; turn writes and
    the context recorder are among those (they run on every ingest batch and request)."""
    writes = [q for q in [*reg.common(), *reg.overrides()] if q.mode.value == "write"]
    untouched = {q.name for q in writes if not q.bumps_knowledge}
    assert {"turn.upsert_many", "context_query.record_many", "session.upsert_many"} <= untouched
    moving = {q.name for q in writes if q.bumps_knowledge}
    assert {"correction.upsert_many", "fact.supersede", "lesson.upsert_many"} <= moving
    for q in writes:
        assert ("MERGE (knowledge_clock:KnowledgeClock" in q.text) == q.bumps_knowledge, q.name
