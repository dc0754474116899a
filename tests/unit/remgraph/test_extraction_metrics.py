import json

import pytest

from remgraph.eval_extraction import slice_labels
from remgraph.extraction_labels import Labels, LabelsError, load_labels, locate, read_history
from remgraph.extraction_metrics import (
    Distilled,
    auc,
    candidates_report,
    is_candidate,
    kind_report,
    match,
    totals,
    unmatched,
)

S1, S2 = "2025-04-26_s1", "2025-04-27_s2"


def _history(tmp_path):
    rows = [
        (S1, "user", "initialize a bun typescript project"),
        (S1, "assistant", "Done."),
        (S1, "user", "when working with json outputs, never use grep,\n but rather jq"),
        (S2, "user", "we dont need backward compatibility"),
        (S2, "user", "use @clack/prompts instead of bun-promptx"),
    ]
    p = tmp_path / "h.jsonl"
    p.write_text(
        "".join(
            json.dumps({"session_id": s, "role": r, "content": c, "timestamp": f"2025-04-2{i}Z"})
            + "\n"
            for i, (s, r, c) in enumerate(rows)
        )
    )
    return read_history(p)


def _labels(**extra):
    data = {
        "corpus": "x",
        "project": "x",
        "items": [
            {
                "id": "rule-01",
                "kind": "rule",
                "text": "Use jq, not grep, for JSON output.",
                "evidence": [{"session": S1, "quote": "NEVER use grep, but rather jq"}],
            },
            {
                "id": "decision-01",
                "kind": "decision",
                "text": "Prompts use bun-promptx.",
                "evidence": [{"session": S2, "quote": "bun-promptx"}],
                "current": False,
                "superseded_by": "decision-02",
            },
            {
                "id": "decision-02",
                "kind": "decision",
                "text": "Prompts use @clack/prompts.",
                "evidence": [{"session": S2, "quote": "use @clack/prompts"}],
            },
        ],
        "questions": [
            {
                "id": "q1",
                "query": "how to filter json?",
                "answers": ["rule-01"],
                "expect_any": ["jq"],
            }
        ],
    }
    data.update(extra)
    return Labels.model_validate(data)


def test_quotes_are_found_across_whitespace_and_case_and_missing_ones_reported(tmp_path):
    h = _history(tmp_path)
    labels = _labels()
    places, problems = locate(labels, h)
    assert places["rule-01"] == {(S1, 2)}
    assert places["decision-02"] == {(S2, 1)}
    bad = _labels(
        items=[
            {
                "id": "fact-01",
                "kind": "fact",
                "text": "t",
                "evidence": [
                    {"session": S1, "quote": "never said"},
                    {"session": "nope", "quote": "x"},
                ],
            }
        ],
        questions=[],
    )
    places, problems = locate(bad, h)
    assert places["fact-01"] == set()
    assert [p.split(":")[1].strip() for p in problems] == ["quote not found", "no such session"]


def test_a_bad_labels_file_is_one_line_naming_the_place(tmp_path):
    p = tmp_path / "l.json"
    p.write_text(
        json.dumps({"corpus": "x", "project": "x", "items": [{"id": "a", "kind": "rule"}]})
    )
    with pytest.raises(LabelsError, match=r"items\.0\.text: Field required"):
        load_labels(p)
    with pytest.raises(ValueError, match="superseded_by 'zzz' is no item id"):
        _labels(
            items=[
                {
                    "id": "a",
                    "kind": "rule",
                    "text": "t",
                    "evidence": [{"session": S1, "quote": "q"}],
                    "superseded_by": "zzz",
                }
            ],
            questions=[],
        )


def _item(id, kind, text, places, current=True):
    return Distilled(id, kind, "x", text, frozenset(places), current)


def _sim(table):
    return lambda it, lab: table.get((it.id, lab.id), 0.0)


def test_unanswerable_questions_are_read_and_an_empty_query_named(tmp_path):
    p = tmp_path / "l.json"
    base = {"corpus": "x", "project": "x", "items": []}
    p.write_text(json.dumps(base | {"unanswerable": [{"id": "u01", "query": "which ci?"}]}))
    assert [u.query for u in load_labels(p).unanswerable] == ["which ci?"]
    p.write_text(json.dumps(base | {"unanswerable": [{"id": "u01", "query": ""}]}))
    with pytest.raises(LabelsError, match=r"unanswerable\.0\.query"):
        load_labels(p)


def test_a_match_needs_the_meaning_and_a_shared_message_unless_the_meaning_is_very_close(
    tmp_path,
):
    labels = _labels()
    places, _ = locate(labels, _history(tmp_path))
    items = [
        _item("a", "rule", "Use jq for json", [(S1, 2)]),  # same message, same meaning
        _item("b", "rule", "Initialize the project", [(S1, 2)]),  # same message, other meaning
        _item("c", "rule", "Prefer jq over grep", [(S2, 0)]),  # elsewhere, a restatement
        _item("d", "rule", "jq", [(S2, 0)]),  # elsewhere, only related
    ]
    m = match(
        items,
        labels,
        places,
        _sim(
            {
                ("a", "rule-01"): 0.7,
                ("b", "rule-01"): 0.3,
                ("c", "rule-01"): 0.85,
                ("d", "rule-01"): 0.6,
            }
        ),
    )
    assert sorted((i, lab, shared) for i, lab, _, shared in m.pairs) == [
        ("a", "rule-01", True),
        ("c", "rule-01", False),
    ]


