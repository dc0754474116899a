"""Reading a LoCoMo-layout file for `remgraph eval knowledge`: annotations and bad input."""

from __future__ import annotations

from typing import Any

from remgraph.eval_knowledge import parse_samples


def sample(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a dog."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice!"},
            ],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
        },
        "observation": {
            "session_1_observation": {
                "Ann": [["Ann adopted a dog.", "D1:1"]],
                "Bob": [["Bob likes dogs.", ["D1:2", "D1:1"]]],
            }
        },
        "session_summary": {"session_1_summary": "Ann told Bob about her dog."},
    }
    return base | kw


def test_observations_and_summaries_are_read_with_normalised_evidence() -> None:
    [spec], issues = parse_samples([sample()], source="f.json")
    assert issues == []
    assert spec.sample_id == "conv-1"
    assert [(o.session, o.speaker, o.text, sorted(o.evidence)) for o in spec.observations] == [
        ("session_1", "Ann", "Ann adopted a dog.", ["D1:1"]),
        ("session_1", "Bob", "Bob likes dogs.", ["D1:1", "D1:2"]),
    ]
    assert spec.summaries == {"session_1": "Ann told Bob about her dog."}


def test_bad_entries_are_reported_where_they_are_and_the_rest_is_kept() -> None:
    bad_obs = {
        "session_1_observation": {
            "Ann": [
                ["Ann adopted a dog.", "D1:1"],
                ["no evidence here", ""],
                "just a string",
                ["Ann has a cat.", "D9:9"],
            ]
        },
        "weird_key": {"Ann": []},
    }
    specs, issues = parse_samples(
        [
            "not a sample",
            {"sample_id": "x"},
            sample(observation=bad_obs, session_summary={"session_1_summary": 3}),
            sample(),
            sample(sample_id=None, observation=None),
        ],
        source="f.json",
    )
    assert [s.sample_id for s in specs] == ["conv-1", "conv-1-4", "sample-5"]
    kept = specs[0]
    assert [o.text for o in kept.observations] == ["Ann adopted a dog.", "Ann has a cat."]
    assert kept.summaries == {}
    assert issues == [
        "f.json: sample #1: no `conversation` object; skipped",
        "f.json: sample #2: no `conversation` object; skipped",
        "f.json: conv-1 session_1_observation Ann #2: no readable evidence dialog id; skipped",
        "f.json: conv-1 session_1_observation Ann #3: not [text, evidence]; skipped",
        "f.json: conv-1 session_1_observation Ann #4: evidence ['D9:9'] not in the conversation",
        "f.json: conv-1: observation key 'weird_key' unreadable; skipped",
        "f.json: conv-1: session summary 'session_1_summary' unreadable; skipped",
        "f.json: sample #4: duplicate sample_id 'conv-1'; renamed",
        "f.json: sample-5: no `observation`; observation figures skip it",
    ]


def test_a_single_sample_object_is_accepted() -> None:
    specs, issues = parse_samples(sample(), source="f.json")
    assert [s.sample_id for s in specs] == ["conv-1"]
    assert issues == []
