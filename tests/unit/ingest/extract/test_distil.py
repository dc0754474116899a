"""Rules, decisions and facts from sentence acts: the user's own words, vocabulary slots."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from ai import language
from ai.acts import ACTS, ActHead, load_head
from ai.embed import LocalEmbedder
from ingest.extract.distil import ActFloors, SentenceActs, _slot, distil, replaced
from ingest.extract.models import CorrectionCandidate, FactCandidate, TurnInput
from knowledge.vocabulary import vocabulary

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def turn(i: int, role: str, text: str) -> TurnInput:
    return TurnInput(id=f"t{i}", ordinal=i, role=role, text=text, timestamp=T0 + timedelta(i))


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def forced(act: str) -> ActHead:
    """A head that answers `act` for every sentence (to test what an act becomes)."""
    head = load_head()
    bias = np.full(len(ACTS), -50.0, dtype=np.float32)
    bias[ACTS.index(act)] = 50.0
    return ActHead(np.zeros_like(head.weights), bias, head.embedding_model)


TURNS = [
    turn(0, "user", "ok so we install everything with yarn here\n```\nyarn install\n```"),
    turn(1, "assistant", "I ran npm install."),
    turn(2, "user", "use bun instead of yarn from now on"),
]


def test_an_instruction_is_the_users_sentence_with_its_turn(embedder):
    out = distil(TURNS, "shop", SentenceActs(embedder, forced("instruction")))
    assert [c.rule_text for c in out.corrections] == [
        "We install everything with yarn here",
        "Use bun instead of yarn from now on",
    ]
    assert out.corrections[1].turn_ids == ("t2",)
    assert out.corrections[1].original_behaviour == "I ran npm install."
    assert out.corrections[1].negates == "use yarn"
    assert out.facts == ()


def test_decisions_fill_the_slot_so_the_newer_one_supersedes(embedder):
    out = distil(TURNS, "shop", SentenceActs(embedder, forced("decision")))
    assert [(f.predicate, f.object, f.kind) for f in out.facts] == [
        ("package_manager", "yarn", "decision"),
        ("package_manager", "bun", "decision"),
    ]
    assert out.facts[1].replaces == "yarn"
    assert out.facts[1].statement == "Use bun instead of yarn from now on"


def test_what_the_head_is_unsure_of_or_calls_a_request_makes_nothing(embedder):
    assert distil(TURNS, "shop", SentenceActs(embedder, forced("request"))).corrections == ()
    high = ActFloors(instruction=1.01)
    out = distil(TURNS, "shop", SentenceActs(embedder, forced("instruction")), high)
    assert out.corrections == ()


def test_the_agents_own_sentences_are_never_items(embedder):
    turns = [turn(0, "assistant", "From now on I will always use pnpm for installs.")]
    assert distil(turns, "shop", SentenceActs(embedder, forced("instruction"))).corrections == ()


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("use bun instead of yarn", "yarn"),
        ("we went with postgres rather than mysql", "mysql"),
        ("use bun", ""),
    ],
)
def test_what_a_sentence_replaces_comes_from_the_parse(text, gone):
    assert replaced(text) == gone


def test_a_slot_needs_one_of_its_values_and_a_kind_it_takes():
    v = vocabulary()
    vitest, more = language.parse(["we test with vitest now", "we should write more tests"])
    assert _slot(vitest, "decision", v) == ("test_runner", "vitest")
    assert _slot(more, "decision", v) is None


def test_an_older_patterns_item_stays_only_where_the_act_model_reads_a_statement(embedder):
    said = TURNS[2]
    old = CorrectionCandidate(
        rule_text="Use bun.", corrected_behaviour="use bun", turn_ids=("t2",), seen_at=T0
    )
    fact = FactCandidate(
        subject="shop",
        predicate="uses",
        object="yarn",
        statement="shop uses yarn",
        turn_ids=("t0",),
        valid_from=T0,
    )
    request = distil(
        [said], "shop", SentenceActs(embedder, forced("request")), patterns=([old], [fact])
    )
    assert request.corrections == ()
    assert request.facts == ()
    # the act model reads a fact there, below its own floor: the older item is kept
    floors = ActFloors(fact=1.01)
    kept = distil(
        TURNS, "shop", SentenceActs(embedder, forced("fact")), floors, patterns=([old], [fact])
    )
    assert kept.corrections == (old,)
    assert kept.facts == (fact,)
    # where the act model's own verbatim item says it, the older one is not added twice
    own = distil(TURNS, "shop", SentenceActs(embedder, forced("instruction")), patterns=([old], []))
    assert [c.rule_text for c in own.corrections] == [
        "We install everything with yarn here",
        "Use bun instead of yarn from now on",
    ]


def test_the_act_head_reads_with_the_services_embedder_only_when_it_is_its_model():
    class Other:
        name = "some-other-model"

    mine = LocalEmbedder()
    embedder, head = SentenceActs(mine)._model()
    assert embedder is mine
    assert head.embedding_model == mine.name
    other, _ = SentenceActs(Other())._model()  # type: ignore[arg-type]
    assert other.name == head.embedding_model
