"""The committed SDL (`api/schema.graphql`) matches the code; refresh with `make schema`."""

from pathlib import Path

from api.schema import build_schema

SDL = Path(__file__).resolve().parents[3] / "api" / "schema.graphql"


def test_committed_schema_matches_code():
    assert SDL.read_text(encoding="utf-8") == build_schema().as_str() + "\n", (
        "api/schema.graphql is stale: run `remgraph api export-schema` (or `make schema`)"
    )


def test_schema_has_the_documented_surface():
    sdl = SDL.read_text(encoding="utf-8")
    for field in (
        "context(",
        "search(",
        "sessions(",
        "lessons(",
        "facts(",
        "corrections(",
        "ingestTurns(",
        "recordFeedback(",
        "confirmCorrection(",
        "closeFact(",
    ):
        assert field in sdl, field
    for union in ("union ContextResult = ContextPayload | InvalidInput | Forbidden",):
        assert union in sdl
