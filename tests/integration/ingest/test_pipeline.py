"""End to end on the embedded engine: every format lands, re-runs are no-ops, appends and edits."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from core.timeutil import now_ms
from graph.cypher import Q
from graph.db import GraphDB
from graph.repositories import SessionRepository, TurnRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.source_files import SourceFileRepository
from ingest.config import IngestSettings
from ingest.models import ParsedSession
from ingest.pipeline import ingest_paths
from ingest.writer import session_id, turn_id

_STATS = Q("admin.stats")


PROJECTS = ["tmp", "widget", "billing", "chatgpt", "notes"]


async def snapshot(db: GraphDB) -> tuple[list[dict], dict[str, str]]:
    """Node counts per label plus every ingest node and edge with its property hash."""
    return await db.read(_STATS), await SourceFileRepository(db).fingerprint(PROJECTS)


async def test_ingests_every_format(graph_db, ingest_settings, embedder, fixtures: Path) -> None:
    rep = await ingest_paths(graph_db, ingest_settings, [fixtures], embedder=embedder)
    assert sorted((Path(f.path).name, f.format, f.outcome) for f in rep.files) == [
        ("conversations.json", "chatgpt", "new"),
        ("edge_cases.jsonl", "claude-code", "new"),
        ("messages.jsonl", "generic", "new"),
        ("representative_messages.jsonl", "claude-code", "new"),
        ("rollout-2025-09-14T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", "codex", "new"),
        ("single.json", "generic", "new"),
    ]
    assert rep.turns_new == 12 + 12 + 11 + 8 + 6 + 2
    assert rep.turns_failed == 1
    assert rep.failed
    bad = [i for i in rep.issues if i.severity == "error"]
    assert [(Path(i.file).name, i.line) for i in bad] == [("edge_cases.jsonl", 11)]

    sid = session_id("billing", "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
    [s] = await SessionRepository(graph_db).get_many([sid])
    assert s is not None
    assert (s.source, s.turn_count, s.input_tokens, s.output_tokens) == ("codex", 11, 12000, 650)
    assert (s.tool_calls, s.tool_failures, s.compactions) == (3, 1, 1)
    assert s.tool_stats["shell"].failures == 1
    assert s.models == ("gpt-5-codex",)

    turns = TurnRepository(graph_db)
    listed = await turns.list(sid, limit=100)
    assert [t.ordinal for t in listed] == list(range(11))
    links = await SessionRepository(graph_db).turn_links(sid)
    nxt = dict(links)
    assert nxt[listed[0].id] == listed[1].id
    assert nxt[listed[-1].id] is None
    fp = await SourceFileRepository(graph_db).fingerprint(PROJECTS)
    assert sum(k.startswith("Turn:") for k in fp) == 51
    assert sum("-HAS_TURN->" in k for k in fp) == 51
    assert sum("-NEXT->" in k for k in fp) == 51 - 8  # one chain per session, 8 sessions
    assert sum("-HAS_SESSION->" in k for k in fp) == 8


async def test_reingest_is_a_noop(graph_db, ingest_settings, embedder, fixtures: Path) -> None:
    await ingest_paths(graph_db, ingest_settings, [fixtures], embedder=embedder)
    before = await snapshot(graph_db)
    again = await ingest_paths(graph_db, ingest_settings, [fixtures], embedder=embedder)
    assert {f.outcome for f in again.files} == {"unchanged"}
    assert again.turns_new == 0
    assert again.turns_unchanged == 51
    assert await snapshot(graph_db) == before
    # even when every file is touched (mtime only), content hashes keep it a no-op
    for f in sorted(str(p) for p in fixtures.rglob("*.json*")):  # noqa: ASYNC240 - test setup
        os.utime(f, ns=(10**18, 10**18))
    third = await ingest_paths(graph_db, ingest_settings, [fixtures], embedder=embedder)
    assert {f.outcome for f in third.files} == {"unchanged"}
    assert await snapshot(graph_db) == before


async def test_appended_lines_add_only_new_turns(
    graph_db, ingest_settings, embedder, tmp_path: Path
) -> None:
    path = tmp_path / "log.jsonl"

    def line(i: int) -> str:
        return (
            json.dumps(
                {
                    "session_id": "s1",
                    "project": "p",
                    "role": "user" if i % 2 else "assistant",
                    "content": f"message number {i}",
                    "id": f"m{i}",
                    "timestamp": f"2025-01-01T00:00:{i:02d}Z",
                }
            )
            + "\n"
        )

    path.write_text("".join(line(i) for i in range(5)))
    first = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    assert first.turns_new == 5
    with path.open("a") as f:
        f.write(line(5) + line(6))
    second = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    assert [f.outcome for f in second.files] == ["appended"]
    assert second.turns_new == 2
    assert second.turns_unchanged == 5
    sid = session_id("p", "s1")
    [s] = await SessionRepository(graph_db).get_many([sid])
    assert s is not None
    assert s.turn_count == 7
    assert s.user_messages == 3
    listed = await TurnRepository(graph_db).list(sid)
    assert [t.source_key for t in listed] == [f"m{i}" for i in range(7)]
    nxt = dict(await SessionRepository(graph_db).turn_links(sid))
    assert nxt[turn_id("p", "s1", "m4")] == turn_id("p", "s1", "m5")  # NEXT across the runs


async def test_edited_file_reingests_without_duplicates(
    graph_db, ingest_settings, embedder, fixtures: Path
) -> None:
    path = fixtures / "generic" / "messages.jsonl"
    await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    lines = path.read_text().splitlines()
    edited = json.loads(lines[1])
    edited["content"] = "It runs on port 3000 now."
    lines[1] = json.dumps(edited)
    inserted = dict(edited, id="m2b", content="(and 3001 for the API)")
    lines[2] = json.dumps(inserted)  # m3 is replaced by m2b
    path.write_text("\n".join(lines) + "\n")
    os.utime(path, ns=(1, 1))
    rep = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    assert [f.outcome for f in rep.files] == ["changed"]
    assert rep.turns_new == 2  # m2 (edited) and m2b (new)
    assert rep.turns_unchanged == 4  # m1, m4, n1, n2: not re-embedded
    assert rep.turns_closed == 1  # m3
    sid = session_id("notes", "g1")
    listed = await TurnRepository(graph_db).list(sid)
    assert [t.source_key for t in listed] == ["m1", "m2", "m2b", "m4"]
    assert listed[1].text == "It runs on port 3000 now."
    chain = await SessionRepository(graph_db).turn_links(sid)
    ids = [turn_id("notes", "g1", k) for k in ("m1", "m2", "m2b", "m4")]
    assert chain == [(ids[0], ids[1]), (ids[1], ids[2]), (ids[2], ids[3]), (ids[3], None)]
    fp = await SourceFileRepository(graph_db).fingerprint(["notes"])
    assert sum(k.startswith("Turn:") for k in fp) == 7  # m3 is still stored, just closed
    assert await TurnRepository(graph_db).get_many([turn_id("notes", "g1", "m3")]) == [None]
    again = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    assert again.turns_new == 0


async def test_dry_run_writes_nothing(graph_db, ingest_settings, fixtures: Path) -> None:
    before = await snapshot(graph_db)
    rep = await ingest_paths(graph_db, ingest_settings, [fixtures], dry_run=True)
    assert rep.dry_run
    assert rep.turns_new == 51
    assert {f.outcome for f in rep.files} == {"dry-run"}
    assert await snapshot(graph_db) == before


async def test_hooks_get_each_session_and_its_new_turns(
    graph_db, ingest_settings, embedder, fixtures: Path
) -> None:
    seen: list[tuple[str, int]] = []

    async def hook(db: GraphDB, session: ParsedSession, turn_ids: list[str]) -> None:
        assert db is graph_db
        seen.append((session.key, len(turn_ids)))

    async def broken(db: GraphDB, session: ParsedSession, turn_ids: list[str]) -> None:
        raise RuntimeError("extractor bug")

    class Finishing:
        finished = 0

        async def __call__(self, db: GraphDB, session: ParsedSession, ids: list[str]) -> None:
            pass

        async def finish(self, db: GraphDB) -> None:
            self.finished += 1

    fin = Finishing()
    path = fixtures / "generic" / "messages.jsonl"
    rep = await ingest_paths(
        graph_db, ingest_settings, [path], embedder=embedder, hooks=[hook, broken, fin]
    )
    assert seen == [("g1", 4), ("g2", 2)]
    assert fin.finished == 1
    assert len(rep.hook_errors) == 2
    assert rep.failed
    extra = {
        "session_id": "g2",
        "project": "notes",
        "role": "user",
        "content": "thanks",
        "timestamp": "2025-10-01T08:10:00Z",
        "id": "n3",
    }
    with path.open("a") as f:
        f.write(json.dumps(extra) + "\n")
    seen.clear()
    rep = await ingest_paths(
        graph_db, ingest_settings, [path], embedder=embedder, hooks=[hook], run_hooks=False
    )  # --no-extract
    assert rep.turns_new == 1
    assert seen == []
    with path.open("a") as f:
        f.write(json.dumps(extra | {"id": "n4"}) + "\n")
    await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder, hooks=[hook])
    assert seen == [("g2", 1)]  # only the appended turn


async def test_embeddings_are_stored_with_the_date_prefix(
    graph_db, ingest_settings, embedder, fixtures: Path
) -> None:
    path = fixtures / "generic" / "single.json"
    await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    now = now_ms()
    hits = await RecallRepository(graph_db).turn_vector(
        [float(x) for x in (await embedder.embed(["[2 Oct 2025] user: hello"]))[0]],
        ["notes"],
        k=1,
        k_search=4,
        as_of=now,
        known_at=now,
    )
    assert hits
    assert hits[0].id == turn_id("notes", "doc1", "ordinal-0")
    assert hits[0].score > 0.99
    assert isinstance(np.float32(hits[0].score), np.floating)


async def test_missing_path_and_unknown_file_are_reported(
    graph_db, ingest_settings, embedder, tmp_path: Path
) -> None:
    junk = tmp_path / "notes.json"
    junk.write_text('{"hello": 1}')
    rep = await ingest_paths(
        graph_db, ingest_settings, [tmp_path / "nope.jsonl", junk], embedder=embedder
    )
    assert [i.reason for i in rep.issues] == [
        "no such file or directory",
        "format not recognised; pass --format",
    ]
    assert rep.failed


async def test_bad_path_arguments_are_reported_and_the_good_file_still_lands(
    graph_db, ingest_settings, embedder, fixtures: Path, tmp_path: Path
) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)  # a symlink to itself: resolving it loops
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "gone.jsonl")
    good = fixtures / "generic" / "messages.jsonl"
    rep = await ingest_paths(
        graph_db,
        ingest_settings,
        [loop, dangling, tmp_path / "nope.jsonl", good],
        embedder=embedder,
    )
    assert [(Path(f.path).name, f.outcome) for f in rep.files] == [("messages.jsonl", "new")]
    assert rep.turns_new == 6  # every turn of the good file (as in test_ingests_every_format)
    reasons = {Path(i.file).name: i.reason for i in rep.issues}
    assert reasons["loop.jsonl"].startswith("cannot open:")
    assert reasons["gone.jsonl"] == "no such file or directory"
    assert reasons["nope.jsonl"] == "no such file or directory"
    assert rep.failed


async def test_a_session_removed_from_a_file_is_closed(
    graph_db, ingest_settings, embedder, fixtures: Path
) -> None:
    path = fixtures / "generic" / "messages.jsonl"
    await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    keep = [ln for ln in path.read_text().splitlines() if '"g2"' not in ln]
    path.write_text("\n".join(keep) + "\n")
    rep = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder)
    assert rep.turns_closed == 2
    g2 = session_id("notes", "g2")
    assert await SessionRepository(graph_db).get_many([g2]) == [None]
    assert await TurnRepository(graph_db).list(g2) == []
    [g1] = await SessionRepository(graph_db).get_many([session_id("notes", "g1")])
    assert g1 is not None


async def test_watch_tails_read_only_the_appended_bytes(
    graph_db, ingest_settings, embedder, tmp_path: Path
) -> None:
    path = tmp_path / "live.jsonl"

    def line(i: int, who: str = "user") -> str:
        return (
            json.dumps(
                {
                    "session_id": "s",
                    "project": "t",
                    "role": who,
                    "id": f"k{i}",
                    "content": f"message {i} from {who} " + "x" * 100,
                    "timestamp": i,
                }
            )
            + "\n"
        )

    path.write_text("".join(line(i) for i in range(50)))
    tails: dict = {}
    await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder, tails=tails)
    memo = tails[str(path)]
    assert memo.offset == path.stat().st_size
    assert memo.tail == path.read_bytes()[-4096:]
    with path.open("a") as f:
        f.write(line(50))
    rep = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder, tails=tails)
    assert [f.outcome for f in rep.files] == ["appended"]
    assert rep.turns_new == 1
    state = await SourceFileRepository(graph_db).get(str(path))
    assert state is not None
    assert state.prefix_sha == hashlib.sha256(path.read_bytes()).hexdigest()  # carried hash
    # rewritten (not appended): the remembered tail no longer matches, the file is re-read whole
    path.write_text("".join(line(i, "assistant") for i in range(60)))
    rep = await ingest_paths(graph_db, ingest_settings, [path], embedder=embedder, tails=tails)
    assert [f.outcome for f in rep.files] == ["changed"]
    assert rep.turns_new == 60


async def test_locomo_lands_with_session_dates(graph_db, graph_settings, shared_dir: Path) -> None:
    settings = IngestSettings.model_validate(
        graph_settings.model_dump() | {"ingest": {"embed": False, "batch_size": 500}}
    )
    path = shared_dir / "benchmarks" / "locomo" / "locomo-dev.json"
    rep = await ingest_paths(graph_db, settings, [path])
    assert (rep.sessions, rep.turns_new, rep.failed) == (128, 2760, False)
    sid = session_id("locomo-conv-26", "session_1")
    [s] = await SessionRepository(graph_db).get_many([sid])
    assert s is not None
    assert s.valid_from == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert s.meta["date_time"] == "1:56 pm on 8 May, 2023"
    turns = await TurnRepository(graph_db).list(sid, limit=3)
    assert [(t.source_key, t.speaker) for t in turns] == [
        ("D1:1", "Caroline"),
        ("D1:2", "Melanie"),
        ("D1:3", "Caroline"),
    ]
    assert turns[2].valid_from == datetime(2023, 5, 8, 13, 56, 2, tzinfo=UTC)
