import pytest

from knowledge.vocabulary import VocabularyError, parse_vocabulary, vocabulary

SLOT = """
[[slot]]
name = "package_manager"
scope = "project"
cardinality = "one"
kinds = ["rule"]
terms = ["npm", "yarn", "package manager"]
tasks = ["install a new package"]
examples = ["Use yarn, not npm."]
"""


def test_terms_name_a_slot_as_whole_words_in_any_case():
    v = parse_vocabulary(SLOT)
    assert v.named_in("No, use YARN, not npm.") == {"package_manager"}
    assert v.named_in("which package manager?") == {"package_manager"}
    assert v.named_in("the npmrc file and yarnish things") == frozenset()
    assert v.named_in("see @scope/npm-utils") == frozenset()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('name = "package_manager"', 'name = "Package Manager"'), "name must be snake_case"),
        (('scope = "project"', 'scope = "galaxy"'), "scope 'galaxy' is not"),
        (('cardinality = "one"', 'cardinality = "few"'), "cardinality 'few' is not one|many"),
        (('tasks = ["install a new package"]', "tasks = []"), "a slot needs terms and tasks"),
        (('terms = ["npm", "yarn", "package manager"]', 'terms = ["npm", ""]'), "terms must be"),
    ],
)
def test_a_bad_slot_is_refused_with_its_place(change, message):
    with pytest.raises(VocabularyError, match=message):
        parse_vocabulary(SLOT.replace(*change), "v.toml")


def test_duplicate_slots_and_bad_toml_are_refused():
    with pytest.raises(VocabularyError, match="duplicate slot names: package_manager"):
        parse_vocabulary(SLOT + SLOT)
    with pytest.raises(VocabularyError, match="not TOML"):
        parse_vocabulary("[[slot]\nname=")


def test_the_shipped_vocabulary_reads_and_every_example_names_its_own_slot():
    v = vocabulary()
    assert len(v.slots) >= 25
    for s in v.slots:
        for e in s.examples:
            assert s.name in v.named_in(e), (s.name, e)
