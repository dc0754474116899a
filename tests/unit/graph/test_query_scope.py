"""Every query touching a project's nodes filters by project or says who may reach it (issue 15).

The registry refuses to load a query that touches a project-owned label without `$project` /
`$projects` and without a `// scope: internal|admin` header; here we check what an API key can
reach: the repositories the API and `recall` use run project-scoped queries only, but for the few
listed with their reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graph.cypher import PROJECT_LABELS, Dialect, parse_file, registry
from graph.errors import QueryFileError

ROOT = Path(__file__).resolve().parents[3]
# Repositories an API key's request runs through, and the unscoped queries they may run.
API_REPOSITORIES = ("graph/repositories/scoped.py", "graph/repositories/recall.py")
UNSCOPED_ON_API_PATH = {
    "recall.turn_term_df": "document frequencies of the whole index (never returned to callers)",
}


def _query_names(module: Path) -> set[str]:
    tree = ast.parse(module.read_text())
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "Q"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }


@pytest.mark.parametrize("module", API_REPOSITORIES)
def test_api_repositories_run_project_scoped_queries_only(module: str) -> None:
    names = _query_names(ROOT / module)
    assert names, module
    for dialect in Dialect:
        for name in names - set(UNSCOPED_ON_API_PATH):
            q = registry().get(name, dialect)
            assert q.scope == "project", f"{module}: {name} ({dialect}) is {q.scope}"


def test_every_query_declares_who_reaches_it() -> None:
    for dialect in Dialect:
        for name in registry().names(dialect):
            q = registry().get(name, dialect)
            assert q.scope in {"project", "internal", "admin"}
            if q.scope != "project":
                assert not ({"project", "projects"} & q.params), name


def test_a_query_on_project_nodes_without_a_project_does_not_load(tmp_path: Path) -> None:
    f = tmp_path / "leak.cypher"
    f.write_text(
        "// mode: read\n// params: ids\n// returns: text\n"
        "MATCH (t:Turn) WHERE t.id IN $ids RETURN t.text AS text\n"
    )
    with pytest.raises(QueryFileError, match="project-owned Turn"):
        parse_file(f, "x.leak", None)
    f.write_text(f.read_text().replace("// returns:", "// scope: internal\n// returns:"))
    assert parse_file(f, "x.leak", None).scope == "internal"
    f.write_text(f.read_text().replace("scope: internal", "scope: everyone"))
    with pytest.raises(QueryFileError, match="expected one of"):
        parse_file(f, "x.leak", None)


def test_the_owned_labels_are_the_labels_queries_use() -> None:
    used = {
        m
        for f in (ROOT / "cypher").rglob("*.cypher")
        for m in re.findall(r"\(\s*\w*\s*:\s*([A-Z][a-z]\w*)", f.read_text())
    }
    # keys list their projects; locks; schema; the clocks and the turn clock's log of changed ids
    shared = {"ApiKey", "JobLock", "SchemaMigration", "TurnClock", "TurnChange", "KnowledgeClock"}
    assert used - shared == PROJECT_LABELS
