"""`remgraph mcp config`: each client's snippet parses and starts `remgraph mcp` with the key."""

from __future__ import annotations

import json
import shlex
import tomllib

from typer.testing import CliRunner

from remgraph.cli import app
from remgraph.mcp_config import settings_env, snippet

CMD = ["/opt/remgraph venv/bin/remgraph"]  # a space, to prove quoting
ENV = {"REMGRAPH_GRAPH_NAME": "work", "REMGRAPH_EMBEDDED__DATA_DIR": '/data/"quoted"'}
EXPECTED_ENV = {"REMGRAPH_API_KEY": "rg_secret", **ENV}


def test_codex_snippet_is_a_toml_table_for_the_stdio_server() -> None:
    data = tomllib.loads(snippet("codex", "rg_secret", CMD, ENV))
    assert data == {
        "mcp_servers": {
            "remgraph": {"command": CMD[0], "args": ["mcp"], "env": EXPECTED_ENV},
        }
    }


def test_generic_snippet_is_mcp_servers_json() -> None:
    data = json.loads(snippet("generic", "rg_secret", CMD, ENV))
    assert data == {
        "mcpServers": {
            "remgraph": {"type": "stdio", "command": CMD[0], "args": ["mcp"], "env": EXPECTED_ENV}
        }
    }


def test_claude_code_snippet_is_one_claude_mcp_add_command() -> None:
    argv = shlex.split(snippet("claude-code", "rg_secret", CMD, ENV))
    assert argv[:7] == ["claude", "mcp", "add", "--transport", "stdio", "--scope", "user"]
    sep = argv.index("--")
    assert argv[sep - 1] == "remgraph"
    assert argv[sep + 1 :] == [CMD[0], "mcp"]
    envs = dict(a.split("=", 1) for a in argv[8 : sep - 1 : 2])
    assert envs == EXPECTED_ENV
    assert all(flag == "--env" for flag in argv[7 : sep - 1 : 2])


def test_settings_env_takes_remgraph_settings_but_never_the_key_twice(tmp_path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("REMGRAPH_GRAPH_NAME=fromfile\nREMGRAPH_ENGINE=neo4j\nOTHER=x\n")
    env = settings_env(
        {"REMGRAPH_GRAPH_NAME": "fromenv", "REMGRAPH_API_KEY": "rg_x", "PATH": "/bin"}, dotenv
    )
    assert env == {"REMGRAPH_ENGINE": "neo4j", "REMGRAPH_GRAPH_NAME": "fromenv"}


def test_cli_prints_the_snippet_and_refuses_without_a_key(monkeypatch) -> None:
    monkeypatch.delenv("REMGRAPH_API_KEY", raising=False)
    runner = CliRunner()
    ok = runner.invoke(app, ["mcp", "config", "codex", "--key", "rg_k"])
    assert ok.exit_code == 0, ok.output
    assert 'REMGRAPH_API_KEY = "rg_k"' in ok.stdout
    assert tomllib.loads(ok.stdout)["mcp_servers"]["remgraph"]["args"][-1] == "mcp"
    missing = runner.invoke(app, ["mcp", "config", "codex"])
    assert missing.exit_code == 2
    bad = runner.invoke(app, ["mcp", "config", "vim", "--key", "rg_k"])
    assert bad.exit_code == 2
