"""The context pack: latest monthly + latest weekly + today's daily primer, within 35 KB.

Each primer is built within its own budget (15 + 12 + 8 KB), so the pack fits whatever the size of
the history; the final cut is a safety net that should never trigger.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from consolidate.rollup import day_key
from consolidate.text import fit_bytes, utf8_len
from core.timeutil import to_ms
from graph.db import GraphDB
from graph.models import utc_now
from graph.repositories.primers import PrimerRepository


@dataclass(frozen=True)
class ContextPack:
    """The assembled pack.

    Attributes:
        text: Markdown, monthly first, then weekly, then today.
        size_bytes: UTF-8 size of `text`.
        primer_ids: the primers used.
        cut: True if the safety cut trimmed the text.
    """

    text: str
    size_bytes: int
    primer_ids: tuple[str, ...]
    cut: bool = False


async def context_pack(
    db: GraphDB, project: str, *, now: datetime | None = None, budget: int = 35_000
) -> ContextPack:
    """Assemble the context pack of `project` (or `*`) as of `now`."""
    now = now or utc_now()
    ms = to_ms(now)
    repo = PrimerRepository(db)
    parts = [
        await repo.latest(project, "monthly", ms),
        await repo.latest(project, "weekly", ms),
        await repo.get_by_key(project, "daily", day_key(now.date()), ms),
    ]
    used = [p for p in parts if p is not None]
    text = "\n".join(p.text for p in used)
    cut = utf8_len(text) > budget
    if cut:
        text = fit_bytes(text, budget)
    return ContextPack(
        text=text, size_bytes=utf8_len(text), primer_ids=tuple(p.id for p in used), cut=cut
    )
