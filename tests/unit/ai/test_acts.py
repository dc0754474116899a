"""The sentence-act head: what it was trained on, what it reads, and that it decides by meaning."""

import json
from pathlib import Path

import numpy as np
import pytest

from ai import acts, language
from ai.acts import ACTS, GRAMMAR, SENTENCES_FILE, ActHeadMissingError, classify, load_head
from ai.embed import LocalEmbedder


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def test_the_training_sentences_never_come_from_the_held_out_history():
    rows = [json.loads(x) for x in SENTENCES_FILE.read_text(encoding="utf-8").splitlines()]
    groups = {r["group"].split("/")[0] for r in rows}
    assert "chef-chopsky" not in groups
    assert groups <= {"minsky", "locomo"}
    assert {r["act"] for r in rows} <= set(ACTS)


def test_the_head_matches_the_features_and_the_embedding_model(embedder):
    head = load_head()
    assert head.weights.shape == (len(ACTS), embedder.dimensions + len(GRAMMAR))
    assert head.embedding_model == embedder.name


def test_a_missing_head_names_the_command_that_trains_it(tmp_path):
    with pytest.raises(ActHeadMissingError, match=r"tools\.train_acts"):
        load_head.__wrapped__(tmp_path / "none.npz")


@pytest.mark.parametrize(
    ("text", "feature", "value"),
    [
        ("use jq for json output", "imperative", 1.0),
        ("we use jq for json output", "imperative", 0.0),
        ("we use jq for json output", "subject_we", 1.0),
        ("never push to main", "standing", 1.0),
        ("push this branch", "standing", 0.0),
        ("you edited the wrong file", "you_did", 1.0),
        ("when tests fail, read the log first", "condition", 1.0),
        ("is the cache warm?", "question", 1.0),
    ],
)
def test_grammar_reads_mood_person_and_scope_from_the_parse(text, feature, value):
    doc = language.parse([text])[0]
    row = acts.grammar(doc)
    assert row[GRAMMAR.index(feature)] == value


def test_every_sentence_gets_one_act_with_a_distribution(embedder):
    out = classify(["never use grep on json output, use jq", "how are you?"], embedder)
    assert len(out) == 2
    for a in out:
        assert a.act in ACTS
        assert sum(a.probabilities.values()) == pytest.approx(1.0, abs=1e-4)
        assert a.probability == max(a.probabilities.values())
    assert out[1].act == "question"
    assert classify([], embedder) == []


def test_the_act_is_decided_by_the_weights_not_by_rules(embedder):
    """A head whose weights favour one act answers that act for every sentence."""
    head = load_head()
    bias = np.full(len(ACTS), -50.0, dtype=np.float32)
    bias[ACTS.index("fact")] = 50.0
    forced = acts.ActHead(np.zeros_like(head.weights), bias, head.embedding_model)
    out = classify(["never use grep on json output, use jq"], embedder, forced)
    assert out[0].act == "fact"


def test_a_persons_act_labels_are_read_per_sentence_and_checked(tmp_path):
    from tools.acts_dataset import read_acts

    good = tmp_path / "acts.jsonl"
    good.write_text(
        '{"session": "s1", "text": "never force push", "act": "instruction"}\n'
        '{"session": "s1", "text": "fix it", "act": "request"}\n',
        encoding="utf-8",
    )
    assert read_acts(good) == {
        ("s1", "never force push"): "instruction",
        ("s1", "fix it"): "request",
    }
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session": "s1", "text": "x", "act": "rule"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: act 'rule' is not one of instruction"):
        read_acts(bad)
    # the labels in the repo are all valid: 625 sentences typed in the tuning history, 618 distinct
    labels = read_acts(Path(__file__).resolve().parents[3] / "bench/labels/minsky_acts.jsonl")
    assert len(labels) == 618
