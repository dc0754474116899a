"""Fuzz scenario: hypothesis-generated requests to `/graphql` with an `alpha`-only key.

The oracle (`check_response`, `leaks`) says no to any 5xx, an error without a message, a masked
internal error, or anything of project `beta` coming back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ai.embed import Embedder
from graph.config import EmbeddedSettings
from graph.embedded import EmbeddedServer
from tests.support.api import (
    BETA_SECRETS,
    CONTEXT_QUERY,
    api_settings,
    make_keys,
    seed_projects,
)
from tests.support.engine import graph, local_embedder
from tests.support.load import QUERIES

_TEMPLATES: dict[str, str] = {
    "context": CONTEXT_QUERY,
    "context_kinds": """query($q: String!, $asOf: DateTime, $knownAt: DateTime,
      $kinds: [ContextKind!], $limit: Int!) {
      context(query: $q, asOf: $asOf, knownAt: $knownAt, kinds: $kinds, limit: $limit) {
      __typename ... on ContextPayload { items { id kind text } }
      ... on InvalidInput { field message } } }""",
    "search": """query($q: String!, $mode: SearchMode!, $p: String, $first: Int!, $after: String) {
      search(query: $q, mode: $mode, project: $p, first: $first, after: $after) { __typename
      ... on SearchHitConnection { pageInfo { endCursor } edges { node { id score
        turn { __typename id text project } } } }
      ... on InvalidInput { field message } ... on Forbidden { project message } } }""",
    "session": """query($id: String!, $first: Int!, $after: String) { session(id: $id) {
      __typename ... on Session { id title project turns(first: $first, after: $after) {
        nodes { __typename id text project } } } ... on NotFound { id message } } }""",
    "turn": """query($id: String!) { turn(id: $id) { __typename
      ... on Turn { id text project session { __typename id title project } }
      ... on NotFound { id message } } }""",
    "project": """query($id: String!, $first: Int!) { project(id: $id) { __typename
      ... on Project { id name sessions(first: $first) { nodes { __typename id title project } } }
      ... on NotFound { id message } } }""",
    "sessions": """query($p: String, $first: Int!, $after: String, $asOf: DateTime) {
      sessions(project: $p, first: $first, after: $after, asOf: $asOf) { __typename
      ... on SessionConnection { nodes { __typename id title project } }
      ... on InvalidInput { field message } ... on Forbidden { project message } } }""",
    "projects": """query($first: Int!, $after: String) { projects(first: $first, after: $after) {
      __typename ... on ProjectConnection { nodes { __typename id name } }
      ... on InvalidInput { field message } } }""",
    "ingest": """mutation($input: IngestTurnsInput!) { ingestTurns(input: $input) { __typename
      ... on InvalidInput { field message } ... on Forbidden { project message }
      ... on Unavailable { capability message } } }""",
}
_FIELDS = (
    "context",
    "search",
    "session",
    "turn",
    "project",
    "projects",
    "sessions",
    "ingestTurns",
    "__schema",
    "__type",
    "nope",
)
_ALLOWED_STATUS = frozenset({200, 400, 401, 405, 413, 415, 422})


def _json_values() -> Any:
    from hypothesis import strategies as st

    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=40)
    )
    return st.recursive(
        scalars,
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=8,
    )


def _strategies(ids: dict[str, list[str]]) -> Any:
    """Hypothesis strategy of `(kind, payload)` requests: templates with good, wrong-typed, huge
    or unknown variables; documents built from field names with random arguments; random text
    as a document; random bytes as a body."""
    from hypothesis import strategies as st

    clean = st.text(max_size=120).filter(lambda t: not any(s in t.lower() for s in BETA_SECRETS))
    huge = st.integers(4_001, 6_000).map(lambda n: "graph " * (n // 6 + 1))
    ints = st.sampled_from([0, -1, 1, 3, 200, 201, 10**6, 2**31, 2**53, -(2**63)]) | st.integers()
    known = ids["alpha"] + ids["beta"]
    all_values = {
        "q": clean | huge | st.sampled_from(list(QUERIES)),
        "p": st.none() | st.sampled_from(["alpha", "beta", "*", "", "ALPHA", "../beta"]) | clean,
        "budget": st.none() | ints,
        "limit": ints,
        "first": ints,
        "after": st.none() | clean | st.sampled_from(["MA==", "LTE=", "OTk5OTk5OTk5", "nope"]),
        "id": st.sampled_from(known) | clean | st.sampled_from(["", "ses_", "*"]),
        "mode": st.sampled_from(["FULLTEXT", "VECTOR", "HYBRID", "hybrid", "BOGUS"]),
        "asOf": st.none()
        | st.sampled_from(
            ["2023-05-08T14:00:00Z", "1999-01-01T00:00:00", "not a date", "9999-12-31T23:59:59Z"]
        )
        | clean,
        "knownAt": st.none() | st.sampled_from(["2023-05-08T14:00:00Z", "0000-00-00"]),
        "kinds": st.none()
        | st.lists(st.sampled_from(["TURN", "LESSON", "FACT", "BAD"]), max_size=3),
        "input": st.fixed_dictionaries(
            {
                "project": st.sampled_from(["alpha", "beta", ""]),
                "sessionKey": clean,
                "turns": st.lists(
                    st.fixed_dictionaries({"role": clean, "text": clean}), max_size=3
                ),
            }
        ),
    }
    anything = _json_values()

    @st.composite
    def template(draw: Any) -> tuple[str, Any]:
        name = draw(st.sampled_from(sorted(_TEMPLATES)))
        doc = _TEMPLATES[name]
        variables: dict[str, Any] = {}
        for var, strat in all_values.items():
            if f"${var}" not in doc or draw(st.integers(0, 9)) == 0:
                continue  # sometimes leave a (maybe required) variable out
            variables[var] = draw(anything if draw(st.integers(0, 5)) == 0 else strat)
        return "template:" + name, {"query": doc, "variables": variables}

    @st.composite
    def built(draw: Any) -> tuple[str, Any]:
        field_name = draw(st.sampled_from(_FIELDS))
        args = draw(
            st.dictionaries(
                st.sampled_from(
                    [
                        "id",
                        "query",
                        "first",
                        "limit",
                        "after",
                        "project",
                        "mode",
                        "tokenBudget",
                        "asOf",
                        "x",
                    ]
                ),
                st.sampled_from(
                    [
                        '"alpha"',
                        '"beta"',
                        "-1",
                        "99999999999999999999",
                        "null",
                        "true",
                        "[1,2]",
                        "{a: 1}",
                        "HYBRID",
                        '""',
                        "1.5",
                        '"ses_beta"',
                    ]
                ),
                max_size=4,
            )
        )
        arg_text = f"({', '.join(f'{k}: {v}' for k, v in args.items())})" if args else ""
        sel = draw(
            st.sampled_from(
                [
                    "{ __typename }",
                    "",
                    "{ __typename ... on NotFound { id } }",
                    "{ __typename { x } }",
                    "{ id }",
                ]
            )
        )
        op = "mutation" if field_name == "ingestTurns" else draw(st.sampled_from(["query", ""]))
        return "built:" + field_name, {"query": f"{op} {{ {field_name}{arg_text} {sel} }}"}

    raw_doc = clean.map(lambda t: ("raw-document", {"query": t}))
    raw_body = st.binary(max_size=200).map(lambda b: ("raw-body", b))
    deep = st.integers(5, 40).map(
        lambda n: (
            "deep",
            {
                "query": "query { projects { ... on ProjectConnection { nodes { sessions { nodes { "
                + "turns { nodes { session { " * n
                + "id"
                + " } } }" * n
                + " } } } } } }"
            },
        )
    )
    return st.one_of(template(), template(), template(), built(), raw_doc, raw_body, deep)


def leaks(data: Any, beta_ids: frozenset[str]) -> list[str]:
    """Places in `data` where `beta` items appear (NotFound/Forbidden echoes excepted)."""
    found: list[str] = []

    def walk(x: Any, path: str) -> None:
        if isinstance(x, dict):
            if x.get("__typename") in ("NotFound", "Forbidden"):
                return
            if (
                x.get("id") in beta_ids
                or x.get("project") == "beta"
                or x.get("sessionId") in beta_ids
            ):
                found.append(path)
            for k, v in x.items():
                walk(v, f"{path}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{path}[{i}]")

    walk(data, "data")
    return found


def check_response(status: int, text: str, beta_ids: frozenset[str]) -> str | None:
    """None when a response is acceptable, else why not."""
    if status >= 500 or status not in _ALLOWED_STATUS:
        return f"HTTP {status}: {text[:300]}"
    low = text.lower()
    if "traceback" in low or "internal error" in low:
        return f"unexpected error: {text[:300]}"
    if any(s in low for s in BETA_SECRETS):
        return f"beta text leaked: {text[:300]}"
    try:
        body = json.loads(text)
    except ValueError:
        return None if status in (400, 405, 415, 422) else f"not JSON: {text[:200]}"
    if not isinstance(body, dict):
        return f"unexpected body: {text[:200]}"
    for e in body.get("errors") or []:
        if not isinstance(e, dict) or not str(e.get("message", "")).strip():
            return f"error without a message: {text[:200]}"
    if status == 200 and "data" not in body and "errors" not in body:
        return f"neither data nor errors: {text[:200]}"
    found = leaks(body.get("data"), beta_ids)
    if found:
        return f"beta ids leaked at {found[:3]}: {text[:300]}"
    return None


def fuzz_api(
    workdir: Path,
    *,
    max_examples: int = 150,
    embedder: Embedder | None = None,
    max_body_bytes: int = 50_000,
) -> dict[str, Any]:
    """Fuzz `/graphql` through `httpx.ASGITransport` with an `alpha`-only key (sync: runs its own
    event loop, so hypothesis drives one request per example). Failures are collected, not raised:
    no 5xx, every error has a message, nothing of project `beta` comes back; oversize bodies get
    413 naming the limit."""
    import httpx
    from hypothesis import HealthCheck, Phase, given
    from hypothesis import settings as hsettings

    from api.app import create_app
    from api.services import ApiServices

    emb = embedder or local_embedder()
    loop = asyncio.new_event_loop()
    server = EmbeddedServer(EmbeddedSettings(data_dir=workdir / "fuzz"))
    server.start()
    out: dict[str, Any] = {"max_examples": max_examples}
    try:

        async def setup() -> tuple[dict[str, list[str]], dict[str, str]]:
            async with graph(server) as db:
                ids = await seed_projects(db, emb)
                keys = await make_keys(db, {"alpha": ["alpha"]})
            return ids, keys

        ids, keys = loop.run_until_complete(setup())
        beta_ids = frozenset(ids["beta"])
        app = create_app(  # one key sends every input: rate limits are tested in test_fair_use
            api_settings(server, max_body_bytes=max_body_bytes, rate_per_s=1e6, rate_burst=10**6),
            ApiServices(embedder=emb),
        )
        lifespan = app.router.lifespan_context(app)
        loop.run_until_complete(lifespan.__aenter__())
        client = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://api", timeout=60
        )
        headers = {"Authorization": f"Bearer {keys['alpha']}"}
        failures: list[dict[str, Any]] = []
        kinds: dict[str, int] = {}
        statuses: dict[str, int] = {}
        resolved = [0]

        async def send(kind: str, payload: Any, hdrs: dict[str, str]) -> tuple[int, str]:
            # Encode here, not in httpx: it refuses NaN/Infinity, which a client may still send.
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            try:
                r = await client.post(
                    "/graphql", content=body, headers=hdrs | {"content-type": "application/json"}
                )
            except Exception as e:  # an exception escaping the app is what a 500 would be
                return 599, f"{type(e).__name__}: {e}"
            return r.status_code, r.text

        def record(kind: str, payload: Any, status: int, text: str) -> None:
            kinds[kind.split(":")[0]] = kinds.get(kind.split(":")[0], 0) + 1
            statuses[str(status)] = statuses.get(str(status), 0) + 1
            with contextlib.suppress(ValueError):
                body = json.loads(text)
                if (
                    isinstance(body, dict)
                    and isinstance(body.get("data"), dict)
                    and any(v is not None for v in body["data"].values())
                ):
                    resolved[0] += 1
            why = check_response(status, text, beta_ids)
            if why is not None:
                shown = payload if isinstance(payload, dict) else repr(payload)[:200]
                failures.append(
                    {
                        "kind": kind,
                        "why": why,
                        "request": json.loads(json.dumps(shown, default=repr)),
                    }
                )

        @hsettings(
            max_examples=max_examples,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(_strategies(ids))
        def one(req: tuple[str, Any]) -> None:
            kind, payload = req
            status, text = loop.run_until_complete(send(kind, payload, headers))
            record(kind, payload, status, text)

        t = time.perf_counter()
        one()
        # Fixed cases: no key, a wrong key, oversize bodies with and without a length header.
        fixed: list[tuple[str, int, str]] = []
        q = {"query": "{ projects { __typename } }"}
        for name, hdrs in (("no-key", {}), ("bad-key", {"X-API-Key": "rg_wrong"})):
            status, text = loop.run_until_complete(send(name, q, hdrs))
            record(name, q, status, text)
            fixed.append((name, status, text))
        for raw in (b"7", b"null", b'"x"', b"[7]", b"true", b"\xff\xfe"):
            status, text = loop.run_until_complete(send("raw-json", raw, headers))
            record("raw-json", raw, status, text)
            fixed.append((f"raw-json {raw!r}", status, text))
        big = {"query": CONTEXT_QUERY, "variables": {"q": "x" * (max_body_bytes + 10), "limit": 3}}
        status, text = loop.run_until_complete(send("oversize", big, headers))
        fixed.append(("oversize", status, text))

        async def chunks() -> AsyncIterator[bytes]:
            yield b'{"query": "{ projects { __typename } }", "pad": "'
            for _ in range(max_body_bytes // 1000 + 2):
                yield b"y" * 1000
            yield b'"}'

        async def streamed() -> tuple[int, str]:
            r = await client.post(
                "/graphql", content=chunks(), headers=headers | {"content-type": "application/json"}
            )
            return r.status_code, r.text

        status, text = loop.run_until_complete(streamed())
        fixed.append(("oversize-streamed", status, text))
        out["seconds"] = round(time.perf_counter() - t, 2)
        out["fixed_cases"] = {n: {"status": s, "body": txt[:300]} for n, s, txt in fixed}
        out["oversize_rejected"] = all(
            s == 413 and str(max_body_bytes) in txt
            for n, s, txt in fixed
            if n.startswith("oversize")
        )
        out["inputs_tried"] = sum(kinds.values()) + 2  # + the two oversize bodies
        out["by_kind"] = kinds
        out["answered_with_data"] = resolved[0]
        out["status_codes"] = statuses
        out["failures"] = failures[:20]
        out["failure_count"] = len(failures)
        loop.run_until_complete(client.aclose())
        loop.run_until_complete(lifespan.__aexit__(None, None, None))
    finally:
        server.stop()
        loop.close()
    return out
