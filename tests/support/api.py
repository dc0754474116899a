"""API scenarios' data and helpers: two projects (`alpha`, `beta`), keys, settings, queries.

A key scoped to `alpha` must never see anything of `beta`; `BETA_SECRETS` are strings only `beta`'s
data contains. `engine_down_api` kills the engine under a running app and watches it recover.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ai.embed import Embedder
from graph.config import Engine
from graph.embedded import EmbeddedServer
from graph.engines.falkordb import FalkorDBGraph
from graph.models import Session, Turn
from graph.repositories.api_keys import ApiKeyRepository
from graph.repositories.projects import ProjectRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository
from tests.support.engine import GRAPH, engine, graph, local_embedder

CONTEXT_QUERY = """
query($q: String!, $p: String, $budget: Int, $limit: Int!) {
  context(query: $q, project: $p, tokenBudget: $budget, limit: $limit) {
    __typename
    ... on ContextPayload { totalTokens candidates items { id kind text score tokens } }
    ... on Forbidden { project message }
    ... on InvalidInput { field message }
  }
}"""

CONTEXT_FULL_QUERY = """
query($q: String!, $p: String, $budget: Int, $limit: Int!) {
  context(query: $q, project: $p, tokenBudget: $budget, limit: $limit) {
    __typename
    ... on ContextPayload {
      totalTokens candidates terms speakers
      items { id kind text score tokens why { name value }
              provenance { project sessionId turnIds timestamp speaker } }
    }
    ... on Forbidden { project message }
    ... on InvalidInput { field message }
  }
}"""
"""`CONTEXT_QUERY` selecting every field of the payload (why, provenance, query understanding)."""

# Two projects for the API scenarios: keys scoped to `alpha` must never see `beta`'s data.
CONVERSATIONS: dict[str, list[tuple[str, str]]] = {
    "alpha": [
        ("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
        ("Melanie", "That sounds amazing! What happened there?"),
        ("Caroline", "The transgender stories were inspiring and I felt accepted."),
        ("Melanie", "I painted a lake sunrise last week, it calms me down."),
        ("Caroline", "I am researching adoption agencies because I want to be a mother."),
    ],
    "beta": [
        ("Jon", "The secret launch code for the beta project is tangerine."),
        ("Gina", "Our dance studio opens in June with a big party."),
        ("Jon", "I lost my banking job so I am starting a dance studio."),
    ],
}
BETA_SECRETS = ("tangerine", "dance studio", "banking job", "beta chat")
"""Strings only project `beta`'s data contains: an `alpha` key must never get them back."""

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


async def seed_projects(db: FalkorDBGraph, embedder: Embedder) -> dict[str, list[str]]:
    """Sessions and embedded turns of `alpha` and `beta`; returns each project's ids."""
    sessions_repo, turns_repo = SessionRepository(db), TurnRepository(db)
    ids: dict[str, list[str]] = {}
    for project, lines in CONVERSATIONS.items():
        sid = f"ses_{project}"
        s = Session(
            id=sid,
            project=project,
            source="api",
            title=f"{project} chat",
            source_key=sid,
            started_at=T0,
            valid_from=T0,
            turn_count=len(lines),
        )
        await sessions_repo.upsert_many([s])
        await ProjectRepository(db).link_sessions([s])
        turns = [
            Turn(
                id=f"trn_{project}_{i}",
                project=project,
                session_id=sid,
                ordinal=i,
                role="user",
                speaker=spk,
                text=text,
                token_estimate=len(text) // 4 + 1,
                valid_from=T0 + timedelta(minutes=i),
            )
            for i, (spk, text) in enumerate(lines)
        ]
        await turns_repo.upsert_many(turns)
        vecs = await embedder.embed([t.text for t in turns])
        await turns_repo.set_embeddings(zip([t.id for t in turns], vecs, strict=True))
        await sessions_repo.link_turns(turns)
        ids[project] = [sid, *(t.id for t in turns)]
    return ids


async def make_keys(db: FalkorDBGraph, scopes: dict[str, list[str]]) -> dict[str, str]:
    """API key secrets by name, for the given project scopes."""
    repo = ApiKeyRepository(db)
    return {name: (await repo.create(name, projects))[1] for name, projects in scopes.items()}


