"""Where an evaluation writes, and the proof that it left nothing behind: one rule for every eval.

`remgraph eval locomo`, `eval knowledge` and `eval scenarios` open an `EvalIsolation` and ingest
only inside the namespaces it hands out (`async with iso.namespace(base) as ns`):

- **Scratch graphs** (FalkorDB, embedded or external: one graph per name on one server). Each
  namespace is a new graph `<prefix>_<run>_<n>`, migrated, and dropped on exit, also when the
  evaluation fails midway. Projects keep their own names (`ns.project(base) == base`): the graph
  holds nothing else, and a name shows in item texts (a fact's subject can be the project) and in
  ids, so a suffix would move scores.
- **A shared database** (Neo4j: the Community edition has one database). Each namespace is a set
  of projects in that database. Refused when one of them already holds data; refused when any
  other project holds data and the eval asked to be `alone`. Unless alone, each project gets a
  unique name `<base>--eval-<run>`. On exit `graph.purge.purge_project` removes each project (its
  nodes, its topics, API keys scoped to it alone, its REM job locks, and the ingest state of the
  files the eval read), and a fingerprint of the whole graph taken after the exit is compared
  with one taken before the namespace opened: `database_unchanged` in the run's metadata, and a
  line in `problems` when it differs (another writer, or a leak).

Reads are the eval's own business: every read an eval makes names its projects (`ns.project`).
Beside other projects on Neo4j, no item of theirs can come back, but index-wide figures still see
them: Lucene's BM25 statistics (document frequencies, average length) cover the whole fulltext
index, and the vector and fulltext candidate pools are cut before the project filter. An eval that
judges exact ranks on tiny projects (`eval scenarios`) therefore runs `alone`; the others record
`other_projects` in their metadata.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from consolidate.jobs import JOBS
from consolidate.runner import lock_id
from graph.config import GraphSettings
from graph.connect import make_db, open_graph
from graph.cypher import Q
from graph.db import GraphDB
from graph.errors import GraphError
from graph.migrate import migrate
from graph.purge import GraphFingerprint, graph_fingerprint, project_usage, purge_project

S = TypeVar("S", bound=GraphSettings)

_STATS = Q("admin.stats")
SUFFIX = "--eval-"
"""Between a project's base name and the run id on a shared database."""


class IsolationError(GraphError):
    """The database cannot host an isolated evaluation run."""


class ProjectInUseError(IsolationError):
    """A project the evaluation would write into already holds data."""

    def __init__(self, usage: dict[str, int]) -> None:
        named = ", ".join(f"{p!r} ({n} nodes)" for p, n in sorted(usage.items()))
        super().__init__(
            f"project {named} already holds data (an interrupted run?); an evaluation never "
            "writes into a project that has data: remove it or choose another database"
        )
        self.usage = usage


class DatabaseInUseError(IsolationError):
    """Other projects hold data and the evaluation must run alone."""

    def __init__(self, others: dict[str, int], why: str) -> None:
        named = ", ".join(f"{p} ({n})" for p, n in sorted(others.items())[:5])
        more = " ..." if len(others) > 5 else ""
        super().__init__(f"the database holds other projects: {named}{more}. {why}")
        self.others = others


def _has_scratch_graphs(db: GraphDB) -> bool:
    """FalkorDB keeps one graph per name and can drop one whole; Neo4j Community cannot."""
    return callable(getattr(db, "drop", None))


@dataclass(frozen=True)
class Namespace(Generic[S]):
    """Where one part of an evaluation writes and reads."""

    db: GraphDB
    settings: S
    """The evaluation's settings, with `graph_name` naming this namespace's graph."""
    projects: dict[str, str]
    """Base name -> the project actually written (equal on a scratch graph)."""

    def project(self, base: str) -> str:
        """The project to write and read for `base`."""
        return self.projects[base]


