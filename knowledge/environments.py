"""The environment a decision is scoped to, written into its subject by one rule.

"Switch the main database to SQLite for local development" is a choice for one environment: its
subject is "main database (local development)", so it neither ends nor is ended by the
project-wide "main database uses PostgreSQL 16". Extraction writes the form (`scoped_subject`);
ranking reads it back from a statement (`statement_environment`).
"""

from __future__ import annotations

import re

ENVIRONMENTS = ("local development", "production", "staging", "tests", "CI")
"""The names an environment is stored under (what a user's words for it are normalised to)."""


def scoped_subject(subject: str, environment: str | None) -> str:
    """`subject` scoped to `environment` ("main database (local development)"), or as it is."""
    return f"{subject} ({environment})" if environment else subject


def statement_environment(statement: str, predicate: str) -> str | None:
    """The environment of a decision's statement ("... (production) uses X"), or None."""
    if not predicate:
        return None
    m = re.search(r"\(([^()]+)\) " + re.escape(predicate) + r"\b", statement)
    return m.group(1) if m and m.group(1) in ENVIRONMENTS else None
