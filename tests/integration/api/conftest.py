"""API fixtures: an app wired to the embedded engine and the real local embedder, seeded with two
projects so every test can check that one project's key never reads the other."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from graph.models import Correction, Fact, Lesson, LessonVersion, Topic
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.topics import TopicRepository
from ingest.config import IngestSettings
from ingest.service import IngestService
from tests.shared_embedder import shared_local_embedder
from tests.support.api import T0, seed_projects


@dataclass
class Seeded:
    """What `seeded` wrote."""

    sessions: dict[str, str]
    turns: dict[str, list[str]]


async def seed(db: Any) -> Seeded:
    """The reliability scenarios' two projects (sessions, embedded turns), plus knowledge items."""
    ids = await seed_projects(db, shared_local_embedder())
    out = Seeded({}, {})
    for project, (sid, *turn_ids) in ids.items():
        out.sessions[project] = sid
        out.turns[project] = list(turn_ids)
        await seed_knowledge(db, project, turn_ids[0])
    return out


async def seed_knowledge(db: Any, project: str, turn_id: str) -> None:
    """One lesson (two versions), correction, fact and topic per project, derived from a turn."""
    lessons, corrections, facts = (
        LessonRepository(db),
        CorrectionRepository(db),
        FactRepository(db),
    )
    lid, cid, fid = f"les_{project}", f"cor_{project}", f"fct_{project}"
    await lessons.upsert_many(
        [
            Lesson(
                id=lid,
                project=project,
                title=f"{project} support groups",
                content=f"In {project}, support group meetings matter to the user.",
                version=2,
                valid_from=T0,
                source_turn_ids=(turn_id,),
            )
        ]
    )
    await lessons.add_versions(
        [
            LessonVersion(
                id=f"lev_{project}_{v}",
                project=project,
                lesson_id=lid,
                version=v,
                title=f"v{v}",
                content=f"version {v}",
                valid_from=T0,
            )
            for v in (1, 2)
        ]
    )
    await lessons.link_sources([(lid, turn_id)])
    await corrections.upsert_many(
        [
            Correction(
                id=cid,
                project=project,
                rule_text=f"{project}: always mention the support group",
                corrected_behaviour="mention the support group",
                valid_from=T0,
                last_seen=T0,
                source_turn_ids=(turn_id,),
            )
        ]
    )
    await corrections.link_sources([(cid, turn_id)])
    await facts.upsert_many(
        [
            Fact(
                id=fid,
                project=project,
                subject="user",
                predicate="attends",
                object="support group",
                statement=f"The {project} user attends a support group",
                kind="event",
                valid_from=T0,
                source_turn_ids=(turn_id,),
            )
        ]
    )
    await facts.link_sources([(fid, turn_id)])
    await TopicRepository(db).upsert_many(
        [
            Topic(
                id=f"top_{project}",
                title=f"{project} support group",
                projects=(project,),
                weight=1.0,
                valid_from=T0,
            )
        ]
    )
    await TopicRepository(db).link_mentions([(turn_id, f"top_{project}")])


@pytest.fixture
def api_settings(graph_settings) -> ApiSettings:
    return ApiSettings(
        env="test",
        engine=graph_settings.engine,
        graph_name=graph_settings.graph_name,
        falkordb=graph_settings.falkordb,
        neo4j=graph_settings.neo4j,
        embedded=graph_settings.embedded,
        # gc_freeze: a test process starts many apps; freezing is tested on its own
        api={"max_body_bytes": 20_000, "max_depth": 8, "gc_freeze": False},
    )


@pytest.fixture
async def seeded(graph_db) -> Seeded:
    return await seed(graph_db)


@pytest.fixture
def make_services(graph_db) -> Callable[..., ApiServices]:
    def make(**kw: Any) -> ApiServices:
        # The real ingest pipeline, wired the way the composition root wires it.
        kw.setdefault(
            "ingestor", IngestService(graph_db, IngestSettings(), embedder=shared_local_embedder())
        )
        return ApiServices(db=graph_db, embedder=shared_local_embedder(), **kw)

    return make


@pytest.fixture
async def keys(graph_db) -> dict[str, str]:
    """Secrets of keys for `alpha`, `beta`, both, and all projects."""
    repo = ApiKeyRepository(graph_db)
    out = {}
    for name, projects in {"alpha": ["alpha"], "beta": ["beta"], "all": ["*"]}.items():
        _, secret = await repo.create(name, projects)
        out[name] = secret
    return out


@pytest.fixture
async def app(api_settings, make_services, seeded, keys) -> AsyncIterator[FastAPI]:
    """The app with its lifespan running (`app.state.resources.recorder.flush()` for records)."""
    app = create_app(api_settings, make_services())
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def gql(client: httpx.AsyncClient, query: str, key: str | None, **variables: Any) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    r = await client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=headers
    )
    return r
