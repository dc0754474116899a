"""Deterministic ids and content hashes."""

from __future__ import annotations

import re

import pytest

from core.ids import PREFIXES, content_hash, make_id, normalize_key, source_file_id


def test_make_id_is_deterministic_and_prefixed() -> None:
    a = make_id("turn", "ses_1", 3)
    assert a == make_id("turn", "ses_1", 3)
    assert re.fullmatch(r"trn_[0-9a-f]{24}", a)
    assert make_id("turn", "ses_1", 4) != a
    assert make_id("session", "ses_1", 3).startswith("ses_")


def test_make_id_parts_do_not_run_together() -> None:
    assert make_id("topic", "ab", "c") != make_id("topic", "a", "bc")
    assert make_id("topic", "abc") != make_id("topic", "ab", "c")
    assert make_id("topic", 1) == make_id("topic", "1")


def test_every_kind_has_a_distinct_prefix() -> None:
    assert len(set(PREFIXES.values())) == len(PREFIXES)
    with pytest.raises(KeyError):
        make_id("nonsense", "x")


def test_content_hash() -> None:
    h = content_hash("hello")
    assert h == content_hash("hello") != content_hash("hello ")
    assert re.fullmatch(r"[0-9a-f]{32}", h)
    assert content_hash("\ud800") == content_hash("\ud800")  # lone surrogates from bad JSON


def test_normalize_key() -> None:
    assert normalize_key("  Graph\tDatabases \n") == "graph databases"
    assert normalize_key("ＦＵＬＬ width") == "full width"
    assert normalize_key("Straße") == normalize_key("STRASSE")


def test_source_file_ids_keep_their_stored_form() -> None:
    # Graphs written before the id helpers moved to `core.ids` hold these ids.
    assert source_file_id("/data/a.jsonl") == "src_5e0e7611a214b5eacd16dca2"
    assert source_file_id("/data/a.jsonl") != source_file_id("/data/b.jsonl")
