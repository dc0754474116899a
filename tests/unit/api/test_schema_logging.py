"""A client's typo in a query is one INFO line in the log, not an ERROR with a code frame."""

from __future__ import annotations

import logging

from api.schema import build_schema


async def test_a_query_typo_is_logged_once_at_info_on_one_line(caplog) -> None:
    caplog.set_level(logging.DEBUG)
    result = await build_schema().execute('{ contxt(query: "x") { __typename } }')
    assert result.errors
    assert "Cannot query field 'contxt'" in result.errors[0].message
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    refused = [r for r in caplog.records if r.name == "remgraph.api"]
    assert len(refused) == 1
    assert refused[0].levelno == logging.INFO
    line = refused[0].getMessage()
    assert "refused: Cannot query field 'contxt'" in line
    assert "\n" not in line
