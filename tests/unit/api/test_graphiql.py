"""The GraphiQL page's pieces: pinned vendor files, the loopback default, asset lookup."""

from __future__ import annotations

import pytest

from api.graphiql import ASSET_SHA256, asset_path, graphiql_enabled, is_loopback, sha256_of


@pytest.mark.parametrize("name", sorted(ASSET_SHA256))
def test_vendored_files_are_the_pinned_builds(name: str) -> None:
    path = asset_path(name)
    assert path is not None
    assert sha256_of(path) == ASSET_SHA256[name]


def test_only_known_assets_resolve() -> None:
    assert asset_path("remgraph-ide.js") is not None
    for bad in ("../app.py", "index.html", "graphql-ws.min.js", "", "/etc/passwd"):
        assert asset_path(bad) is None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
        ("example.org", False),
    ],
)
def test_loopback_detection(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_on_by_default_only_on_loopback_unless_set() -> None:
    assert graphiql_enabled(None, "127.0.0.1")
    assert not graphiql_enabled(None, "0.0.0.0")
    assert graphiql_enabled(True, "0.0.0.0")
    assert not graphiql_enabled(False, "127.0.0.1")
