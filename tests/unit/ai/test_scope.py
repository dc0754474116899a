import pytest

from ai.scope import Scope, scope_words, scopes


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("Run the tests before committing.", Scope.STANDING),
        ("Always use the conventional commits format for the title.", Scope.STANDING),
        ("we don't do npm in this repo", Scope.STANDING),
        ("When you open a pull request, link the issue.", Scope.STANDING),
        ("Do not write code yet.", Scope.ONE_OFF),
        ("For now, skip the flaky test.", Scope.ONE_OFF),
        ("I'd like to rename the module.", Scope.ONE_OFF),
        ("Always do this.", Scope.DANGLING),
        ("Think about how you can make sure you always do this.", Scope.UNSAID),
        ("Use the staging database.", Scope.UNSAID),
        ("Use single quotes for strings.", Scope.STANDING),
        ("Use kebab-case for file names.", Scope.STANDING),
        ("Add tests for the parser.", Scope.UNSAID),
        ("Use a fixture for my two tests.", Scope.UNSAID),
        ("we use bun now", Scope.STANDING),
        ("We need to fix this now.", Scope.ONE_OFF),
        ("Do we use bun now?", Scope.ONE_OFF),
    ],
)
def test_the_main_clause_decides_how_long_an_instruction_holds(text, scope):
    assert scopes([text]) == [scope]


def test_a_scope_word_inside_another_clause_does_not_make_it_standing():
    # "always" modifies the clause about what the speaker hopes, not the instruction
    a, b = scopes(["Fix the import so that it always resolves.", "Always fix the import."])
    assert a is not Scope.STANDING
    assert b is Scope.STANDING


def test_scope_words_are_declared_data():
    w = scope_words()
    assert ("in", "this", "repo") in w.general
    assert "before" in w.conditions
    assert ("for", "now") in w.one_off
    assert "this" in w.deictic
    assert "for" in w.generic
    assert "we" in w.practice