def test_kind_figures_count_precision_recall_current_value_and_fragments(tmp_path):
    labels = _labels()
    places, _ = locate(labels, _history(tmp_path))
    items = [
        _item("r1", "rule", "Use jq for json output.", [(S1, 2)]),
        _item("r2", "rule", "Make sure to do", [(S1, 0)]),  # junk
        # the old decision still served as current: wrong; the new one current: right
        _item("d1", "decision", "prompts use bun-promptx", [(S2, 1)], current=True),
        _item("d2", "decision", "prompts use @clack/prompts", [(S2, 1)], current=True),
    ]
    table = {("r1", "rule-01"): 0.8, ("d1", "decision-01"): 0.9, ("d2", "decision-02"): 0.9}
    m = match(items, labels, places, _sim(table))
    frag = {"Make sure to do"}
    rules = kind_report("rule", items, labels, m, lambda t: t in frag)
    assert (rules["distilled"], rules["precision"], rules["recall"], rules["garbled"]) == (
        2,
        0.5,
        1.0,
        0.5,
    )
    assert rules["current_accuracy"] == 1.0
    decisions = kind_report("decision", items, labels, m, lambda t: False)
    assert (decisions["precision"], decisions["recall"]) == (1.0, 1.0)
    assert decisions["current_accuracy"] == 0.5  # decision-01 served as current
    lessons = kind_report("lesson", items, labels, m, lambda t: False)
    assert lessons["precision"] is None
    assert lessons["recall"] is None
    t = totals({"rule": rules, "decision": decisions, "fact": lessons, "lesson": lessons})
    assert (t["distilled"], t["precision"], t["recall"]) == (4, 0.75, 1.0)
    left = unmatched(items, labels, m)
    assert [r["id"] for r in left["distilled"]] == ["r2"]
    assert left["labelled"] == []


def test_a_slice_keeps_its_sessions_labels_and_makes_an_item_replaced_outside_it_current():
    labels = _labels(
        items=[
            {
                "id": "decision-01",
                "kind": "decision",
                "text": "Prompts use bun-promptx.",
                "evidence": [{"session": S1, "quote": "x"}],
                "current": False,
                "superseded_by": "decision-02",
            },
            {
                "id": "decision-02",
                "kind": "decision",
                "text": "Prompts use @clack/prompts.",
                "evidence": [{"session": S2, "quote": "y"}],
            },
        ],
        questions=[
            {"id": "q1", "query": "?", "answers": ["decision-02"], "expect_any": ["clack"]},
            {"id": "q2", "query": "?", "answers": ["decision-01"], "expect_any": ["promptx"]},
        ],
    )
    cut = slice_labels(labels, {S1})
    assert [(i.id, i.current, i.superseded_by) for i in cut.items] == [("decision-01", True, None)]
    assert [q.id for q in cut.questions] == ["q2"]


def test_auc_orders_answered_above_unanswered():
    assert auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auc([0.5], [0.5]) == 0.5
    assert auc([0.1], [0.9]) == 0.0
    assert auc([], [0.3]) is None


def test_the_replay_is_a_valid_scenario_in_time_order_with_long_turns_cut(tmp_path):
    from remgraph.eval_extraction import replay_scenario
    from remgraph.scenario_spec import LoadedScenario, parse_scenario

    h = _history(tmp_path)
    spec = replay_scenario(_labels(), h, max_chars=40)
    assert [s["id"] for s in spec["sessions"]] == [S1, S2]
    assert [s["rem"] for s in spec["sessions"]] == [False, True]
    assert all(len(t["content"]) <= 40 for s in spec["sessions"] for t in s["turns"])
    loaded = parse_scenario(tmp_path / "r.json", json.dumps(spec).encode())
    assert isinstance(loaded, LoadedScenario)
    assert [c.query for c in loaded.scenario.checks] == ["how to filter json?"]


def test_candidates_are_counted_apart_with_how_many_a_label_names(tmp_path):
    labels = _labels()
    places, _ = locate(labels, _history(tmp_path))
    right = Distilled("c1", "rule", "correction:candidate", "Use jq.", frozenset([(S1, 2)]), True)
    wrong = Distilled("c2", "rule", "correction:candidate", "Hm.", frozenset([(S1, 0)]), True)
    served = _item("r1", "rule", "Use jq for json output.", [(S1, 2)])
    assert [is_candidate(i) for i in (right, wrong, served)] == [True, True, False]
    m = match([right, wrong], labels, places, _sim({("c1", "rule-01"): 0.8}))
    assert candidates_report([right, wrong], labels, m) == {
        "rule": {"candidates": 2, "candidates_matched": 1}
    }
