"""Knowledge reads kept in process while exact: the rules in force of a scope, read as of now.

Every `context` call opens with the corrections and standing preferences in force
(`RecallRepository.rules_in_force`): tens of rows read, decoded and built per call, though they
change only when knowledge is written or when one of them starts or stops holding. So the read
at the default as-of (now, as known now) is kept per scope with

- the knowledge clock it was read under (`cypher/knowledge_clock/bump.cypher`: the registry puts
  the bump into every write that may change knowledge, so no writer can forget it), and
- the earliest instant after the read at which one of the scope's corrections or preferences
  starts or stops holding, or its end as known changes (`RecallRepository.rules_next_change`).

It is served while the clock has not moved and that instant has not come, which is exactly while
a new read would return the same rows. A scope is kept from its second call under one clock: the
first reads the rules alone, so while knowledge is being written and the clock moves between
calls, no call pays for the second read. The clock is read before the rows, so rows are at least as
new as the clock they are kept under; a write between the two moves the clock, and the next call
reads again. Reads at another as-of or known-at time go to the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from graph.repositories.clocks import KnowledgeClock
from graph.repositories.recall import KnowledgeHit, RecallRepository

_MAX_SCOPES = 1024
"""Scopes kept at once; past it the cache starts over (scopes are projects or their sets)."""


@dataclass(frozen=True)
class _Held:
    clock: KnowledgeClock
    until: int | None
    """The first instant the rows may be wrong at (None: only a write changes them)."""
    rules: list[KnowledgeHit]


class RulesCache:
    """The rules in force per scope as of now, each kept while a new read would return it."""

    def __init__(self, repo: RecallRepository) -> None:
        self._repo = repo
        self._held: dict[tuple[str, ...], _Held] = {}
        self._missed: dict[tuple[str, ...], KnowledgeClock] = {}
        """Scope -> the clock of its last miss: a second miss under the same clock keeps."""
        self.hits = 0
        self.misses = 0

    async def in_force_now(
        self, projects: Sequence[str], clock: KnowledgeClock | None, now: int
    ) -> list[KnowledgeHit]:
        """`rules_in_force(projects, as_of=now, known_at=now)`; `clock` was read before `now`.

        Without a knowledge clock (no knowledge written yet, or a wiped graph) nothing is kept.
        """
        key = tuple(projects)
        held = self._held.get(key)
        if (
            held is not None
            and clock is not None
            and held.clock == clock
            and (held.until is None or now < held.until)
        ):
            self.hits += 1
            return held.rules
        self.misses += 1
        if clock is None or self._missed.get(key) != clock:
            # The first miss under a clock reads the rules alone: while knowledge is being
            # written (an ingest) the clock moves between calls, and keeping would not pay.
            if len(self._missed) >= _MAX_SCOPES:
                self._missed.clear()
            if clock is not None:
                self._missed[key] = clock
            return await self._repo.rules_in_force(projects, as_of=now, known_at=now)
        rules, until = await asyncio.gather(
            self._repo.rules_in_force(projects, as_of=now, known_at=now),
            self._repo.rules_next_change(projects, now=now),
        )
        if len(self._held) >= _MAX_SCOPES:
            self._held.clear()
        self._held[key] = _Held(clock, until, rules)
        return rules
