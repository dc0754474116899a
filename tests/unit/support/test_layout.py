"""One direction only: `bench/` imports `tests.support`, and no test imports `bench`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_no_test_imports_bench() -> None:
    offenders = {
        str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.split(".")[0] == "bench")
        for p in sorted((ROOT / "tests").rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_bench_has_no_scenarios_module() -> None:
    # `bench/scenarios/` is a folder of scenario data; a module of that name would shadow it.
    assert not (ROOT / "bench" / "scenarios.py").exists()
