"""`remgraph eval knowledge PATH`: what offline synthesis knows, against LoCoMo's own annotations.

Each sample of a LoCoMo-layout file goes into a fresh project of its own (`kneval-<sample>`, plus
`--eval-<run>` on a shared database) through the real ingest pipeline with knowledge extraction
(`ingest_paths(..., fmt="locomo")` with the extraction hooks, as `remgraph ingest --format
locomo`), then one full REM cycle runs for that project (every job in `consolidate.jobs.JOBS`,
through `run_job`), and the project is scored against the sample's `observation` and
`session_summary` annotations, beside baselines computed in the same run: raw turns as knowledge
items, and each session's first turns as its summary. Topic labels and primer and pack sizes are
judged against the issue's rules and the seed's budgets. The metrics themselves are in
`remgraph/knowledge_metrics.py`.

Isolation (`remgraph/eval_isolation.py`, the rule every eval shares). Every sample is scored in a
namespace of its own, so no sample's figures depend on another's nor on how many samples ran: on
FalkorDB a scratch graph per sample, dropped once scored; on a shared database (Neo4j: Community
has one) a project that must hold no data yet, purged once scored, with a fingerprint of the whole
database compared before and after. Every read names the sample's project.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import remgraph
from ai.embed import CachedEmbedder, Embedder, LocalEmbedder, make_embedder
from consolidate.jobs import JOBS
from consolidate.pack import context_pack
from consolidate.runner import run_job
from core.timeutil import to_ms
from graph.config import Engine
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.models import PrimerPeriod, Session, utc_now
from graph.repositories.audit import AuditRepository
from graph.repositories.primers import PrimerRepository
from graph.repositories.rem import RemRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository
from ingest.extract.service import ExtractionHook
from ingest.pipeline import ingest_paths
from knowledge.labels import GENERIC_ZIPF
from recall.eval import parse_evidence
from remgraph.eval_isolation import EvalIsolation
from remgraph.knowledge_metrics import (
    FACT_LIKE_LABELS,
    MIN_UNIT_WORDS,
    NOT_KNOWLEDGE_LABELS,
    PACK_BUDGET,
    PRECISION_COSINE,
    RECALL_COSINE,
    TIER_BUDGETS,
    TOP_TOPICS,
    KnowledgeItem,
    Observation,
    ObservationCounts,
    SummaryScore,
    flat_units,
    knowledge_items,
    score_observations,
    score_summary,
    size_stats,
    summarize_summaries,
    targets,
    topic_stats,
    turn_items,
)
from remgraph.settings import Settings
from remgraph.wiring import extraction_hooks

SCORER_MODEL = "all-MiniLM-L6-v2"
_OBS_KEY = re.compile(r"^session_(\d+)_observation$")
_SUM_KEY = re.compile(r"^session_(\d+)_summary$")
_PAGE = 500
_TIERS: tuple[PrimerPeriod, ...] = ("daily", "weekly", "monthly")
_ISSUES_KEPT = 50

DEFINITIONS = {
    "items": (
        "every node of the project but its turns and bookkeeping labels "
        f"({', '.join(sorted(NOT_KNOWLEDGE_LABELS - {'Turn'}))}); labels are read from the "
        "graph, so kinds added later count without a code change; a Session counts through its "
        "derived text properties (summary, intent, outcome), not its title"
    ),
    "units": (
        "each text property (not ids, enum values, times, hashes or JSON; a property whose words "
        "sit inside a longer one's is left out), whole and, when it holds several sentences, "
        "sentence by sentence: long items (primers, layers, summaries) match through any one "
        f"sentence; units of fewer than {MIN_UNIT_WORDS} words are not compared"
    ),
    "provenance": (
        "turns an item is linked to: any relationship with a turn except HAS_TURN, list "
        "properties holding turn ids, and transitively the provenance of items whose ids it "
        "lists (primer source_ids, community member_ids); item-level, so the sentences of a long "
        "item share it; turns map to dialog ids through their source key"
    ),
    "observation_recall": (
        f"share of observations with a unit at cosine >= {RECALL_COSINE} ({SCORER_MODEL}); "
        "with provenance, that unit's item is also linked to one of the observation's evidence "
        "turns; pooled over all observations for the overall figure"
    ),
    "precision": (
        f"share of fact-like items ({', '.join(sorted(FACT_LIKE_LABELS))}) with a unit at "
        f"cosine >= {PRECISION_COSINE} to some observation of the same project"
    ),
    "turn_baseline": "the same figures with every raw turn (stored text) as an item",
    "session_summaries": (
        "ROUGE-1/2/L F1 (rouge-score, Porter stemmer) of the Session node's summary against "
        "session_<n>_summary; a session without a summary scores 0; baseline: the session's "
        "first turns joined and cut to as many whitespace words as the stored summary, or as the "
        "reference when there is none; means over sessions"
    ),
    "topics": (
        f"the {TOP_TOPICS} heaviest live topics listing the project (weight, then label); a label "
        "is generic when it is one wordfreq token with English Zipf frequency >= 4.5 or on "
        "scikit-learn's English stopword list, or holds no token"
    ),
    "primers": (
        "UTF-8 bytes of every current primer record of the project (archived ones included) "
        "per tier; 1 KB = 1,000 bytes; in range = within the seed's range, over max = above "
        "the tier's max"
    ),
    "pack": (
        "UTF-8 bytes of the project's context pack (`remgraph rem pack`: latest monthly and "
        "weekly primers, today's sessions and the most recent daily primers up to the pack "
        "target) as of the REM cycle's clock"
    ),
    "clock": "the REM cycle runs at the wall clock, as `remgraph rem run` would",
}


class EvalError(InvalidInputError):
    """The evaluation cannot start: an unreadable file."""


# --- the input file -----------------------------------------------------------------------------


@dataclass
class SampleSpec:
    """One sample of the input file: what is ingested and what it is scored against."""

    sample_id: str
    position: int
    raw: dict[str, Any]
    observations: list[Observation] = field(default_factory=list)
    summaries: dict[str, str] = field(default_factory=dict)
    """Session key (`session_3`) → reference summary."""


def _dia_ids(sample: dict[str, Any]) -> set[str]:
    conv = sample.get("conversation") or {}
    out: set[str] = set()
    for value in conv.values():
        if isinstance(value, list):
            for t in value:
                if isinstance(t, dict):
                    out |= parse_evidence([t.get("dia_id") or ""])
    return out


def parse_samples(doc: Any, *, source: str) -> tuple[list[SampleSpec], list[str]]:
    """Samples and their annotations from a LoCoMo-layout document, plus issues found.

    A sample without a `conversation` object is skipped; an unreadable observation or summary is
    skipped; each is reported with where it is, and the rest of the file is used.
    """
    issues: list[str] = []
    samples = doc if isinstance(doc, list) else [doc]
    out: list[SampleSpec] = []
    seen: set[str] = set()
    for pos, sample in enumerate(samples, start=1):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            issues.append(f"{source}: sample #{pos}: no `conversation` object; skipped")
            continue
        sid = str(sample.get("sample_id") or f"sample-{pos}")
        if sid in seen:
            issues.append(f"{source}: sample #{pos}: duplicate sample_id {sid!r}; renamed")
            sid = f"{sid}-{pos}"
        seen.add(sid)
        spec = SampleSpec(sample_id=sid, position=pos, raw=sample)
        known = _dia_ids(sample)
        obs = sample.get("observation")
        if obs is None:
            issues.append(f"{source}: {sid}: no `observation`; observation figures skip it")
        elif not isinstance(obs, dict):
            issues.append(f"{source}: {sid}: `observation` is not an object; skipped")
        else:
            for key, by_speaker in obs.items():
                m = _OBS_KEY.match(key)
                if not m or not isinstance(by_speaker, dict):
                    issues.append(f"{source}: {sid}: observation key {key!r} unreadable; skipped")
                    continue
                session = f"session_{int(m.group(1))}"
                for speaker, rows in by_speaker.items():
                    for i, row in enumerate(rows if isinstance(rows, list) else [rows]):
                        where = f"{source}: {sid} {key} {speaker} #{i + 1}"
                        if (
                            not isinstance(row, list | tuple)
                            or len(row) < 2
                            or not isinstance(row[0], str)
                            or not row[0].strip()
                        ):
                            issues.append(f"{where}: not [text, evidence]; skipped")
                            continue
                        ev_raw = row[1] if isinstance(row[1], list) else [row[1]]
                        evidence = parse_evidence(ev_raw)
                        if not evidence:
                            issues.append(f"{where}: no readable evidence dialog id; skipped")
                            continue
                        unknown = sorted(evidence - known)
                        if unknown:
                            issues.append(f"{where}: evidence {unknown} not in the conversation")
                        spec.observations.append(
                            Observation(sid, session, str(speaker), row[0].strip(), evidence)
                        )
        sums = sample.get("session_summary")
        if sums is None:
            issues.append(f"{source}: {sid}: no `session_summary`; summary figures skip it")
        elif not isinstance(sums, dict):
            issues.append(f"{source}: {sid}: `session_summary` is not an object; skipped")
        else:
            for key, text in sums.items():
                m = _SUM_KEY.match(key)
                if not m or not isinstance(text, str) or not text.strip():
                    issues.append(f"{source}: {sid}: session summary {key!r} unreadable; skipped")
                    continue
                spec.summaries[f"session_{int(m.group(1))}"] = text.strip()
        out.append(spec)
    return out, issues


# --- one sample ---------------------------------------------------------------------------------


@dataclass
class SampleResult:
    """Everything measured on one sample."""

    spec: SampleSpec
    project: str
    remgraph: ObservationCounts
    turns: ObservationCounts
    summaries: list[SummaryScore]
    topics: dict[str, Any]
    primer_sizes: dict[str, list[int]]
    pack: dict[str, Any]
    info: dict[str, Any]


async def _sessions(db: GraphDB, project: str) -> list[Session]:
    repo = SessionRepository(db)
    out: list[Session] = []
    after = ""
    while True:
        page = await repo.list(projects=[project], after=after, limit=_PAGE)
        out.extend(page)
        if len(page) < _PAGE:
            return out
        after = page[-1].id


async def _turns(db: GraphDB, session_id: str) -> list[tuple[str, str, str, int]]:
    """`(id, text, source key, ordinal)` of a session's turns, in order."""
    repo = TurnRepository(db)
    out: list[tuple[str, str, str, int]] = []
    after = -1
    while True:
        page = await repo.list(session_id, after=after, limit=_PAGE)
        out.extend((t.id, t.text, t.source_key, t.ordinal) for t in page)
        if len(page) < _PAGE:
            return out
        after = page[-1].ordinal


