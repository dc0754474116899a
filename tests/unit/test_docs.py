"""README.md stays a short user's manual; docs/ is a MkDocs site whose links resolve."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MAX_README_LINES = 300

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def _prose(text: str) -> str:
    """The text without fenced blocks and inline code, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """The anchor MkDocs (toc) and GitHub both give a heading without doubled spaces."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    return {_slug(h) for h in HEADING.findall(FENCE.sub("", page.read_text()))}


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in _nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return []


def _mkdocs() -> dict[str, object]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert isinstance(config, dict)
    return config


def test_readme_is_a_short_manual() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_keeps_the_two_commands_ci_and_newcomers_rely_on() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)
    assert "make run\n" in blocks, "the quick start's one command for the main job"
    assert "make test\n" in blocks, "the quick start's one test command (.ci/run runs it)"
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_every_docs_page_is_in_the_nav() -> None:
    config = _mkdocs()
    assert config["site_name"] == "remgraph"
    assert config.get("docs_dir", "docs") == "docs"
    nav = _nav_pages(config["nav"])
    pages = {p.relative_to(DOCS).as_posix() for p in _pages()}
    assert pages, "docs/ holds no page"
    assert sorted(pages - set(nav)) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(set(nav) - pages) == [], "nav entries without a page"
    assert len(nav) == len(set(nav)), "a page is listed twice in the nav"


def test_the_theme_needs_no_extra_package() -> None:
    theme = _mkdocs()["theme"]
    name = theme["name"] if isinstance(theme, dict) else theme
    assert name in {"mkdocs", "readthedocs"}


@pytest.mark.parametrize(
    "source", [README, *_pages()], ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_relative_links_resolve(source: Path) -> None:
    broken = []
    for target in LINK.findall(_prose(source.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (source.parent / path).resolve() if path else source
        if not file.exists():
            broken.append(
                f"{target}: no file {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}"
            )
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading with anchor #{anchor}")
    assert broken == [], f"{source.relative_to(ROOT)} has broken links"


def test_readme_links_into_the_docs() -> None:
    targets = {t.partition("#")[0] for t in LINK.findall(_prose(README.read_text()))}
    assert "docs/index.md" in targets
    assert {t for t in targets if t.startswith("docs/")} >= {"docs/evaluation.md", "docs/api.md"}
