from __future__ import annotations

from ingest.extract.text import (
    capitalised_names,
    keyphrases,
    tech_category,
    technologies,
)


def test_technologies_and_categories() -> None:
    assert technologies("We use FastAPI with PostgreSQL and pytest.") == [
        "fastapi",
        "postgresql",
        "pytest",
    ]
    assert tech_category("SQLite") == "database"
    assert tech_category("nothing-known") is None


def test_capitalised_names_skip_sentence_starts() -> None:
    names = capitalised_names("Yesterday I met Caroline at the park. Melanie joined us.")
    assert names == ["Caroline"]
    assert capitalised_names("Then Melanie came.") == ["Melanie"]


def test_keyphrases_fold_plurals_and_skip_code() -> None:
    docs = [
        "The unit tests fail on the import path.",
        "Fixing the unit test import path now.",
        "def foo(): return bar()",
    ]
    top = keyphrases(docs, top=3)
    assert top[0].phrase in {"import path", "unit test", "unit tests"}
    assert all("foo" not in k.phrase for k in top)
    assert keyphrases([]) == []
