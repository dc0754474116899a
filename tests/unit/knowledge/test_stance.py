"""What an instruction says to use or avoid, read from its shape (`knowledge.stance`)."""

from __future__ import annotations

import pytest

from knowledge.stance import (
    AVOID,
    USE,
    WITHDRAW,
    agrees,
    lifted,
    lifting,
    notations,
    reverses,
    stance,
    target_kind,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use yarn, not npm.", {"yarn": USE, "npm": AVOID}),
        ("Stop reaching for npm.", {"npm": AVOID}),
        ("Never npm.", {"npm": AVOID}),
        ("Do not use requests in the ingestion service.", {"request": AVOID}),
        ("Use Vitest instead of Jest for all new tests.", {"vitest": USE, "jest": AVOID}),
        ("Put the 1:1s on Thursdays instead of Tuesdays.", {"thursday": USE, "tuesday": AVOID}),
        ("Use Poetry for dependencies, do not pip install things.", {"poetri": USE, "pip": AVOID}),
        ("Actually requests is fine now.", {"request": USE}),
        ("Forget what I said about squash merging.", {"squash": WITHDRAW, "merg": WITHDRAW}),
        ("Thanks, see you tomorrow.", {}),
    ],
)
def test_the_stance_of_an_instruction(text: str, expected: dict[str, int]) -> None:
    assert stance(text).polarity() == expected


def test_paraphrases_agree_and_do_not_reverse() -> None:
    rule = stance("Use pnpm, not npm.")
    for paraphrase in ("Do not use npm.", "Stop reaching for npm.", "Never npm for this repo."):
        assert agrees(stance(paraphrase), rule), paraphrase
        assert not reverses(stance(paraphrase), rule), paraphrase
    assert not agrees(stance("Use tabs for indentation."), rule)  # nothing shared


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use pnpm, not npm.", "Actually npm is fine now."),
        ("Use pnpm, not npm.", "From now on use npm instead of pnpm."),
        ("Do not add Vitest.", "Use Vitest instead of Jest for all new tests."),
        ("Always squash merge PRs into main.", "Forget what I said about squash merging."),
    ],
)
def test_a_flip_or_a_lift_reverses(old: str, new: str) -> None:
    assert reverses(stance(new), stance(old))
    assert not agrees(stance(new), stance(old))


def test_lifted_names_what_a_clause_lifts() -> None:
    assert lifted("Actually requests is fine now.") == "requests"
    assert lifted("Forget what I said about squash merging") == "squash merging"
    assert lifted("You can use npm again.") == "npm"
    assert lifted("The weather is nice today.") is None
    assert lifted("Use yarn, not npm.") is None
    # after a reason, a permission lifts when it says it holds again
    why = "The suite takes three minutes now, so go ahead and run the e2e tests locally again."
    assert lifting(why) == (
        "go ahead and run the e2e tests locally again",
        "run the e2e tests locally",
    )
    assert lifted("We fixed the flaky job, so you can use npm again.") == "npm"
    assert (
        lifted("It is fine to push to main now that CI gates it.")
        == "push to main now that CI gates it"
    )
    # "X is fine" after a reason: X alone is lifted, not the reason with it
    assert lifting("We have canary releases now, so deploying on Fridays is fine again.") == (
        "deploying on Fridays is fine again",
        "deploying on Fridays",
    )
    assert reverses(
        stance("deploying on Fridays is fine again"), stance("Never deploy on Fridays.")
    )
    # "bring back X" lifts "no more X" ("no more" is no lead word to strip)
    assert lifted("Bring back semicolons, the linter wants them.") == "semicolons"
    assert reverses(
        stance("Bring back semicolons, the linter wants them."),
        stance("No more semicolons in the JS code."),
    )
    # a withdrawal followed by what replaces it withdraws only the first
    assert lifted("Forget what I said about pnpm, we use bun now.") == "pnpm"
    # ... and is a one-off request otherwise
    assert lifted("Go ahead and merge it.") is None
    assert lifted("The build is green, so you can deploy it.") is None
    assert reverses(
        stance("go ahead and run the e2e tests locally again"),
        stance("Do not run the e2e tests locally."),
    )


def test_a_date_notation_is_the_target_of_the_instruction_that_names_it() -> None:
    assert stance("Always write dates as YYYY-MM-DD.").polarity() == {"yyyy-mm-dd": USE}
    assert stance("Use DD/MM/YYYY for dates.").polarity() == {"dd/mm/yyyy": USE}
    assert stance("Format dates as MM/DD/YYYY from now on.").polarity() == {"mm/dd/yyyy": USE}
    assert stance("Never write dates as MM/DD/YY.").polarity() == {"mm/dd/yy": AVOID}
    assert stance("Use DD/MM/YYYY instead of YYYY-MM-DD.").polarity() == {
        "dd/mm/yyyy": USE,
        "yyyy-mm-dd": AVOID,
    }
    assert agrees(stance("Use YYYY-MM-DD for dates."), stance("Write dates as YYYY-MM-DD."))
    assert reverses(stance("Never write dates as MM/DD/YY."), stance("Use MM/DD/YY for dates."))
    # a version number or a file name is no date notation
    assert all(target_kind(t) is None for t in stance("Use numpy 1.26.4 in setup.py.").polarity())
    assert target_kind("dd/mm/yyyy") == "date format"
    assert target_kind("npm") is None


def test_a_convention_named_by_its_notation_is_one_target_in_one_spelling() -> None:
    assert stance("Use snake_case for variable names.").polarity() == {"snakecase": USE}
    assert stance("Name files in kebab-case.").polarity() == {"kebabcase": USE}
    assert stance("Never use camel case for file names.").polarity() == {"camelcase": AVOID}
    assert stance("Use single quotes for strings.").polarity() == {"single quotes": USE}
    assert stance("Use 4 spaces for indentation.").polarity() == {"4-space": USE}
    assert agrees(stance("Use snake case for variables."), stance("Use snake_case for names."))
    assert notations("Use Snake_Case, 2 spaces and double-quoted strings") == (
        "snakecase",
        "2-space",
        "double quotes",
    )
    assert [target_kind(t) for t in ("camelcase", "double quotes", "4-space", "case")] == [
        "naming case",
        "quote style",
        "indentation",
        None,
    ]
    assert notations("Use a case statement here.") == ()
