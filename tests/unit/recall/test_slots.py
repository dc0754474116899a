import pytest

from knowledge.vocabulary import parse_vocabulary, vocabulary
from recall.config import RankingSection
from recall.slots import SlotIndex
from tests.shared_embedder import shared_local_embedder

TAU = RankingSection().slot_task_similarity


@pytest.fixture(scope="module")
def index():
    return SlotIndex(shared_local_embedder())


async def _of(index, text):
    vec = (await shared_local_embedder().embed([text]))[0]
    return await index.of_query(text, vec, TAU)


@pytest.mark.parametrize(
    ("request_text", "slot"),
    [
        ("how do I add a dependency to this repo?", "package_manager"),
        ("could you run the test suite", "test_runner"),
        ("recommend me a place for dinner tonight", "diet_health"),
    ],
)
async def test_a_request_concerns_the_slot_of_its_meaning_without_its_words(
    index, request_text, slot
):
    assert slot in await _of(index, request_text)


async def test_an_unrelated_request_concerns_no_coding_slot(index):
    got = await _of(index, "what's a good name for a cat?")
    assert not got & {"package_manager", "test_runner", "database", "llm_model"}


async def test_a_term_said_in_the_request_counts_without_vectors():
    index = SlotIndex(None, parse_vocabulary(_one_slot()))
    assert await index.of_query("is yarn set up?", None, TAU) == {"package_manager"}
    assert await index.of_query("set up the project on a new machine", None, TAU) == frozenset()


def _one_slot():
    s = vocabulary().get("package_manager")
    return (
        f'[[slot]]\nname = "{s.name}"\nscope = "{s.scope}"\ncardinality = "{s.cardinality}"\n'
        f"kinds = {list(s.kinds)}\nterms = {list(s.terms)}\ntasks = {list(s.tasks)}\n"
        f"examples = {list(s.examples)}\n"
    ).replace("'", '"')


def test_an_item_is_about_the_slots_its_text_names(index):
    assert "package_manager" in index.of_item("No, use yarn, not npm.")
    assert index.of_item("Make sure to DO NOT make such mistakes in the future.") == frozenset()


async def test_naming_a_tool_is_not_asking_about_its_slot(index):
    """`by_task` (what opens an answer) reads what a request asks to do, not the tools it names:
    a problem with tests under bun asks nothing about which package manager to use."""
    text = "bun tests hang forever when I mock modules"
    vec = (await shared_local_embedder().embed([text]))[0]
    assert "package_manager" in await index.of_query(text, vec, TAU)  # it names bun
    assert "package_manager" not in await index.by_task(vec, TAU)
    ask = "which test runner should I use for the parser?"
    ask_vec = (await shared_local_embedder().embed([ask]))[0]
    assert "test_runner" in await index.by_task(ask_vec, TAU)
