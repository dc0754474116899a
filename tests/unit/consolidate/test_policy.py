from datetime import UTC, datetime

import pytest

from consolidate.policy import auto_refusal, near_identical, protected
from graph.models import Finding

T = datetime(2026, 1, 1, tzinfo=UTC)


def _finding(kind: str, action: str, targets: tuple[str, ...]) -> Finding:
    return Finding(
        id="fnd_x",
        project="p",
        job="j",
        run_id="r",
        kind=kind,
        target_ids=targets,
        proposed_action=action,  # type: ignore[arg-type]
        valid_from=T,
        recorded_at=T,
    )


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (
            "Always run the linter before committing.",
            "always run the linter before committing",
            True,
        ),
        ("Always run migrations before tests", "Always run migrations before tests!", True),
        ("Use pnpm not npm.", "Use pnpm not npm for this repo.", False),
        ("Use pnpm not npm.", "Do not use npm.", False),
        (
            "Always run the database migrations before running the test suite.",
            "Run the database migrations before the test suite, always.",
            False,
        ),
        (
            "Always run the full integration test suite before merging into main.",
            "Never run the full integration test suite before merging into main.",
            False,
        ),
        ("Pin the project to Python 3.11 in CI.", "Pin the project to Python 3.12 in CI.", False),
        ("", "", False),
    ],
)
def test_near_identical(a: str, b: str, same: bool) -> None:
    assert near_identical(a, b) is same


def test_protected_items() -> None:
    assert protected({"status": "rule"}) == "it is a rule"
    assert protected({"status": "preference"}) == "it is a preference"
    assert protected({"status": "correction", "confirmed": True}) == "a person confirmed it"
    assert protected({"helpful_count": 1}) == "it has positive feedback"
    assert protected({"effectiveness": 0.2}) == "it has positive feedback"
    assert protected({"status": "correction", "helpful_count": 0, "effectiveness": -0.1}) is None


def test_auto_refusal() -> None:
    plain = {"a": {"title": "x", "content": "y"}}
    assert auto_refusal(_finding("stale", "archive", ("a",)), plain) is None
    rule = {"a": {"rule_text": "Always lint.", "status": "rule"}}
    assert "rule" in (auto_refusal(_finding("stale", "archive", ("a",)), rule) or "")
    assert auto_refusal(_finding("contradicted", "archive", ("a",)), plain) is not None
    assert auto_refusal(_finding("stale", "archive", ("a",)), {}) is not None  # gone
    assert auto_refusal(_finding("theme_without_lesson", "create_lesson", ("a",)), plain)
    assert auto_refusal(_finding("pending_todo", "keep", ("a",)), plain)
    pair = {"a": {"rule_text": "Use tabs."}, "b": {"rule_text": "use tabs"}}
    assert auto_refusal(_finding("duplicate_correction", "merge", ("a", "b")), pair) is None
    pair["b"] = {"rule_text": "Indent with tabs."}
    assert auto_refusal(_finding("duplicate_correction", "merge", ("a", "b")), pair)
    both = {"a": {}, "b": {}}
    assert auto_refusal(_finding("orphan", "link", ("a", "b")), both) is None
