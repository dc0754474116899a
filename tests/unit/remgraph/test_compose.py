"""`compose.yaml` is valid and safe: pinned Neo4j, secrets from the environment, healthchecks,
loopback-only ports, services that wait for a healthy database."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def test_neo4j_is_pinned_and_needs_a_password() -> None:
    neo4j = _compose()["services"]["neo4j"]
    image = neo4j["image"]
    assert image.startswith("neo4j:5.26.")
    assert "latest" not in image
    assert "${NEO4J_PASSWORD:?" in neo4j["environment"]["NEO4J_AUTH"]
    assert "cypher-shell" in " ".join(neo4j["healthcheck"]["test"])
    assert neo4j["volumes"]


def test_ports_bind_loopback_only() -> None:
    for name, svc in _compose()["services"].items():
        for port in svc.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"


def test_api_and_worker_migrate_and_wait_for_neo4j() -> None:
    services = _compose()["services"]
    for name in ("api", "worker"):
        svc = services[name]
        assert svc["depends_on"]["neo4j"]["condition"] == "service_healthy"
        assert "remgraph db migrate" in " ".join(svc["command"])
        env = svc["environment"]
        assert env["REMGRAPH_ENGINE"] == "neo4j"
        assert env["REMGRAPH_ENV"] == "prod"  # refuses default passwords
    assert "remgraph serve" in " ".join(services["api"]["command"])
    assert "remgraph worker" in " ".join(services["worker"]["command"])
    assert "healthcheck" in services["api"]


def test_every_setting_compose_names_is_one_remgraph_reads() -> None:
    """A `REMGRAPH_*` name in compose.yaml (values or comments) is a field of the settings."""
    import re

    from remgraph.settings import Settings

    text = (ROOT / "compose.yaml").read_text()
    unknown = []
    for name in sorted(set(re.findall(r"REMGRAPH_[A-Z0-9_]+", text))):
        if name == "REMGRAPH_GRAPHIQL":  # compose's own variable, passed to the one below
            continue
        model: object = Settings
        for part in name.removeprefix("REMGRAPH_").lower().split("__"):
            fields = getattr(model, "model_fields", {})
            if part not in fields:
                unknown.append(name)
                break
            model = fields[part].annotation
    assert unknown == []
    api = _compose()["services"]["api"]["environment"]
    assert api["REMGRAPH_API__GRAPHIQL"] == "${REMGRAPH_GRAPHIQL:-false}"  # the operator says