def _dia(source_key: str) -> str | None:
    ids = parse_evidence([source_key])
    return next(iter(ids)) if len(ids) == 1 else None


async def _embed(emb: Embedder, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, emb.dimensions), dtype=np.float32)
    return np.asarray(await emb.embed(texts), dtype=np.float32)


async def _score_items(
    emb: Embedder, observations: list[Observation], obs_vecs: np.ndarray, items: list[KnowledgeItem]
) -> ObservationCounts:
    vecs = await _embed(emb, flat_units(items))
    return score_observations(observations, obs_vecs, items, vecs)


async def _run_sample(
    db: GraphDB,
    settings: Settings,
    spec: SampleSpec,
    project: str,
    file: Path,
    *,
    embedder: Embedder,
    scorer: Embedder,
) -> SampleResult:
    info: dict[str, Any] = {"project": project, "issues": []}
    t0 = time.perf_counter()
    hooks = extraction_hooks(db, settings, embedder)
    report = await ingest_paths(
        db, settings, [file], fmt="locomo", project=project, hooks=hooks, embedder=embedder
    )
    info["ingest"] = {
        "sessions": report.sessions,
        "turns": report.turns_new + report.turns_unchanged,
        "issues": [i.reason for i in report.issues][:_ISSUES_KEPT],
        "hook_errors": list(report.hook_errors)[:_ISSUES_KEPT],
    }
    info["issues"].extend(f"ingest: {i.reason}" for i in report.issues if i.severity != "info")
    info["issues"].extend(f"extraction: {e}" for e in report.hook_errors)
    extraction = [h.report.model_dump() for h in hooks if isinstance(h, ExtractionHook)]
    if extraction:
        info["extraction"] = {
            k: v for k, v in extraction[0].items() if isinstance(v, int | float) and v
        }
    t1 = time.perf_counter()
    now = utc_now()
    jobs: dict[str, str] = {}
    for name in JOBS:
        rep = await run_job(name, db=db, settings=settings, now=now, project=project)
        jobs[name] = rep.status if rep.error is None else f"{rep.status}: {rep.error}"
    info["rem"] = {"now": now.isoformat(), "jobs": jobs}
    info["issues"].extend(f"REM job {n}: {st}" for n, st in jobs.items() if st != "succeeded")
    t2 = time.perf_counter()
    now_ms = to_ms(now)

    # what the project holds
    sessions = await _sessions(db, project)
    turns_by_session = {s.id: await _turns(db, s.id) for s in sessions}
    turn_dia = {t[0]: _dia(t[2]) for ts in turns_by_session.values() for t in ts}
    audit = AuditRepository(db)
    nodes = await audit.project_nodes(project, now_ms)
    links = [(a, b) for a, b, _ in await audit.turn_links(project)]
    items = knowledge_items(nodes, links, turn_dia)
    raw = turn_items((t[0], t[1], turn_dia[t[0]]) for ts in turns_by_session.values() for t in ts)

    # observations: remgraph's items and the raw turns, same observations, same embedder
    obs_vecs = await _embed(scorer, [o.text for o in spec.observations])
    ours = await _score_items(scorer, spec.observations, obs_vecs, items)
    base = await _score_items(scorer, spec.observations, obs_vecs, raw)

    # session summaries
    by_key = {s.source_key: s for s in sessions}
    summaries: list[SummaryScore] = []
    for key, reference in sorted(spec.summaries.items(), key=lambda kv: _session_no(kv[0])):
        stored = by_key.get(key)
        if stored is None:
            info["issues"].append(f"{key}: summarised but not ingested")
            continue
        firsts = [t[1] for t in turns_by_session[stored.id]]
        summaries.append(score_summary(key, reference, stored.summary, firsts))

    # topics, primers, pack
    topic_rows = await RemRepository(db).topics(project, now_ms)
    topics = topic_stats([(r.title, r.weight) for r in topic_rows])
    primers = PrimerRepository(db)
    primer_sizes: dict[str, list[int]] = {
        tier: [
            len(p.text.encode("utf-8")) for p in await primers.list_primers(project, tier, now_ms)
        ]
        for tier in _TIERS
    }
    pack = await context_pack(
        db,
        project,
        now=now,
        budget=settings.consolidate.pack_budget,
        target=settings.consolidate.pack_target,
        settings=settings.consolidate,
    )
    pack_info = {
        "bytes": pack.size_bytes,
        "primers": len(pack.primer_ids),
        "cut": pack.cut,
        "in_range": PACK_BUDGET.lo <= pack.size_bytes <= PACK_BUDGET.hi,
        "within_target": PACK_BUDGET.lo <= pack.size_bytes <= PACK_BUDGET.max,
    }
    t3 = time.perf_counter()
    info["timings_s"] = {
        "ingest": round(t1 - t0, 2),
        "rem": round(t2 - t1, 2),
        "score": round(t3 - t2, 2),
    }
    info["sessions"] = len(sessions)
    info["turns"] = len(turn_dia)
    return SampleResult(spec, project, ours, base, summaries, topics, primer_sizes, pack_info, info)