def api_settings(server: EmbeddedServer, **api: Any) -> Any:
    """`ApiSettings` for the graph on `server` (test env; limits overridable)."""
    from api.config import ApiSettings

    return ApiSettings(
        env="test",
        engine=Engine.FALKORDB,
        graph_name=GRAPH,
        falkordb={"unix_socket": server.socket_path, "query_timeout_s": 10.0},
        api=api,
        _env_file=None,
    )


def gql_error(body: Any) -> str:
    """The first GraphQL error message (or HTTP `detail`) of a response body, else empty."""
    if isinstance(body, dict):
        errs = body.get("errors") or []
        if errs and isinstance(errs[0], dict):
            return str(errs[0].get("message", ""))
        if "detail" in body:
            return str(body["detail"])
    return ""


async def engine_down_api(
    workdir: Path, *, embedder: Embedder | None = None, recover_timeout_s: float = 20.0
) -> dict[str, Any]:
    """Kill the engine under a running API app: `/readyz` must answer 503 and GraphQL a clear
    error (never a 500), then both must recover without restarting the app."""
    import httpx

    from api.app import create_app
    from api.services import ApiServices

    emb = embedder or local_embedder()
    out: dict[str, Any] = {}
    with engine(workdir / "api") as server:
        async with graph(server) as db:
            await seed_projects(db, emb)
            keys = await make_keys(db, {"alpha": ["alpha"], "fresh": ["alpha"]})
        app = create_app(api_settings(server), ApiServices(embedder=emb))
        variables = {
            "q": "When did Caroline go to the support group?",
            "p": "alpha",
            "budget": 500,
            "limit": 3,
        }

        async def context(c: httpx.AsyncClient, key: str) -> httpx.Response:
            return await c.post(
                "/graphql",
                json={"query": CONTEXT_QUERY, "variables": variables},
                headers={"Authorization": f"Bearer {key}"},
            )

        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://api") as c:
                r = await c.get("/readyz")
                out["ready_before"] = r.status_code
                r = await context(c, keys["alpha"])
                data = r.json().get("data") or {}
                out["context_before"] = {
                    "status": r.status_code,
                    "typename": (data.get("context") or {}).get("__typename"),
                    "top": [i["id"] for i in (data.get("context") or {}).get("items", [])][:1],
                }
                server.kill()
                # a cached key sees why it is not ready; without a key, only that it is not
                r = await c.get("/readyz", headers={"Authorization": f"Bearer {keys['alpha']}"})
                out["ready_down"] = {"status": r.status_code, "body": r.json()}
                r = await c.get("/readyz")
                out["ready_down_bare"] = {"status": r.status_code, "body": r.json()}
                r = await context(c, keys["alpha"])  # key cached: the resolver hits the engine
                out["graphql_down"] = {
                    "status": r.status_code,
                    "error": gql_error(r.json()),
                    "code": error_code(r.json()),
                }
                r = await context(c, keys["fresh"])  # key not cached: auth hits the engine
                out["graphql_down_new_key"] = {
                    "status": r.status_code,
                    "error": gql_error(r.json()),
                    "code": error_code(r.json()),
                }
                t = time.perf_counter()
                server.start()
                out["engine_restart_s"] = round(time.perf_counter() - t, 3)
                t = time.perf_counter()
                ready = 0
                deadline = time.monotonic() + recover_timeout_s
                while time.monotonic() < deadline:
                    ready = (await c.get("/readyz")).status_code
                    if ready == 200:
                        break
                    await asyncio.sleep(0.1)
                out["ready_after"] = ready
                r = await context(c, keys["alpha"])
                data = r.json().get("data") or {}
                out["context_after"] = {
                    "status": r.status_code,
                    "typename": (data.get("context") or {}).get("__typename"),
                    "top": [i["id"] for i in (data.get("context") or {}).get("items", [])][:1],
                }
                out["recovered_in_s"] = round(time.perf_counter() - t, 3)
    return out


def error_code(body: Any) -> str | None:
    """The first GraphQL error's `extensions.code`, if any."""
    if isinstance(body, dict):
        errs = body.get("errors") or []
        if errs and isinstance(errs[0], dict):
            return (errs[0].get("extensions") or {}).get("code")
    return None


def app_from_env() -> Any:
    """uvicorn `--factory` target: the API app configured from `REMGRAPH_*` variables."""
    from api.app import create_app
    from api.config import ApiSettings

    return create_app(ApiSettings())
