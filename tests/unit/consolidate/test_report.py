import json
from datetime import UTC, datetime, timedelta

from consolidate.models import CycleReport, JobReport
from consolidate.report import compare, report_markdown, write_report
from consolidate.text import generic_label

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def _cycle(at: datetime, merged: int, findings: list[dict], gaps: list[str]) -> CycleReport:
    return CycleReport(
        project="p",
        started_at=at,
        finished_at=at,
        reports=(
            JobReport(
                job="duplicates",
                project="p",
                run_id="r",
                status="succeeded",
                started_at=at,
                finished_at=at,
                duration_ms=12.5,
                summary={"merged": merged, "label": "x"},
                report={"gaps": gaps},
            ),
        ),
        open_findings=tuple(findings),
    )


F1 = {
    "id": "fnd_1",
    "job": "extraction",
    "kind": "theme_without_lesson",
    "title": "write a lesson about 'falkordb cache'",
    "reason": "topic top_1 came up in 4 sessions and no lesson shares a turn or its words",
    "action": "create_lesson",
    "targets": ["top_1"],
}
F2 = {**F1, "id": "fnd_2", "title": "todo still open: add the index"}


def test_a_second_report_compares_with_the_previous_one(tmp_path):
    write_report(_cycle(T0, 1, [F1], ["gap a"]), tmp_path)
    md, js = write_report(_cycle(T0 + timedelta(hours=1), 3, [F2], ["gap b"]), tmp_path)
    data = json.loads(js.read_text())
    since = data["since_previous"]
    assert since["counters"] == {"duplicates": {"merged": [1, 3]}}
    assert [f["id"] for f in since["findings_opened"]] == ["fnd_2"]
    assert [f["id"] for f in since["findings_closed"]] == ["fnd_1"]
    assert (since["gaps_added"], since["gaps_gone"]) == (["gap b"], ["gap a"])
    text = md.read_text()
    assert "- duplicates: merged 1 → 3" in text
    # a report of stored state takes the jobs' own time, not 0 ms
    assert data["duration_ms"] == 12.5


def test_recommendations_name_the_item_the_reason_and_the_action():
    text = report_markdown(_cycle(T0, 1, [F1], []))
    assert (
        "- **create_lesson**: write a lesson about 'falkordb cache' — topic top_1 came up in 4 "
        "sessions and no lesson shares a turn or its words (`fnd_1`)"
    ) in text
    assert compare({}, {})["counters"] == {}


def test_generic_labels_are_common_words_only():
    assert generic_label("wait")
    assert generic_label("shares image")
    assert generic_label("gonna")
    assert not generic_label("falkordb cache")
    assert not generic_label("LGBTQ support group")
