"""Stable application ids.

Ids are deterministic from a node's content key wherever that makes ingestion idempotent: the same
session line always maps to the same turn id, so a re-run MERGEs onto what is already stored.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WS = re.compile(r"\s+")

PREFIXES = {
    "project": "prj",
    "session": "ses",
    "turn": "trn",
    "topic": "top",
    "lesson": "les",
    "lesson_version": "lev",
    "correction": "cor",
    "fact": "fct",
    "community": "com",
    "community_run": "crn",
    "primer": "pri",
    "reference_layer": "ref",
    "topic_brief": "tbr",
    "job_run": "job",
    "finding": "fnd",
    "snapshot": "snp",
    "api_key": "key",
    "context_query": "ctx",
    "rem_action": "rma",
    "rem_run": "rrn",
    "backlog": "bkl",
}


def normalize_key(text: str) -> str:
    """Canonical form of a piece of text used in a key: NFKC, case-folded, single spaces."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def content_hash(text: str) -> str:
    """SHA-256 (hex, first 32 chars) of exact text; used for change detection and caches."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def make_id(kind: str, *parts: str | int) -> str:
    """Deterministic id for a node of `kind` from its key parts, e.g. `trn_3f2a...`.

    Args:
        kind: one of `PREFIXES`' keys.
        *parts: the natural key; order matters, and each part is used verbatim.
    """
    prefix = PREFIXES[kind]
    h = hashlib.blake2b(digest_size=12)
    for p in parts:
        b = str(p).encode("utf-8", "surrogatepass")
        h.update(len(b).to_bytes(4, "little"))
        h.update(b)
    return f"{prefix}_{h.hexdigest()}"


def source_file_id(path: str) -> str:
    """Deterministic id of a transcript file's `SourceFile` node: `src_` + blake2b of the path.

    The path alone is hashed (no length prefix, unlike `make_id`): ids stored by earlier versions
    keep matching, so a re-run still finds each file's saved state.
    """
    digest = hashlib.blake2b(path.encode("utf-8", "surrogatepass"), digest_size=12)
    return "src_" + digest.hexdigest()
