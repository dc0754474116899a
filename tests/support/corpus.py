"""A deterministic generic-JSONL corpus for the crash and load scenarios."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

_VOCABULARY = (
    "graph database memory agent session lesson vector index fulltext python cypher engine "
    "embedding ranking context primer community leiden topic fact correction decision deploy "
    "release migration schema socket worker queue latency budget cache retry timeout backup "
    "restore snapshot consolidate dedupe staleness graduation rollup weekly monthly pytest"
)
WORDS = tuple(_VOCABULARY.split())


def write_corpus(
    folder: Path, *, sessions: int, turns_per_session: int, project: str = "synth", seed: int = 7
) -> int:
    """Write a deterministic generic-JSONL corpus, one file per session; return the turn count."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    for s in range(sessions):
        lines = []
        for t in range(turns_per_session):
            words = rng.choice(WORDS, size=int(rng.integers(12, 40)))
            ts = base + timedelta(days=s, seconds=30 * t)
            lines.append(
                json.dumps(
                    {
                        "session_id": f"{project}-s{s:04d}",
                        "project": project,
                        "id": f"m{t}",
                        "role": "user" if t % 2 == 0 else "assistant",
                        "content": f"turn {t} of session {s}: " + " ".join(words),
                        "timestamp": ts.isoformat().replace("+00:00", "Z"),
                    }
                )
            )
        (folder / f"{project}-s{s:04d}.jsonl").write_text("\n".join(lines) + "\n")
    return sessions * turns_per_session