def _session_no(key: str) -> int:
    m = re.search(r"(\d+)$", key)
    return int(m.group(1)) if m else 0


# --- the whole run ------------------------------------------------------------------------------


@dataclass
class KnowledgeOutcome:
    """The JSON document `remgraph eval knowledge` writes: meta, overall, projects, targets."""

    meta: dict[str, Any]
    overall: dict[str, Any]
    projects: dict[str, dict[str, Any]]
    targets: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "meta": self.meta,
            "overall": self.overall,
            "projects": self.projects,
            "targets": self.targets,
        }


def _primer_block(sizes: dict[str, list[int]]) -> dict[str, Any]:
    block: dict[str, Any] = {
        tier: size_stats(sizes.get(tier, []), b) for tier, b in TIER_BUDGETS.items()
    }
    block["over_max"] = sum(block[tier]["over_max"] for tier in TIER_BUDGETS)
    return block


def _project_block(r: SampleResult) -> dict[str, Any]:
    return {
        "project": r.project,
        "observations": {"remgraph": r.remgraph.summary(), "turns": r.turns.summary()},
        "session_summaries": {
            **summarize_summaries(r.summaries),
            "per_session": [
                {
                    "session": s.session,
                    "summary_words": s.summary_words,
                    "reference_words": s.reference_words,
                    "baseline_words": s.baseline_words,
                    "remgraph": {k: round(v, 4) for k, v in s.remgraph.items()},
                    "first_turns": {k: round(v, 4) for k, v in s.baseline.items()},
                }
                for s in r.summaries
            ],
        },
        "topics": r.topics,
        "primers": _primer_block(r.primer_sizes),
        "pack": r.pack,
        **r.info,
    }


