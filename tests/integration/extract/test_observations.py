"""Observations through the whole path: ingest with extraction, stored facts, `context`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from ai.embed import Embedder
from graph.config import GraphSettings
from graph.db import GraphDB
from graph.kinds import ItemKind
from graph.repositories.facts import FactRepository
from graph.repositories.recall import RecallRepository
from ingest.config import IngestSettings
from ingest.extract.service import ExtractionHook
from ingest.pipeline import ingest_paths
from recall.config import RankingSection
from recall.retrieval import RetrievalService

LINES = [
    ("Rosa", "Hi Tom! Long time no see, how are things with you?"),
    ("Tom", "Hey Rosa! Busy as always, what about you?"),
    ("Rosa", "I adopted a retired greyhound from the shelter yesterday."),
    ("Tom", "Oh wow, that is wonderful news! What is its name?"),
    ("Rosa", "Her name is Pepper and she sleeps all day long."),
    ("Tom", "Ha, that sounds perfect for a lazy weekend."),
    ("Rosa", "My sister taught me to bake rye bread in her bakery last month."),
    ("Tom", "Nice, you should bring some next time we meet."),
    ("Rosa", "Sure thing, see you soon!"),
    ("Tom", "Bye Rosa, take care!"),
    ("Rosa", "I started training for the Lisbon half marathon in October."),
    ("Tom", "Good luck with the training!"),
]


def _conversation(tmp_path: Path) -> Path:
    session = [
        {"speaker": who, "dia_id": f"D1:{i + 1}", "text": text}
        for i, (who, text) in enumerate(LINES)
    ]
    doc = [
        {
            "sample_id": "obs",
            "conversation": {
                "speaker_a": "Rosa",
                "speaker_b": "Tom",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": session,
            },
        }
    ]
    out = tmp_path / "chat.json"
    out.write_text(json.dumps(doc))
    return out


async def test_observations_land_with_their_turn_stay_current_and_are_found_by_context(
    graph_db: GraphDB, graph_settings: GraphSettings, embedder: Embedder, tmp_path: Path
) -> None:
    settings = IngestSettings(**graph_settings.model_dump())
    hook = ExtractionHook(settings, embedder=embedder)
    report = await ingest_paths(
        graph_db, settings, [_conversation(tmp_path)], hooks=[hook], embedder=embedder
    )
    assert report.hook_errors == ()
    await hook.finish(graph_db)
    facts = FactRepository(graph_db)
    project = "locomo-obs"
    stored = [f for f in await facts.list_by_project(project) if f.kind == "observation"]
    rosa = [f for f in stored if f.subject == "rosa"]
    assert len(rosa) >= 2, [f.statement for f in stored]
    # two observations of one speaker: both still current, neither supersedes the other
    assert all(f.valid_to is None for f in rosa)
    greyhound = next(f for f in rosa if "greyhound" in f.statement)
    assert greyhound.statement.startswith("Rosa adopted a retired greyhound")
    assert greyhound.valid_from == datetime(2023, 5, 7, tzinfo=UTC)  # "yesterday"
    [turn_id] = await facts.sources(greyhound.id)
    assert turn_id == greyhound.source_turn_ids[0]

    svc = RetrievalService(RecallRepository(graph_db), embedder, RankingSection())
    res = await svc.context(
        "What kind of dog did Rosa adopt?", (project,), limit=10, token_budget=None
    )
    found = [r.candidate for r in res.items if r.candidate.kind is ItemKind.FACT]
    assert greyhound.id in {c.id for c in found}
