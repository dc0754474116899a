"""The MCP tools' text answers: one line per item, within the token budget, errors on one line."""

from __future__ import annotations

from api.mcp_text import context_text, error_line, rules_text, search_text
from core.text import estimate_tokens


def _item(n: int, text: str, kind: str = "TURN") -> dict:
    return {
        "id": f"trn_{n}",
        "kind": kind,
        "text": text,
        "score": 1.0,
        "tokens": estimate_tokens(text),
        "why": [{"name": "fused", "value": 2.5}, {"name": "rule_first", "value": 1.0}],
        "provenance": {
            "project": "p",
            "sessionId": "ses_1",
            "turnIds": [f"trn_{n}"],
            "timestamp": "2026-03-01T10:00:00+00:00",
            "speaker": "ann",
        },
    }


PAYLOAD = {
    "__typename": "ContextPayload",
    "answerable": 0.61,
    "items": [
        _item(1, "Use pnpm,\n  not npm.", kind="CORRECTION"),
        *(_item(n, f"turn {n} " + "words " * 40) for n in range(2, 8)),
    ],
}


def test_each_item_is_one_line_with_kind_date_and_id() -> None:
    text = context_text(PAYLOAD, None)
    head, first, second, *_ = text.splitlines()
    assert head == "7 items, answerable 0.61"
    assert first == "1. CORRECTION (2026-03-01, trn_1): Use pnpm, not npm."
    assert second.startswith("2. TURN ann (2026-03-01, session ses_1, trn_2): turn 2 words")
    assert "why:" not in text
    assert "[why: fused 2.5, rule_first 1]" in context_text(PAYLOAD, None, why=True)


def test_the_answer_stays_within_the_budget_and_says_what_it_left_out() -> None:
    for budget in (30, 60, 100, 250):
        text = context_text(PAYLOAD, budget)
        assert estimate_tokens(text) <= budget
        shown = text.count("\n")
        assert text.startswith(f"{shown} of 7 items")
    cut = context_text(PAYLOAD, 60).splitlines()[-1]
    assert cut.endswith("…")  # the last item that did not fit whole is cut, not dropped
    assert context_text(PAYLOAD, 10_000).startswith("7 items")


def test_errors_are_one_line_naming_what_and_where() -> None:
    forbidden = {"__typename": "Forbidden", "project": "beta", "message": "no access\nto beta"}
    assert error_line(forbidden) == "Forbidden (beta): no access to beta"
    bad = {"__typename": "InvalidInput", "field": "limit", "message": "must be 1-200"}
    assert error_line(bad) == "InvalidInput (limit): must be 1-200"
    assert error_line({"errors": ["Variable '$x' got\ninvalid value"]}) == (
        "error: Variable '$x' got invalid value"
    )
    assert error_line(PAYLOAD) is None


def test_rules_and_search_are_one_line_each() -> None:
    rules = {
        "__typename": "RulesPayload",
        "items": [{"id": "cor_1", "status": "rule", "confirmed": True, "text": "Use pnpm."}],
    }
    assert rules_text(rules) == "1 rules in force\n1. rule (cor_1, confirmed): Use pnpm."
    hits = {
        "nodes": [
            {
                "turn": {
                    "id": "trn_9",
                    "sessionId": "ses_2",
                    "speaker": None,
                    "timestamp": "2026-04-02T08:00:00Z",
                    "text": "pnpm install\nfailed",
                }
            }
        ]
    }
    assert (
        search_text(hits)
        == "1 turns\n1. TURN (2026-04-02, session ses_2, trn_9): pnpm install failed"
    )
