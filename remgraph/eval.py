"""`remgraph eval locomo PATH`: retrieval quality of `context` on LoCoMo, against plain baselines.

Ingests a LoCoMo file into an isolated namespace (`remgraph/eval_isolation.py`: a scratch graph on
FalkorDB, uniquely named projects purged afterwards on Neo4j; one project per conversation) through
the same pipeline as `remgraph ingest`, runs every question through the same retrieval and ranking
as the GraphQL `context` query, and, in the same process over the same turns, through plain
fulltext (BM25-style) and plain vector retrieval. Metrics are in `recall/eval.py`; results go to
JSON and a Markdown table.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress

from ai.embed import Embedder, make_embedder
from api.config import ApiSettings
from core.timeutil import now_ms
from graph.db import GraphDB
from graph.repositories.recall import RecallRepository, TurnHit
from ingest.config import IngestSettings
from ingest.pipeline import ingest_paths
from recall.eval import KS, QuestionResult, markdown_table, parse_evidence, summarize
from recall.retrieval import RetrievalService
from remgraph.eval_extraction import extraction_command
from remgraph.eval_isolation import EvalIsolation
from remgraph.eval_knowledge import knowledge_command
from remgraph.eval_scenarios import scenarios_command

METHODS = ("remgraph", "bm25", "vector")
BASELINE_POOL = 5000


class EvalSettings(ApiSettings, IngestSettings):
    """Everything the evaluation needs: ranking weights and ingest options in one environment."""


@dataclass
class EvalOutcome:
    """Per-method summaries plus run metadata."""

    reports: dict[str, dict[str, Any]]
    meta: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"meta": self.meta, "methods": self.reports}


def _dia(source_key: str) -> str:
    return source_key.strip()


async def evaluate_locomo(
    iso: EvalIsolation[EvalSettings],
    path: Path,
    *,
    conversations: int | None = None,
    embedder: Embedder | None = None,
    show_progress: bool = True,
) -> EvalOutcome:
    """Ingest `path` (the first `conversations` samples) in one namespace of `iso`; score questions.

    Every conversation is a project of its own (`locomo-<sample_id>`, suffixed on a shared
    database); every read names that project. The namespace is gone when this returns or raises.

    Args:
        iso: the run's isolation (its settings: ranking weights, ingest options).
        path: a LoCoMo JSON file (`locomo10.json` layout).
        conversations: only the first N conversations (None: all).
        embedder: reuse an embedder (default: from the settings).
        show_progress: draw a progress bar on stderr.
    """
    settings = iso.settings
    samples = json.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))
    if conversations is not None:
        samples = samples[:conversations]
    emb = embedder or make_embedder(settings.embedding)
    bases = [f"locomo-{s.get('sample_id')}" for s in samples]
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / f"{i:04d}.json" for i in range(len(samples))]
        async with iso.namespace(*dict.fromkeys(bases), paths=[str(f) for f in files]) as ns:
            t0 = time.perf_counter()
            turns = await _ingest(
                ns.db, settings, samples, files, [ns.project(b) for b in bases], emb
            )
            ingest_s = time.perf_counter() - t0
            questions = [
                (ns.project(b), qa)
                for s, b in zip(samples, bases, strict=True)
                for qa in s.get("qa", [])
            ]
            # One batched forward pass for every question (the cache then serves each lookup).
            await emb.embed([str(qa.get("question", "")) for _, qa in questions])
            t1 = time.perf_counter()
            run = _Questions(RetrievalService(RecallRepository(ns.db), emb, settings.ranking))
            with Progress(transient=True, disable=not show_progress) as bar:
                task = bar.add_task("LoCoMo questions", total=len(questions))
                for project, qa in questions:
                    await run.ask(project, qa)
                    bar.advance(task)
            questions_s = time.perf_counter() - t1
    lat = sorted(run.latencies)
    meta = {
        "file": path.name,
        "conversations": len(samples),
        "turns_ingested": turns,
        "questions": len(questions),
        "ingest_s": round(ingest_s, 2),
        "questions_s": round(questions_s, 2),
        "context_ms_p50": round(lat[len(lat) // 2], 2) if lat else None,
        "context_ms_p95": round(lat[int(len(lat) * 0.95)], 2) if lat else None,
        "ranking": settings.ranking.model_dump(),
        "embedding": settings.embedding.model,
        "engine": str(settings.engine),
        "isolation": iso.facts(),
    }
    return EvalOutcome({m: summarize(rs) for m, rs in run.results.items()}, meta)


async def _ingest(
    db: GraphDB,
    settings: EvalSettings,
    samples: list[Any],
    files: list[Path],
    projects: list[str],
    emb: Embedder,
) -> int:
    """Ingest each sample as its project through the same pipeline as `remgraph ingest`.

    No extraction; one file per sample, written to `files`. Returns the turns stored.
    """
    turns = 0
    for sample, file, project in zip(samples, files, projects, strict=True):
        await asyncio.to_thread(file.write_text, json.dumps([sample]), encoding="utf-8")
        report = await ingest_paths(
            db, settings, [file], fmt="locomo", project=project, run_hooks=False, embedder=emb
        )
        turns += report.turns_new + report.turns_unchanged
    return turns


class _Questions:
    """Runs each question through `context` and the two baselines; keeps what each returned."""

    def __init__(self, retrieval: RetrievalService) -> None:
        self.retrieval = retrieval
        self.results: dict[str, list[QuestionResult]] = {m: [] for m in METHODS}
        self.latencies: list[float] = []
        self._dia: dict[str, str] = {}
        """Turn id -> LoCoMo dialogue id, for the projects seen so far."""
        self._projects: set[str] = set()

    async def ask(self, project: str, qa: dict[str, Any]) -> None:
        if project not in self._projects:
            keys = await self.retrieval.turn_keys((project,))
            self._dia.update({tid: _dia(k) for k, tid in keys.items()})
            self._projects.add(project)
        q = str(qa.get("question", ""))
        cat = int(qa.get("category", 0))
        evidence = parse_evidence(qa.get("evidence") or [])
        scope = (project,)
        now = now_ms()
        ranked, top = await self._context(q, scope)
        self.results["remgraph"].append(QuestionResult(cat, evidence, ranked, top))
        for method, hits in (
            ("bm25", await self._bm25(q, scope, now)),
            ("vector", await self._vector(q, scope, now)),
        ):
            ids = tuple(self._dia.get(h.id, h.id) for h in hits)
            self.results[method].append(
                QuestionResult(cat, evidence, ids, hits[0].score if hits else 0.0)
            )

    async def _context(self, q: str, scope: tuple[str, ...]) -> tuple[tuple[str, ...], float]:
        """The dialogue ids of `context`'s items, in order, and the best item's score."""
        k_max = max(KS)
        s0 = time.perf_counter()
        ctx = await self.retrieval.context(q, scope, limit=k_max, token_budget=None)
        self.latencies.append((time.perf_counter() - s0) * 1000)
        ranked: list[str] = []
        for item in ctx.items:
            for tid in item.candidate.turn_ids:
                d = self._dia.get(tid)
                if d and d not in ranked:
                    ranked.append(d)
        # "nothing known" is judged by `answerable`, not by the best item's score
        return tuple(ranked[:k_max]), ctx.answerable.score

    async def _bm25(self, q: str, scope: tuple[str, ...], now: int) -> list[TurnHit]:
        # Plain BM25 scores every match (a whole conversation is < 1,000 turns): the exact
        # BM25 ranking, not limited by the pool the context ranking uses.
        return await self.retrieval.fulltext(
            q, scope, k=max(KS), as_of=now, known_at=now, pool=BASELINE_POOL
        )

    async def _vector(self, q: str, scope: tuple[str, ...], now: int) -> list[TurnHit]:
        vec = await self.retrieval.embed_query(q)
        return await self.retrieval.vector(vec, scope, k=max(KS), as_of=now, known_at=now)


def write_results(
    outcome: EvalOutcome, out_dir: Path, stem: str = "locomo_eval"
) -> tuple[Path, Path]:
    """Write `<stem>.json` and `<stem>.md` under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jp = out_dir / f"{stem}.json"
    mp = out_dir / f"{stem}.md"
    jp.write_text(json.dumps(outcome.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    m = outcome.meta
    header = (
        f"# LoCoMo retrieval: {m['file']}, {m['conversations']} conversations, "
        f"{m['turns_ingested']} turns, {m['questions']} questions\n\n"
        "hit@k: at least one evidence turn in the top k; all@k: every evidence turn in the top k "
        "(categories 1–4 with evidence). `remgraph` is the `context` ranking; `bm25` and `vector` "
        "are plain engine retrieval over the same turns in the same run.\n\n"
    )
    mp.write_text(header + markdown_table(outcome.reports), encoding="utf-8")
    return jp, mp


async def run_eval_command(
    path: Path,
    *,
    conversations: int | None,
    out_dir: Path,
    settings: EvalSettings | None = None,
    stem: str = "locomo_eval",
) -> EvalOutcome:
    """What `remgraph eval locomo` does: isolate, evaluate, write results, remove what it wrote."""
    async with EvalIsolation.open(settings or EvalSettings(), prefix="eval") as iso:
        outcome = await evaluate_locomo(iso, path, conversations=conversations)
    write_results(outcome, out_dir, stem)
    return outcome


def summary_lines(outcome: EvalOutcome, methods: Sequence[str] = METHODS) -> list[str]:
    """Short lines for the terminal: overall hit@k per method."""
    lines = []
    for m in methods:
        row = outcome.reports[m]["categories"]["all"]
        ks = " ".join(f"hit@{k}={row[f'hit@{k}']:.3f}" for k in KS)
        lines.append(f"{m:9s} {ks}  auc={outcome.reports[m]['auc_answerable_vs_adversarial']}")
    return lines


eval_app = typer.Typer(
    help="Evaluate retrieval quality on benchmarks and scripted scenarios.", no_args_is_help=True
)


@eval_app.command("locomo")
def locomo_command(
    path: Annotated[Path, typer.Argument(help="LoCoMo JSON file (locomo10.json layout)")],
    conversations: Annotated[
        int | None, typer.Option(help="Only the first N conversations (default: all)")
    ] = None,
    out: Annotated[Path, typer.Option(help="Results folder")] = Path("bench/results"),
    stem: Annotated[str, typer.Option(help="Result file name stem")] = "locomo_eval",
) -> None:
    """Ingest a LoCoMo file in isolation and report hit@k / all@k against BM25 and vector."""
    if not path.is_file():
        raise typer.BadParameter(f"{path} is not a file", param_hint="PATH")
    outcome = asyncio.run(
        run_eval_command(path, conversations=conversations, out_dir=out, stem=stem)
    )
    for line in summary_lines(outcome):
        typer.echo(line)
    if outcome.meta["isolation"].get("database_unchanged") is False:
        typer.echo(
            "warning: the database changed outside the evaluated projects during the run "
            "(another writer?)",
            err=True,
        )
    typer.echo(f"wrote {out / (stem + '.json')} and {out / (stem + '.md')}")


eval_app.command("scenarios")(scenarios_command)
eval_app.command("knowledge")(knowledge_command)
eval_app.command("extraction")(extraction_command)
