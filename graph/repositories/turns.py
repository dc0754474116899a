"""`TurnRepository`: the messages of sessions (searching them: `RecallRepository`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from core.ids import content_hash
from graph.cypher import Q
from graph.models import Turn
from graph.records import Row, turn_from_record, turn_to_row
from graph.repositories.base import TemporalRepository, chunks, window

_UPSERT = Q("turn.upsert_many")
_GET_MANY = Q("turn.get_many")
_LIST = Q("turn.list")
_CLOSE = Q("turn.close")
_SET_EMBEDDINGS = Q("turn.set_embeddings")


class TurnRepository(TemporalRepository[Turn]):
    """Reads and writes `Turn` nodes; `upsert_many` also writes embeddings the turns carry."""

    kind = "turn"
    upsert_query = _UPSERT
    get_many_query = _GET_MANY
    close_query = _CLOSE
    embeddings_query = _SET_EMBEDDINGS

    def _row(self, m: Turn) -> Row:
        row = turn_to_row(m)
        # lets upsert_many skip unchanged turns (see cypher/turn/upsert_many.cypher); recorded_at
        # is left out because a re-upsert keeps the stored one and a re-ingest builds a new one
        content = {k: v for k, v in row.items() if k != "recorded_at"}
        row["row_hash"] = content_hash(json.dumps(content, sort_keys=True, default=str))
        return row

    def _model(self, r: Mapping[str, Any]) -> Turn:
        return turn_from_record(r)

    async def upsert_pending(self, turns: Sequence[Turn], embed_texts: Mapping[str, str]) -> int:
        """Upsert turns; those in `embed_texts` join the embedding backlog with their text.

        The backlog properties sit outside `row_hash`, so a turn written by a killed run and
        written again unchanged is skipped, as in a clean run.
        """
        written = 0
        for batch in chunks(turns, self.batch_size):
            rows = []
            for m in batch:
                row = self._row(m)
                text = embed_texts.get(m.id)
                if text is not None:
                    row["embed_pending"] = True
                    row["embed_text"] = text
                rows.append(row)
            res = await self.db.write(_UPSERT, rows=rows)
            written += int(res[0]["count"]) if res else 0
        return written

    async def list(
        self,
        session_id: str,
        *,
        after: int = -1,
        limit: int = 100,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> list[Turn]:
        """A session's turns in ordinal order, starting after the ordinal `after`."""
        a, k = window(as_of, known_at)
        rows = await self.db.read(
            _LIST, session_id=session_id, after=after, limit=limit, as_of=a, known_at=k
        )
        return [self._model(r["node"]) for r in rows]
