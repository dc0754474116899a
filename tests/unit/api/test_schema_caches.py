"""Parse and validation caches: they hit on repeated texts and never let a refused query through."""

from __future__ import annotations

from pathlib import Path

from strawberry.extensions import ParserCache, ValidationCache

from api.config import ApiSettings
from api.schema import PARSE_CACHE_SIZE, VALIDATION_CACHE_SIZE, build_schema

SDL = Path(__file__).resolve().parents[3] / "api" / "schema.graphql"

DEEP = """{ projects { ... on ProjectConnection { nodes { sessions { nodes { turns {
  nodes { session { turns { nodes { session { id } } } } } } } } } } } }"""


def _validation_hits() -> int:
    return ValidationCache(maxsize=VALIDATION_CACHE_SIZE).cached_validate_document.cache_info().hits


def _parse_hits() -> int:
    return ParserCache(maxsize=PARSE_CACHE_SIZE).cached_parse_document.cache_info().hits


def test_caches_do_not_change_the_committed_sdl():
    assert SDL.read_text(encoding="utf-8") == build_schema().as_str() + "\n"


async def test_a_repeated_query_hits_both_caches():
    schema = build_schema()
    query = "{ __typename } # test_a_repeated_query_hits_both_caches"
    first = await schema.execute(query)
    parsed, validated = _parse_hits(), _validation_hits()
    second = await schema.execute(query)
    assert first.errors is None
    assert second.errors is None
    assert second.data == {"__typename": "Query"}
    assert _parse_hits() == parsed + 1
    assert _validation_hits() == validated + 1


async def test_a_too_deep_query_is_refused_again_when_served_from_the_cache():
    schema = build_schema(ApiSettings(api={"max_depth": 8}))
    first = await schema.execute(DEEP)
    validated = _validation_hits()
    second = await schema.execute(DEEP)
    assert _validation_hits() == validated + 1  # the second answer came from the cache
    for result in (first, second):
        assert result.data is None
        assert result.errors
        assert "exceeds maximum operation depth" in result.errors[0].message


async def test_too_many_aliases_are_refused_on_every_submission():
    schema = build_schema(ApiSettings(api={"max_aliases": 3}))
    query = "{ " + " ".join(f"a{i}: __typename" for i in range(5)) + " }"
    for _ in range(2):
        result = await schema.execute(query)
        assert result.errors
        assert "aliases found" in result.errors[0].message


async def test_too_many_tokens_are_refused_on_every_submission():
    schema = build_schema(ApiSettings(api={"max_tokens": 10}))
    query = "{ " + " ".join(f"a{i}: __typename" for i in range(10)) + " }"
    for _ in range(2):
        result = await schema.execute(query)
        assert result.errors
        assert "token" in result.errors[0].message.lower()


async def test_limits_of_one_schema_do_not_leak_into_another():
    """The caches are shared between schemas; each schema's own rules decide."""
    strict, lax = (
        build_schema(ApiSettings(api={"max_depth": 8})),
        build_schema(ApiSettings(api={"max_depth": 50})),
    )
    assert (await strict.execute(DEEP)).errors
    lax_result = await lax.execute(DEEP)
    assert not any("depth" in e.message for e in lax_result.errors or [])