def _overall(results: Sequence[SampleResult]) -> dict[str, Any]:
    ours = sum((r.remgraph for r in results), ObservationCounts())
    base = sum((r.turns for r in results), ObservationCounts())
    shares = [r.topics["generic_share"] for r in results]
    sizes = {tier: [s for r in results for s in r.primer_sizes[tier]] for tier in TIER_BUDGETS}
    judged = sum(r.topics["judged"] for r in results)
    generic = sum(r.topics["generic"] for r in results)
    packs = [int(r.pack["bytes"]) for r in results]
    return {
        "observations": {"remgraph": ours.summary(), "turns": base.summary()},
        "session_summaries": summarize_summaries([s for r in results for s in r.summaries]),
        "topics": {
            "projects": len(results),
            "judged": judged,
            "generic": generic,
            "generic_share": round(generic / judged, 4) if judged else None,
            "generic_share_max": max((s for s in shares if s is not None), default=None),
            "label_words": {
                k: sum(r.topics["label_words"][k] for r in results)
                for k in (results[0].topics["label_words"] if results else {})
            },
        },
        "primers": _primer_block(sizes),
        "pack": {
            **size_stats(packs, PACK_BUDGET),
            "within_target": sum(1 for p in packs if PACK_BUDGET.lo <= p <= PACK_BUDGET.max),
        },
    }


