"""Synthetic multi-session agent transcripts for scale benchmarks (seeded, reproducible).

    python bench/generate.py --turns 100000 --out /tmp/syn [--format generic|claude-code]
        [--projects 8] [--seed 7]

Sessions of 20–400 turns (log-normal), spread over projects and days; users ask, assistants answer
and call tools (Bash, Read, Edit, Grep; ~8% fail), users sometimes correct the assistant ("No, use
pnpm, not npm") and state decisions ("Let's go with Postgres"). Text lengths are log-normal
around real transcripts' (user ~25 words, assistant ~70, tool output ~60). One file per session,
`<project>/<session>.jsonl`, in generic JSONL (default) or the Claude Code on-disk format.

Words: a third are function words, a fifth common and technical words, the rest come from a long
tail of 40,000 made-up identifiers drawn by Zipf's law (exponent 1.05), as names, paths and errors
are in real transcripts. Without the tail every content word would occur in ~23% of all turns (118
distinct words), where a LoCoMo question's words occur in a median 1.1% of its turns; fulltext
search cost depends on exactly that, so the benchmarks would measure an unrealistic collection.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import Any

WORDS = (  # noqa: SIM905 - a word list reads better as prose
    "the a to of and in is it that for on with this we can be as at by not from or are should "
    "will if then but so when test build deploy config server client cache query index schema "
    "migration function module package import error warning log request response token session "
    "user file path branch commit merge review retry timeout latency memory thread process queue "
    "worker job schedule graph node edge vector embedding search rank score model prompt context "
    "docker compose postgres redis python typescript rust go api endpoint route handler auth key "
    "secret env variable flag option default value list map set string number date time zone "
    "fix bug issue ticket release version upgrade dependency lockfile ci pipeline lint format"
).split()
TECH = [
    "pnpm",
    "npm",
    "uv",
    "pip",
    "poetry",
    "postgres",
    "sqlite",
    "redis",
    "falkordb",
    "neo4j",
    "pytest",
    "vitest",
    "ruff",
    "black",
    "mypy",
    "pyright",
    "docker",
    "podman",
    "fastapi",
    "flask",
    "react",
    "svelte",
    "tailwind",
    "kafka",
    "celery",
    "cron",
    "terraform",
    "k8s",
]
TOOLS = ["Bash", "Read", "Edit", "Grep", "Write", "Glob"]
TAIL_WORDS = 40_000
TAIL_EXPONENT = 1.05
_SYLLABLES = (  # noqa: SIM905 - a word list reads better as prose
    "ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na "
    "ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze "
    "zi zo cor dex gen lin max net pix sto vel qua tron str"
).split()
_FUNCTION = frozenset(WORDS[: WORDS.index("when") + 1])  # the list starts with function words
FUNCTION_WORDS = [w for w in WORDS if w in _FUNCTION]
COMMON_WORDS = [w for w in WORDS if w not in _FUNCTION]


@cache
def _tail() -> tuple[list[str], list[float]]:
    """The long-tail vocabulary (fixed, independent of any seed) and its cumulative Zipf weights."""
    vr = random.Random(20260101)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < TAIL_WORDS:
        w = "".join(vr.choice(_SYLLABLES) for _ in range(vr.randint(2, 4)))
        if vr.random() < 0.15:
            w += vr.choice(("_id", "_cfg", ".py", ".ts", "Error", "_test", "s"))
        if w not in seen:
            seen.add(w)
            words.append(w)
    cum = list(accumulate(1.0 / (r**TAIL_EXPONENT) for r in range(1, TAIL_WORDS + 1)))
    return words, cum


def _word(rng: random.Random) -> str:
    """Function words ~35%, common and technical words ~20%, the long tail the rest."""
    r = rng.random()
    if r < 0.35:
        return rng.choice(FUNCTION_WORDS)
    if r < 0.49:
        return rng.choice(COMMON_WORDS)
    if r < 0.55:
        return rng.choice(TECH)
    words, cum = _tail()
    return rng.choices(words, cum_weights=cum)[0]


def sentence(rng: random.Random, mean_words: float) -> str:
    n = max(3, int(rng.lognormvariate(0, 0.6) * mean_words))
    words = [_word(rng) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def session_turns(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """Message dicts (role, content, tool fields) for one session of about `n` turns."""
    out: list[dict[str, Any]] = []
    while len(out) < n:
        r = rng.random()
        if r < 0.06:
            a, b = rng.sample(TECH, 2)
            out.append({"role": "user", "content": f"No, use {a}, not {b}. {sentence(rng, 8)}"})
        elif r < 0.10:
            out.append(
                {
                    "role": "user",
                    "content": f"Let's go with {rng.choice(TECH)} for this. {sentence(rng, 10)}",
                }
            )
        else:
            out.append({"role": "user", "content": sentence(rng, 25)})
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            tool = rng.choice(TOOLS)
            ok = rng.random() > 0.08
            out.append(
                {
                    "role": "assistant",
                    "content": sentence(rng, 15),
                    "tool_name": tool,
                    "tool_input": {"command": sentence(rng, 6)},
                }
            )
            body = "\n".join(sentence(rng, 10) for _ in range(rng.randint(1, 8)))
            out.append(
                {
                    "role": "tool",
                    "content": ("Error: " if not ok else "") + body,
                    "tool_name": tool,
                    "tool_ok": ok,
                }
            )
        out.append(
            {
                "role": "assistant",
                "content": " ".join(sentence(rng, 14) for _ in range(rng.randint(1, 6))),
            }
        )
    return out[:n]


def generic_lines(
    project: str, sid: str, start: datetime, turns: list[dict[str, Any]]
) -> list[str]:
    lines = []
    for i, t in enumerate(turns):
        rec = {
            "session_id": sid,
            "project": project,
            "id": f"{sid}-{i}",
            "role": t["role"],
            "content": t["content"],
            "timestamp": (start + timedelta(seconds=20 * i)).isoformat().replace("+00:00", "Z"),
        }
        if "tool_name" in t:
            rec["tool_name"] = t["tool_name"]
        if "tool_ok" in t:
            rec["tool_ok"] = t["tool_ok"]
        lines.append(json.dumps(rec))
    return lines


def claude_lines(
    project: str, sid: str, start: datetime, turns: list[dict[str, Any]], rng: random.Random
) -> list[str]:
    lines = []
    parent = None
    pending = None
    for i, t in enumerate(turns):
        uid = str(uuid.UUID(int=rng.getrandbits(128)))
        ts = (start + timedelta(seconds=20 * i)).isoformat().replace("+00:00", "Z")
        base = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": f"/home/dev/{project}",
            "sessionId": sid,
            "version": "1.0.98",
            "uuid": uid,
            "timestamp": ts,
        }
        if t["role"] == "user":
            rec = {**base, "type": "user", "message": {"role": "user", "content": t["content"]}}
        elif t["role"] == "tool":
            rec = {
                **base,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": pending,
                            "content": t["content"],
                            "is_error": not t["tool_ok"],
                        }
                    ],
                },
            }
        else:
            content: list[dict[str, Any]] = [{"type": "text", "text": t["content"]}]
            if "tool_name" in t:
                pending = f"toolu_{uid[:8]}"
                content.append(
                    {
                        "type": "tool_use",
                        "id": pending,
                        "name": t["tool_name"],
                        "input": t["tool_input"],
                    }
                )
            rec = {
                **base,
                "type": "assistant",
                "requestId": f"req_{uid[:8]}",
                "message": {
                    "id": f"msg_{uid[:8]}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-20250514",
                    "content": content,
                    "usage": {
                        "input_tokens": rng.randint(50, 4000),
                        "output_tokens": rng.randint(20, 800),
                    },
                },
            }
        lines.append(json.dumps(rec))
        parent = uid
    return lines


def generate(
    out: Path, turns: int, *, fmt: str = "generic", projects: int = 8, seed: int = 7
) -> dict[str, int]:
    """Write about `turns` turns of sessions under `out`; returns counts."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    names = [f"proj-{i:02d}" for i in range(projects)]
    day = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
    written = sessions = 0
    while written < turns:
        n = min(turns - written, max(20, min(400, int(rng.lognormvariate(4.3, 0.7)))))
        project = rng.choice(names)
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        start = day + timedelta(hours=rng.randint(0, 9), minutes=rng.randint(0, 59))
        ts = session_turns(rng, n)
        lines = (
            claude_lines(project, sid, start, ts, rng)
            if fmt == "claude-code"
            else generic_lines(project, sid, start, ts)
        )
        d = out / project
        d.mkdir(exist_ok=True)
        (d / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
        written += n
        sessions += 1
        if rng.random() < 0.4:
            day += timedelta(days=1)
    return {"turns": written, "sessions": sessions}


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--format", choices=("generic", "claude-code"), default="generic")
    ap.add_argument("--projects", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    print(json.dumps(generate(a.out, a.turns, fmt=a.format, projects=a.projects, seed=a.seed)))


if __name__ == "__main__":
    main()
