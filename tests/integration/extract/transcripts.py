"""Hand-made transcripts and a helper that stores them as real Session and Turn nodes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from core.ids import make_id
from graph.db import GraphDB
from graph.models import Session, Turn
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository
from ingest.extract.models import SessionInput, TurnInput

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

Line = tuple[str, str] | tuple[str, str, str, bool]
"""`(role, text)` or `("tool", text, tool_name, ok)`."""


def session(project: str, key: str, day: int, lines: Sequence[Line]) -> SessionInput:
    sid = make_id("session", project, key)
    turns = []
    for i, line in enumerate(lines):
        role, text = line[0], line[1]
        tool_name = line[2] if len(line) > 2 else None
        ok = line[3] if len(line) > 3 else None
        turns.append(
            TurnInput(
                id=make_id("turn", sid, i),
                ordinal=i,
                role=role,
                text=text,
                timestamp=T0 + timedelta(days=day, minutes=i),
                tool_name=tool_name,
                tool_ok=ok,
            )
        )
    return SessionInput(id=sid, project=project, turns=tuple(turns), title=key)


async def store(db: GraphDB, s: SessionInput) -> None:
    """Write the session and its turns, so provenance edges have real endpoints."""
    first, last = s.turns[0].timestamp, s.turns[-1].timestamp
    await SessionRepository(db).upsert_many(
        [
            Session(
                id=s.id,
                project=s.project,
                source_key=s.title,
                title=s.title,
                started_at=first,
                ended_at=last,
                turn_count=len(s.turns),
                valid_from=first,
            )
        ]
    )
    await TurnRepository(db).upsert_many(
        [
            Turn(
                id=t.id,
                project=s.project,
                session_id=s.id,
                ordinal=t.ordinal,
                role=t.role,
                text=t.text,
                tool_name=t.tool_name,
                tool_ok=t.tool_ok,
                valid_from=t.timestamp,
            )
            for t in s.turns
        ]
    )


PYTEST_WORDINGS = [
    "No, use pytest not unittest.",
    "Please use pytest instead of unittest.",
    "Use pytest rather than unittest, please.",
    "No no, use pytest, not unittest!",
    "Again: use pytest instead of unittest.",
]


def pytest_session(project: str, k: int) -> SessionInput:
    return session(
        project,
        f"tests-{k}",
        day=k * 2,
        lines=[
            ("user", f"Can you add tests for the parser module {k}?"),
            ("assistant", "Sure. I'll write the tests with unittest.TestCase classes."),
            ("user", PYTEST_WORDINGS[k]),
            ("assistant", "Understood, switching the tests to pytest functions."),
        ],
    )


def lesson_session(project: str, key: str, day: int, fix: str) -> SessionInput:
    return session(
        project,
        key,
        day=day,
        lines=[
            ("user", "Run the test suite please."),
            ("assistant", "Running pytest now."),
            (
                "tool",
                'Traceback (most recent call last):\n  File "app.py", line 1, in <module>\n'
                "    import requests\nModuleNotFoundError: No module named 'requests'",
                "Bash",
                False,
            ),
            ("assistant", fix),
            ("tool", "============ 14 passed in 0.52s ============", "Bash", True),
            ("assistant", "All tests pass now."),
        ],
    )
