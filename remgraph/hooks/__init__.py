"""Agent hooks: remgraph at the start and end of Claude Code and Codex CLI sessions.

`remgraph hooks install|uninstall claude-code|codex` edits the agent's settings (`install.py`,
`files.py`); the installed commands run `python -m remgraph.hooks ...` (`__main__.py`,
`runtime.py`), a lean entry point that imports only what a hook needs.
"""
