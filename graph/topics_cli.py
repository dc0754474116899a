"""`remgraph topics list | show`: a project's topics and their summaries, as stored."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Annotated

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from core.timeutil import now_ms, parse_ms
from graph.config import GraphSettings
from graph.connect import graph_session
from graph.errors import InvalidInputError
from graph.models import Topic, TopicBrief
from graph.records import topic_brief_to_row
from graph.repositories.scoped import ScopedRepository

topics_app = typer.Typer(help="A project's topics and their summaries.", no_args_is_help=True)
console = Console()

ProjectOpt = Annotated[str, typer.Option("--project", "-p", help="Project slug")]
AsOfOpt = Annotated[
    datetime | None, typer.Option("--as-of", help="Show the summary that held then (ISO 8601)")
]
_PAGE = 500


async def _topics(repo: ScopedRepository, project: str, now: int) -> list[Topic]:
    """Every current topic of `project`, heaviest first."""
    out: list[Topic] = []
    while True:
        page = await repo.topics.page(
            (project,), project=project, as_of=now, known_at=now, skip=len(out), limit=_PAGE
        )
        out += page
        if len(page) < _PAGE:
            return out


def _pick(topics: list[Topic], key: str, project: str) -> Topic:
    """The topic whose id is `key`, else whose title is `key` (case-insensitive)."""
    for t in topics:
        if key in (t.id, t.title) or key.casefold() == t.title.casefold():
            return t
    raise InvalidInputError(
        "topic", f"no topic {key!r} in project {project!r} (`remgraph topics list -p {project}`)"
    )


@topics_app.command("list")
def list_topics(project: ProjectOpt) -> None:
    """The project's topics, heaviest first, with whether each has a summary."""

    async def go() -> None:
        now = now_ms()
        async with graph_session(GraphSettings()) as db:
            repo = ScopedRepository(db)
            topics = await _topics(repo, project, now)
            briefs = await repo.topic_briefs(
                [t.id for t in topics], (project,), as_of=now, known_at=now
            )
        table = Table(title=f"topics of {project}")
        for col in ("id", "title", "mentions", "weight", "phase", "summary words"):
            table.add_column(col)
        for t, b in zip(topics, briefs, strict=True):
            words = f"{b.word_count} (v{b.version})" if b else "-"
            table.add_row(t.id, t.title, str(t.message_count), f"{t.weight:.2f}", t.phase, words)
        console.print(table)

    asyncio.run(go())


@topics_app.command("show")
def show(
    topic: Annotated[str, typer.Argument(help="Topic id or title")],
    project: ProjectOpt,
    as_of: AsOfOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the stored brief as JSON")] = False,
) -> None:
    """A topic's summary with its key takeaways (`topic_summaries` REM job)."""

    async def go() -> tuple[Topic, TopicBrief | None]:
        now = now_ms()
        async with graph_session(GraphSettings()) as db:
            repo = ScopedRepository(db)
            t = _pick(await _topics(repo, project, now), topic, project)
            [b] = await repo.topic_briefs(
                [t.id], (project,), as_of=parse_ms(as_of) or now, known_at=now
            )
        return t, b

    t, b = asyncio.run(go())
    if as_json:
        console.print_json(json.dumps(topic_brief_to_row(b) if b else None))
        return
    if b is None:
        console.print(
            f"topic {t.title!r} has no summary yet: run `remgraph rem job topic_summaries "
            f"-p {project}`"
        )
        return
    console.print(f"[bold]{t.title}[/] ({t.id}) · summary v{b.version}, {b.word_count} words")
    console.print(Markdown(b.text))
