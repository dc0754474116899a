"""`remgraph explore`: how to look at the graph in Neo4j Browser with the bundled guides."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graph.cypher import cypher_dir


@dataclass(frozen=True)
class BrowserQuery:
    """One named query from `cypher/browser/`."""

    name: str
    path: Path
    description: str
    params: tuple[str, ...]
    text: str


def browser_dir() -> Path:
    """Folder of the Neo4j Browser guides and style sheet."""
    return cypher_dir() / "browser"


def browser_queries() -> list[BrowserQuery]:
    """Every guide query with its description (first comment line) and declared params."""
    out = []
    for path in sorted(browser_dir().glob("*.cypher")):
        text = path.read_text(encoding="utf-8")
        comments = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("//")]
        prose = []
        for c in comments:
            if c.startswith((":", "params:", "(")):
                break
            prose.append(c)
        desc = " ".join(prose).removeprefix("Browser guide:").strip()
        params: tuple[str, ...] = ()
        for c in comments:
            if c.startswith("params:"):
                params = tuple(p.strip() for p in c.removeprefix("params:").split(",") if p.strip())
        out.append(BrowserQuery(path.stem, path, desc, params, text))
    return out


def instructions(browser_url: str = "http://127.0.0.1:7474") -> str:
    """Step-by-step text printed by `remgraph explore`."""
    style = browser_dir() / "remgraph.grass"
    lines = [
        f"1. Open Neo4j Browser at {browser_url} (compose publishes it on loopback) and log in.",
        f"2. Load the style sheet: drag {style} onto the Browser window",
        "   (or run `:style` and paste the file's content). Each label gets a colour and caption.",
        "3. Set the parameters a guide needs with `:param name => value`, then paste the guide:",
    ]
    for q in browser_queries():
        need = ", ".join(q.params) or "no parameters"
        lines.append(f"   - {q.name}: {q.description} [{need}]")
        lines.append(f"     {q.path}")
    lines.append("Times are UTC epoch milliseconds: `RETURN datetime('2026-01-01').epochMillis`.")
    return "\n".join(lines)
