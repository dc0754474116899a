from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from ai.records import RecordIssue, validate_records


class Row(BaseModel):
    name: str
    score: float = Field(default=0.5, ge=0, le=1)


class Reply(BaseModel):
    rows: list[Row] = []
    tags: list[str] = []
    level: int = 1
    title: str


def test_bad_records_are_left_out_and_named() -> None:
    out, issues = validate_records(
        Reply,
        {
            "title": "t",
            "rows": [{"name": "a"}, {"score": 2}, {"name": "b", "score": 0.9}],
            "tags": ["x", {"no": "string"}],
            "extra": "ignored",
        },
    )
    assert out == Reply(title="t", rows=[Row(name="a"), Row(name="b", score=0.9)], tags=["x"])
    assert issues == [
        RecordIssue(
            "rows[1]",
            "name: Field required; score: Input should be less than or equal to 1 (got 2)",
            '{"score": 2}',
        ),
        RecordIssue(
            "tags[1]",
            'record: Input should be a valid string (got {"no": "string"})',
            '{"no": "string"}',
        ),
    ]


def test_a_lone_record_is_a_list_of_one_and_a_bad_field_takes_its_default() -> None:
    out, issues = validate_records(Reply, {"title": "t", "rows": {"name": "a"}, "level": "high"})
    assert out == Reply(title="t", rows=[Row(name="a")], level=1)
    assert [str(i) for i in issues] == [
        "level: Input should be a valid integer, unable to parse string as an integer"
        ' (got "high"); left at its default'
    ]


def test_a_reply_that_is_not_an_object_or_lacks_a_required_field_is_rejected() -> None:
    with pytest.raises(ValueError, match="the reply is a JSON list, not an object"):
        validate_records(Reply, [{"title": "t"}])
    with pytest.raises(ValidationError, match="title"):
        validate_records(Reply, {"rows": []})
