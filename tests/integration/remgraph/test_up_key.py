"""`remgraph up` keeps its key between runs: one per graph, 0600, renewed when it no longer fits."""

from __future__ import annotations

import stat

from graph.repositories.api_keys import ApiKeyRepository
from remgraph.up_key import KEY_FILE, up_key


async def test_up_reuses_its_live_key_and_renews_it_when_projects_or_revocation_demand(
    graph_db, tmp_path
) -> None:
    repo = ApiKeyRepository(graph_db)
    first = await up_key(graph_db, tmp_path, ["alpha"])
    assert not first.reused
    assert first.file == tmp_path / KEY_FILE
    assert stat.S_IMODE(first.file.stat().st_mode) == 0o600
    assert (await repo.find_by_secret(first.secret)).projects == ("alpha",)

    again = await up_key(graph_db, tmp_path, ["alpha"])
    assert (again.id, again.secret, again.reused) == (first.id, first.secret, True)
    assert len(await repo.list()) == 1  # no key minted per run

    wider = await up_key(graph_db, tmp_path, ["alpha", "beta"])  # a project was ingested since
    assert not wider.reused
    assert await repo.find_by_secret(first.secret) is None  # the narrower one is revoked
    assert set((await repo.find_by_secret(wider.secret)).projects) == {"alpha", "beta"}

    await repo.revoke(wider.id)  # a person revoked it: the next run makes a new one
    fresh = await up_key(graph_db, tmp_path, ["alpha", "beta"])
    assert not fresh.reused
    assert fresh.secret != wider.secret
    assert await repo.find_by_secret(fresh.secret) is not None


async def test_an_unreadable_key_file_gives_a_new_key(graph_db, tmp_path) -> None:
    (tmp_path / KEY_FILE).write_text("not json", encoding="utf-8")
    key = await up_key(graph_db, tmp_path, ["alpha"])
    assert not key.reused
    assert await ApiKeyRepository(graph_db).find_by_secret(key.secret) is not None