@dataclass
class EvalIsolation(Generic[S]):
    """One evaluation run's namespaces, cleanup and proof (see the module docstring)."""

    settings: S
    run: str
    """Unique per run: names the scratch graphs, or suffixes projects on a shared database."""
    prefix: str
    """Scratch graph names start with it (letters, digits, `_`)."""
    shared: GraphDB | None
    """The shared database, or None for scratch graphs."""
    alone: bool = False
    """Refuse a shared database that holds any other project."""
    why_alone: str = ""
    """Why (the refusal's explanation)."""
    problems: list[str] = field(default_factory=list)
    """A line per namespace that left the shared database changed."""
    _graphs: int = 0
    _projects: list[str] = field(default_factory=list)
    _others: int = 0
    _purged: int = 0
    _unchanged: bool | None = None
    _last: GraphFingerprint | None = None

    @property
    def mode(self) -> str:
        return "scratch graph" if self.shared is None else "project purge on a shared database"

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        settings: S,
        *,
        prefix: str,
        alone: bool = False,
        why_alone: str = "",
        run: str | None = None,
    ) -> AsyncIterator[EvalIsolation[S]]:
        """Connect to the configured engine (starting the embedded one) and isolate as it allows.

        The connection stays open for the run (it keeps an embedded server up); on FalkorDB it
        points at an unused graph name and never writes.
        """
        run = run or uuid.uuid4().hex[:10]
        conn = await open_graph(settings.model_copy(update={"graph_name": f"{prefix}_{run}_0"}))
        try:
            shared = None if _has_scratch_graphs(conn.db) else conn.db
            if shared is not None:
                await migrate(shared)
            yield cls(settings, run, prefix, shared, alone, why_alone)
        finally:
            await conn.close()

    @classmethod
    async def sharing(
        cls, db: GraphDB, settings: S, *, alone: bool = False, why_alone: str = "", run: str
    ) -> EvalIsolation[S]:
        """Treat `db` as a shared database whatever its engine (tests use it on both)."""
        await migrate(db)
        return cls(settings, run, "shared", db, alone, why_alone)

    def _name(self, base: str) -> str:
        if self.shared is None or self.alone:
            return base
        return f"{base}{SUFFIX}{self.run}"

    @contextlib.asynccontextmanager
    async def namespace(
        self, *bases: str, paths: Sequence[str] = ()
    ) -> AsyncIterator[Namespace[S]]:
        """A namespace for the projects `bases`; on exit they and the ingest state of `paths` go.

        Raises:
            ProjectInUseError: one of the projects already holds data (shared database).
            DatabaseInUseError: other projects hold data and the run must be alone.
        """
        names = {b: self._name(b) for b in bases}
        if self.shared is None:
            self._projects.extend(names.values())
            async with self._scratch(names) as ns:
                yield ns
            return
        db = self.shared
        usage = await project_usage(db)
        taken = {p: usage[p] for p in names.values() if usage.get(p)}
        if taken:
            raise ProjectInUseError(taken)
        others = {p: n for p, n in usage.items() if p not in names.values()}
        if others and self.alone:
            raise DatabaseInUseError(others, self.why_alone)
        self._others = max(self._others, len(others))
        self._projects.extend(names.values())
        # the state a previous namespace left is the state this one starts from: one read saved
        before = self._last or await graph_fingerprint(db)
        try:
            yield Namespace(db, self.settings, names)
        finally:
            for i, project in enumerate(names.values()):
                report = await purge_project(
                    db,
                    project,
                    lock_ids=[lock_id(project, j) for j in JOBS],
                    paths=paths if i == 0 else (),
                )
                self._purged += report.nodes + report.topics + report.source_files
            after = self._last = await graph_fingerprint(db)
            same = after == before
            self._unchanged = same if self._unchanged is None else self._unchanged and same
            if not same:
                self.problems.append(
                    f"removing {', '.join(names.values())} left the database changed: nodes "
                    f"{before.nodes} -> {after.nodes}, relationships {before.relationships} -> "
                    f"{after.relationships}"
                )

    @contextlib.asynccontextmanager
    async def _scratch(self, names: dict[str, str]) -> AsyncIterator[Namespace[S]]:
        self._graphs += 1
        graph = f"{self.prefix}_{self.run}_{self._graphs}"
        cfg = self.settings.model_copy(update={"graph_name": graph})
        db = make_db(cfg)
        created = False
        try:
            await db.ping()
            if await db.read(_STATS):  # a name taken by someone else: never drop it
                raise IsolationError(f"graph {graph!r} already exists; not touching it")
            created = True
            await migrate(db)
            yield Namespace(db, cfg, names)
        finally:
            try:
                if created:
                    await db.drop()  # type: ignore[attr-defined]  # FalkorDBGraph (checked above)
            finally:
                await db.close()

    def facts(self) -> dict[str, Any]:
        """What the run's metadata records about its isolation."""
        out: dict[str, Any] = {"mode": self.mode, "run": self.run, "projects": self._projects}
        if self.shared is None:
            out["graphs"] = self._graphs
        else:
            out |= {
                "other_projects": self._others,
                "nodes_purged": self._purged,
                "database_unchanged": self._unchanged,
            }
        return out