def git_commit() -> dict[str, Any]:
    """The commit of the code that ran, and whether the work tree had changes (None: no git)."""
    root = Path(remgraph.__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if head.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def scorer_embedder(settings: Settings, ingest_embedder: Embedder) -> Embedder:
    """The scoring embedder: all-MiniLM-L6-v2 whatever the settings say.

    The thresholds are defined for that model; the ingest embedder is reused when it is the same.
    """
    e = settings.embedding
    if e.provider == "local" and e.model == SCORER_MODEL:
        return ingest_embedder
    return CachedEmbedder(LocalEmbedder(batch_size=64), size=100_000)


async def evaluate_knowledge(
    iso: EvalIsolation[Settings],
    path: Path,
    *,
    conversations: int | None = None,
    embedder: Embedder | None = None,
    scorer: Embedder | None = None,
    show_progress: bool = True,
) -> KnowledgeOutcome:
    """Ingest, consolidate and score each sample of `path` in its own namespace.

    Args:
        iso: where each sample goes; its settings are remgraph's (extraction is switched on
            whatever they say).
        path: a LoCoMo-layout JSON file.
        conversations: only the first N samples (None: all).
        embedder: the ingest embedder (default: from the settings).
        scorer: the scoring embedder (default: all-MiniLM-L6-v2, shared with ingest if the same).
        show_progress: draw a progress bar on stderr.

    Raises:
        EvalError: the file is not JSON.
        IsolationError: a project name is already in use.
    """
    settings = iso.settings
    started = utc_now()
    t_start = time.perf_counter()
    code = git_commit()  # the code that runs, before anything can change it
    raw = await asyncio.to_thread(path.read_bytes)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise EvalError("PATH", f"{path}: not a LoCoMo JSON file: {e}") from e
    specs, issues = parse_samples(doc, source=path.name)
    if conversations is not None:
        specs = specs[:conversations]
    cfg = settings.model_copy(
        update={"extract": settings.extract.model_copy(update={"enabled": True})}
    )
    emb = embedder or make_embedder(cfg.embedding)
    score_emb = scorer or scorer_embedder(cfg, emb)
    results: list[SampleResult] = []
    with (
        tempfile.TemporaryDirectory(prefix="kneval-") as tmp,
        Progress(transient=True, disable=not show_progress) as bar,
    ):
        task = bar.add_task("knowledge eval", total=len(specs))
        for spec in specs:
            base = f"kneval-{spec.sample_id}"
            file = Path(tmp) / f"{spec.position:04d}.json"
            await asyncio.to_thread(file.write_text, json.dumps([spec.raw]), encoding="utf-8")
            bar.update(task, description=f"{spec.sample_id}")
            async with iso.namespace(base, paths=[str(file.resolve())]) as ns:
                project = ns.project(base)
                results.append(
                    await _run_sample(
                        ns.db, cfg, spec, project, file, embedder=emb, scorer=score_emb
                    )
                )
            bar.advance(task)
    isolation = iso.facts()
    overall = _overall(results)
    projects = {r.spec.sample_id: _project_block(r) for r in results}
    goal = targets(
        overall["observations"]["remgraph"],
        overall["session_summaries"],
        [r.topics["generic_share"] for r in results],
        [int(r.pack["bytes"]) for r in results],
        overall["primers"]["over_max"],
    )
    for r in results:
        issues.extend(f"{r.spec.sample_id}: {x}" for x in r.info.pop("issues", []))
    meta = {
        "file": path.name,
        "file_sha256": hashlib.sha256(raw).hexdigest(),
        "conversations": len(results),
        "observations": sum(len(r.spec.observations) for r in results),
        "sessions": sum(int(r.info["sessions"]) for r in results),
        "turns": sum(int(r.info["turns"]) for r in results),
        "started_at": started.isoformat(),
        "total_s": round(time.perf_counter() - t_start, 1),
        "timings_s": {
            k: round(sum(float(r.info["timings_s"][k]) for r in results), 1)
            for k in ("ingest", "rem", "score")
        },
        "engine": str(cfg.engine.value if isinstance(cfg.engine, Engine) else cfg.engine),
        "isolation": isolation,
        "extractor": "llm" if cfg.extract.use_llm and cfg.llm.enabled else "offline",
        "embedding": cfg.embedding.model,
        "scorer": SCORER_MODEL,
        "thresholds": {
            "recall_cosine": RECALL_COSINE,
            "precision_cosine": PRECISION_COSINE,
            "generic_zipf": GENERIC_ZIPF,
            "top_topics": TOP_TOPICS,
        },
        "budgets": {
            **{tier: b.describe() for tier, b in TIER_BUDGETS.items()},
            "pack": PACK_BUDGET.describe(),
        },
        "definitions": DEFINITIONS,
        "remgraph_version": remgraph.__version__,
        **code,
        "issues": issues[:_ISSUES_KEPT],
        "issues_total": len(issues),
    }
    return KnowledgeOutcome(meta=meta, overall=overall, projects=projects, targets=goal)


# --- output -------------------------------------------------------------------------------------


def _f(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _kb(x: Any) -> str:
    return "–" if x is None else f"{x / 1000:.2f}"


def project_rows(outcome: KnowledgeOutcome) -> list[list[str]]:
    """One row per project and one overall row: the headline figures."""
    header = [
        "project",
        "obs",
        "recall+prov",
        "recall",
        "precision",
        "turns recall+prov",
        "turns recall",
        "turns precision",
        "ROUGE-L",
        "first turns",
        "generic",
        "pack KB",
        "primers over max",
    ]
    rows = [header]
    blocks = [*outcome.projects.items(), ("overall", outcome.overall)]
    for name, b in blocks:
        o, t = b["observations"]["remgraph"], b["observations"]["turns"]
        s = b["session_summaries"]
        topics = b["topics"]
        pack = b["pack"]
        rows.append(
            [
                name,
                str(o["observations"]),
                _f(o["recall_with_provenance"]),
                _f(o["recall"]),
                _f(o["precision"]),
                _f(t["recall_with_provenance"]),
                _f(t["recall"]),
                _f(t["precision"]),
                _f(s["remgraph"]["rougeL"]),
                _f(s["first_turns"]["rougeL"]),
                _f(topics.get("generic_share_max", topics.get("generic_share"))),
                _kb(pack.get("bytes", pack.get("mean"))),
                str(b["primers"]["over_max"]),
            ]
        )
    return rows


def _md_table(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out.extend("| " + " | ".join(r) + " |" for r in rows[1:])
    return "\n".join(out) + "\n"


def markdown(outcome: KnowledgeOutcome) -> str:
    """The Markdown report: targets, headline table, details, definitions, run metadata."""
    m = outcome.meta
    ov = outcome.overall
    dirty = " (with uncommitted changes)" if m.get("dirty") else ""
    lines = [
        f"# Knowledge evaluation: {m['file']}, {m['conversations']} conversations, "
        f"{m['sessions']} sessions, {m['turns']} turns, {m['observations']} observations",
        "",
        f"Engine {m['engine']} ({m['isolation']['mode']}), {m['extractor']} extraction, one full "
        f"REM cycle per project; {m['total_s']} s in all (ingest {m['timings_s']['ingest']} s, "
        f"REM {m['timings_s']['rem']} s, scoring {m['timings_s']['score']} s); commit "
        f"`{(m.get('commit') or 'unknown')[:12]}`{dirty}.",
        "",
        "## Targets",
        "",
    ]
    lines.append(
        _md_table(
            [["target", "wanted", "measured", "met"]]
            + [
                [t["name"], t["target"], t["value"], "met" if t["met"] else "not met"]
                for t in outcome.targets
            ]
        )
    )
    lines += [
        "## Per project",
        "",
        "`recall+prov`: observation recall with provenance; `turns …`: the same with raw turns as "
        "the items (baseline, same run); `generic`: share of generic labels among the "
        f"{TOP_TOPICS} heaviest topics (overall row: worst project); `pack KB`: the context "
        "pack (overall row: mean).",
        "",
        _md_table(project_rows(outcome)),
        "## Observations: what matched them (overall)",
        "",
    ]
    o = ov["observations"]["remgraph"]
    kinds = sorted(set(o["units_by_kind"]) | set(o["matched_by_kind"]))
    lines.append(
        _md_table(
            [["unit kind", "units", "observations matched", "with provenance"]]
            + [
                [
                    k,
                    str(o["units_by_kind"].get(k, 0)),
                    str(o["matched_by_kind"].get(k, 0)),
                    str(o["matched_with_provenance_by_kind"].get(k, 0)),
                ]
                for k in kinds
            ]
        )
    )
    by_label = (
        ", ".join(
            f"{k} {v} ({o['provenance_mean_by_label'].get(k, 0)} turns)"
            for k, v in o["items_by_label"].items()
        )
        or "none"
    )
    lines += [
        f"Items by label, with the mean number of turns each is linked to: {by_label}. "
        f"Provenance coverage (observations with some item linked to an evidence turn, whatever "
        f"the cosine): {_f(o['provenance_coverage'])}; raw turns "
        f"{_f(ov['observations']['turns']['provenance_coverage'])}.",
        "",
        "## Session summaries (overall means)",
        "",
    ]
    s = ov["session_summaries"]
    lines.append(
        _md_table(
            [["", "ROUGE-1", "ROUGE-2", "ROUGE-L"]]
            + [
                [side, *(_f(s[key][mm]) for mm in ("rouge1", "rouge2", "rougeL"))]
                for side, key in (("remgraph", "remgraph"), ("first turns", "first_turns"))
            ]
        )
    )
    lines += [
        f"{s['with_summary']} of {s['sessions']} sessions have a stored summary "
        f"({_f(s['summary_words_mean'], 1)} words on average; references "
        f"{_f(s['reference_words_mean'], 1)}).",
        "",
        "## Topics, primers and pack (overall)",
        "",
    ]
    t = ov["topics"]
    lines.append(
        f"Generic labels: {t['generic']} of {t['judged']} judged ({_f(t['generic_share'])}); "
        f"words per label: {', '.join(f'{k}: {v}' for k, v in t['label_words'].items())}.\n"
    )
    pr = ov["primers"]
    rows = [["tier", "count", "mean B", "min B", "max B", "in range", "over max", "budget"]]
    for tier in TIER_BUDGETS:
        b = pr[tier]
        rows.append(
            [tier, str(b["count"]), _f(b["mean"], 0), _f(b["min"]), _f(b["max"]),
             _f(b["in_range_share"]), str(b["over_max"]), b["budget"]]
        )  # fmt: skip
    pk = ov["pack"]
    rows.append(
        ["pack", str(pk["count"]), _f(pk["mean"], 0), _f(pk["min"]), _f(pk["max"]),
         _f(pk["in_range_share"]), str(pk["over_max"]), pk["budget"]]
    )  # fmt: skip
    lines.append(_md_table(rows))
    lines += ["## Definitions", ""]
    lines += [f"- **{k}**: {v}" for k, v in m["definitions"].items()]
    lines += ["", "## Run", ""]
    iso = ", ".join(f"{k} {v}" for k, v in m["isolation"].items())
    lines += [
        f"- isolation: {iso}",
        f"- file sha256 `{m['file_sha256']}`; embedding {m['embedding']}, scorer {m['scorer']}",
        f"- issues: {m['issues_total']}"
        + ("" if not m["issues"] else " (first: " + "; ".join(m["issues"][:5]) + ")"),
        "",
    ]
    return "\n".join(lines)


def write_results(
    outcome: KnowledgeOutcome, out_dir: Path, stem: str = "knowledge_eval"
) -> tuple[Path, Path]:
    """Write `<stem>.json` and `<stem>.md` under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jp = out_dir / f"{stem}.json"
    mp = out_dir / f"{stem}.md"
    jp.write_text(json.dumps(outcome.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    mp.write_text(markdown(outcome), encoding="utf-8")
    return jp, mp


def rich_tables(outcome: KnowledgeOutcome) -> list[Table]:
    """The targets and the per-project figures as Rich tables for the terminal."""
    goals = Table(title="Targets (issue 16)")
    for col in ("target", "wanted", "measured", "met"):
        goals.add_column(col)
    for t in outcome.targets:
        goals.add_row(
            t["name"], t["target"], t["value"], "[green]met[/]" if t["met"] else "[red]not met[/]"
        )
    rows = project_rows(outcome)
    per = Table(title="Knowledge evaluation (overall: pooled; generic: worst project)")
    per.add_column("")
    for r in rows[1:]:
        per.add_column(r[0], justify="right", style="bold" if r[0] == "overall" else None)
    for i, metric in enumerate(rows[0][1:], start=1):
        per.add_row(metric, *(r[i] for r in rows[1:]))
    return [goals, per]


async def run_knowledge_command(
    path: Path,
    *,
    conversations: int | None,
    out_dir: Path,
    stem: str = "knowledge_eval",
    settings: Settings | None = None,
    show_progress: bool = True,
) -> KnowledgeOutcome:
    """What `remgraph eval knowledge` does: isolate as the engine allows, evaluate, write."""
    async with EvalIsolation.open(settings or Settings(), prefix="kneval") as iso:
        outcome = await evaluate_knowledge(
            iso, path, conversations=conversations, show_progress=show_progress
        )
    write_results(outcome, out_dir, stem)
    return outcome


def knowledge_command(
    path: Annotated[Path, typer.Argument(help="LoCoMo-layout JSON file (with annotations)")],
    conversations: Annotated[
        int | None, typer.Option(help="Only the first N samples (default: all)")
    ] = None,
    out: Annotated[Path, typer.Option(help="Results folder")] = Path("bench/results"),
    stem: Annotated[str, typer.Option(help="Result file name stem")] = "knowledge_eval",
) -> None:
    """Ingest each sample into a fresh project, run a REM cycle, score what it knows."""
    if not path.is_file():
        raise typer.BadParameter(f"{path} is not a file", param_hint="PATH")
    if conversations is not None and conversations < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--conversations")
    outcome = asyncio.run(
        run_knowledge_command(path, conversations=conversations, out_dir=out, stem=stem)
    )
    console = Console()
    for table in rich_tables(outcome):
        console.print(table)
    iso = outcome.meta["isolation"]
    if iso.get("database_unchanged") is False:
        console.print(
            "[red]warning:[/] the database changed outside the evaluated projects during the run "
            "(another writer?)"
        )
    typer.echo(f"wrote {out / (stem + '.json')} and {out / (stem + '.md')}")
