"""`remgraph eval extraction LABELS --corpus FILE`: distilled knowledge against a person's labels.

A real history (generic JSONL, as `remgraph ingest FILE --format generic` reads it) goes into a
scratch namespace through the real ingest pipeline with knowledge extraction, one full REM cycle
runs for its project (every job of `consolidate.jobs.JOBS`, in order), and what was distilled
(rules and preferences, decisions, facts, lessons; closed and superseded records included) is
matched against the labels file (`remgraph.extraction_labels`) by meaning and provenance
(`remgraph.extraction_metrics`). The labels' questions then go through the same app's GraphQL
`context`, as an agent asks them, and are judged by the `eval scenarios` pass rule, plus: does a
distilled item carry the answer in the top 5, does an unrelated rule take a top-3 place, and how
well `answerable` separates the questions whose answer is in the top 5 from the rest: the
labelled questions it misses and the labels' `unanswerable` questions (asked of a history that
does not hold their answer) are the negatives (AUC).

Record time is the history's time: the clock is frozen one minute after the history's last
message while it is ingested, consolidated and asked, so a new session "right after" the history
is what is measured. Isolation is `remgraph/eval_isolation.py`'s (a scratch graph on FalkorDB;
on Neo4j a project that must hold no data, purged afterwards).

`--sessions N` keeps the first N sessions (file order) and the labels said in them: the small
slice CI runs.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console

from ai.embed import Embedder, make_embedder
from ai.language import fragments
from core.timeutil import frozen_clock, parse_time, to_ms
from graph.db import GraphDB
from graph.models import CANDIDATE, Correction, Fact, Lesson
from graph.repositories.exports import ExportRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.turns import TurnRepository
from ingest.normalize import truncate
from ingest.pipeline import ingest_paths
from recall.rules import InForce, read_current_rules, read_held_back
from remgraph.eval_isolation import EvalIsolation
from remgraph.eval_scenarios import (
    GraphQLClient,
    eval_settings,
    git_commit,
    rem_cycle,
    served_app,
)
from remgraph.extraction_labels import (
    LABEL_KINDS,
    History,
    Labels,
    LabelsError,
    load_labels,
    locate,
    read_history,
    squash,
)
from remgraph.extraction_metrics import (
    SIM_ALONE,
    SIM_WITH_TURN,
    Distilled,
    ItemKind,
    Match,
    auc,
    candidates_report,
    is_candidate,
    kind_report,
    match,
    totals,
    unmatched,
)
from remgraph.scenario_spec import Item, judge
from remgraph.settings import Settings

DISTILLED_KINDS = ("CORRECTION", "FACT", "LESSON")
"""`context` kinds of a distilled rule, decision, fact or lesson."""
ANSWER_TOP = 5
RULE_TOP = 3
FACT_KINDS: dict[str, ItemKind] = {
    "decision": "decision",
    "preference": "rule",
    "tech_stack": "fact",
    "project": "fact",
    "event": "fact",
    "observation": "fact",
    "other": "fact",
    "todo": "other",
}
"""A stored fact's kind as the labels name it: a preference is a standing instruction; a todo
is open work, which the labels do not cover."""
TEXT_CHARS = 240

_CONTEXT = (
    "query Ask($query: String!, $project: String!) { context(query: $query, project: $project) "
    "{ __typename ... on ContextPayload { answerable answerableWhy { name value } "
    "items { id kind text score why { name value } } } "
    "... on InvalidInput { field message } ... on Forbidden { message } } }"
)


@dataclass
class ExtractionOutcome:
    """The whole run: figures per kind, questions, unmatched items both ways, metadata."""

    meta: dict[str, Any]
    kinds: dict[str, dict[str, Any]]
    questions: dict[str, Any]
    unmatched: dict[str, list[dict[str, Any]]]
    matches: list[dict[str, Any]]
    label_problems: list[str]
    session_start: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "meta": self.meta,
            "kinds": self.kinds,
            "totals": totals(self.kinds),
            "questions": self.questions,
            "session_start_rules": self.session_start,
            "unmatched": self.unmatched,
            "matches": self.matches,
            "label_problems": self.label_problems,
        }


# --- the slice -------------------------------------------------------------------------------


def slice_labels(labels: Labels, keep: set[str]) -> Labels:
    """The labels said in the sessions `keep`; an item replaced outside them is current."""
    items = []
    for i in labels.items:
        ev = tuple(e for e in i.evidence if e.session in keep)
        if ev:
            items.append(i.model_copy(update={"evidence": ev}))
    ids = {i.id for i in items}
    items = [
        i
        if i.superseded_by is None or i.superseded_by in ids
        else i.model_copy(update={"superseded_by": None, "current": True})
        for i in items
    ]
    questions = [q for q in labels.questions if q.answers and set(q.answers) <= ids]
    return labels.model_copy(update={"items": tuple(items), "questions": tuple(questions)})


def _write_slice(corpus: Path, keep: set[str], out: Path) -> None:
    with corpus.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if line.strip() and json.loads(line).get("session_id") in keep:
                dst.write(line)


def load_slice(
    labels_path: Path, corpus: Path, sessions: int | None
) -> tuple[Labels, History, set[str]]:
    """The labels and the history, cut to the first `sessions` (all when None), and the kept ids.

    Raises:
        LabelsError: the labels or the history cannot be read.
    """
    labels, history = load_labels(labels_path), read_history(corpus)
    keep = first_sessions(history, sessions)
    if sessions is not None:
        history = read_history(corpus, sessions=keep)
        labels = slice_labels(labels, keep)
    return labels, history, keep


def first_sessions(history: History, n: int | None) -> set[str]:
    """The first `n` sessions of the history in file order (all when `n` is None)."""
    names = list(history.sessions)
    return set(names if n is None else names[:n])


def replay_scenario(labels: Labels, history: History, max_chars: int) -> dict[str, Any]:
    """The history and its questions as one `eval scenarios` file (the format of issue 14).

    Sessions in time order (a session starts at its first message); each message a turn, cut
    to `max_chars` as ingest cuts it (`ingest.max_turn_chars`), empty ones left out; one REM
    cycle after the last session; the questions as checks after it.
    """
    order = sorted(history.sessions, key=lambda sid: history.sessions[sid][0].timestamp)
    sessions = []
    for sid in order:
        turns = [
            {
                "role": m.role if m.role in ("user", "assistant", "system", "tool") else "user",
                "content": truncate(m.content, max_chars)[0],
            }
            for m in history.sessions[sid]
            if m.content.strip()
        ]
        if turns:
            first = history.sessions[sid][0].timestamp
            when = parse_time(first)
            start = when.isoformat() if when is not None else first
            sessions.append({"id": sid, "start": start, "rem": False, "turns": turns})
    if sessions:
        sessions[-1]["rem"] = True
    keep = ("query", "as_of", "known_at", "top", "expect_any", "expect_kind", "forbid_any")
    checks = [
        {"after_session": None} | {k: v for k, v in q.model_dump(mode="json").items() if k in keep}
        for q in labels.questions
    ]
    return {
        "name": f"{labels.corpus}: the labelled real history, replayed",
        "project": labels.project,
        "sessions": sessions,
        "checks": checks,
    }


# --- reading back what was distilled ---------------------------------------------------------


async def _message_places(
    db: GraphDB, project: str, history: History
) -> dict[str, tuple[str, int]]:
    """Turn id -> (session, index of the message in the history's session)."""
    out: dict[str, tuple[str, int]] = {}
    for s in await SessionRepository(db).list(projects=[project], limit=100_000):
        msgs = history.sessions.get(s.source_key, [])
        turns = await TurnRepository(db).list(s.id, limit=100_000)
        if len(turns) == len(msgs):  # one turn per message, in order
            out.update({t.id: (s.source_key, i) for i, t in enumerate(turns)})
            continue
        heads = {squash(m.content)[:200]: m.index for m in msgs}
        for t in turns:
            i = heads.get(squash(t.text)[:200])
            if i is not None:
                out[t.id] = (s.source_key, i)
    return out


def _current(item: Correction | Fact | Lesson, now: Any) -> bool:
    return (item.valid_to is None or item.valid_to > now) and (
        item.expired_at is None or item.expired_at > now
    )


def _as_distilled(
    node: Correction | Fact | Lesson, places: dict[str, tuple[str, int]], now: Any
) -> Distilled:
    turns = frozenset(places[t] for t in node.source_turn_ids if t in places)
    if isinstance(node, Correction):
        return Distilled(
            node.id,
            "rule",
            "correction:candidate" if node.status == CANDIDATE else "correction",
            node.rule_text or node.corrected_behaviour,
            turns,
            _current(node, now),
            float(node.confidence),
        )
    if isinstance(node, Fact):
        return Distilled(
            node.id,
            FACT_KINDS.get(node.kind, "fact"),
            f"fact:{node.kind}",
            node.statement,
            turns,
            _current(node, now),
            float(node.confidence),
        )
    return Distilled(
        node.id,
        "lesson",
        "lesson",
        f"{node.title}: {node.content}" if node.content else node.title,
        turns,
        _current(node, now),
        float(node.quality),
        headline=node.title,
    )


async def distilled_items(db: GraphDB, project: str, history: History, now: Any) -> list[Distilled]:
    """Every rule, fact and lesson record of the project (closed ones too), with provenance."""
    graph = await ExportRepository(db).project_graph(project, all_history=True)
    places = await _message_places(db, project, history)
    nodes = [n for n in graph.nodes if isinstance(n, Correction | Fact | Lesson)]
    return sorted((_as_distilled(n, places, now) for n in nodes), key=lambda d: d.id)


# --- meaning ---------------------------------------------------------------------------------


async def similarity_table(
    embedder: Embedder, items: Sequence[Distilled], labels: Labels
) -> dict[tuple[str, str], float]:
    """Cosine of each item's text with each label's meaning or, when higher, one of its quotes."""
    label_texts: list[tuple[str, str]] = []
    for lab in labels.items:
        label_texts.append((lab.id, lab.meaning))
        label_texts += [(lab.id, e.quote) for e in lab.evidence]
    if not items or not label_texts:
        return {}
    iv = np.asarray(await embedder.embed([i.text or " " for i in items]), dtype=np.float32)
    lv = np.asarray(await embedder.embed([t for _, t in label_texts]), dtype=np.float32)
    iv /= np.maximum(np.linalg.norm(iv, axis=1, keepdims=True), 1e-9)
    lv /= np.maximum(np.linalg.norm(lv, axis=1, keepdims=True), 1e-9)
    sims = iv @ lv.T
    out: dict[tuple[str, str], float] = {}
    for j, (lid, _) in enumerate(label_texts):
        for k, it in enumerate(items):
            key = (it.id, lid)
            out[key] = max(out.get(key, -1.0), float(sims[k, j]))
    return out


async def session_start_rules(
    db: GraphDB, project: str, items: Sequence[Distilled], m: Match, labels: Labels, end: Any
) -> dict[str, Any]:
    """What a session-start hook would inject (`rules(project)`), and how much of it is right.

    A rule is right when it matches a labelled rule (a standing instruction). The rules in
    force that are held back (`recall.rules.held_back`) are listed with why, and how many of
    them were labelled rules (what the filter cost).
    """
    at = to_ms(end)
    rules = await read_current_rules(db, [project], now_ms=at, limit=None)
    held = await read_held_back(db, [project], now_ms=at)
    by_id = {i.id: i for i in items}
    kind = {lab.id: lab.kind for lab in labels.items}

    def row(r: InForce, why: str | None) -> dict[str, Any]:
        matched = [lab for lab in m.labels_of(r.id) if kind[lab] == "rule"]
        it = by_id.get(r.id)
        out = {
            "id": r.id,
            "status": r.status,
            "confidence": None if it is None else round(it.confidence, 3),
            "right": bool(matched),
            "labels": matched,
            "text": r.text[:TEXT_CHARS],
        }
        return out if why is None else {**out, "why": why}

    rows = [row(r, None) for r in rules]
    held_rows = [row(r, why) for r, why in held]
    right = sum(r["right"] for r in rows)
    return {
        "served": len(rows),
        "right": right,
        "precision": round(right / len(rows), 4) if rows else None,
        "rules": rows,
        "held_back": len(held_rows),
        "held_back_right": sum(r["right"] for r in held_rows),
        "held_back_rules": held_rows,
    }


# --- questions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Asked:
    """One `context` answer: its items, `answerable` and what it rests on, each item's signals."""

    items: list[Item]
    answerable: float
    reasons: dict[str, float]
    signals: list[dict[str, float]]

    def top(self, n: int) -> list[dict[str, Any]]:
        """The first `n` items as the report lists them."""
        return [
            {
                "rank": r,
                "kind": i.kind,
                "score": round(i.score, 4),
                "text": i.text[:160],
                "why": {k: round(v, 4) for k, v in w.items()},
            }
            for r, (i, w) in enumerate(zip(self.items[:n], self.signals, strict=False), start=1)
        ]


async def _ask(client: GraphQLClient, project: str, query: str) -> _Asked:
    data = await client.call(_CONTEXT, {"query": query, "project": project}, "context")
    items = [
        Item(kind=str(i["kind"]), text=str(i["text"]), score=float(i["score"]), id=str(i["id"]))
        for i in data["items"]
    ]
    signals = [{str(w["name"]): float(w["value"]) for w in i["why"]} for i in data["items"]]
    reasons = {str(w["name"]): float(w["value"]) for w in data["answerableWhy"]}
    return _Asked(items, float(data["answerable"]), reasons, signals)


def _carries(items: Sequence[Item], expect: Sequence[str], kinds: Sequence[str] | None) -> bool:
    want = [e.casefold() for e in expect]
    return any(
        (kinds is None or i.kind in kinds) and any(w in i.text.casefold() for w in want)
        for i in items
    )


def _unrelated_rules(
    items: Sequence[Item], expect: Sequence[str], answers: set[str], m: Match
) -> list[str]:
    """Rules in the top 3 that neither hold the answer nor match a label that answers."""
    want = [e.casefold() for e in expect]
    out = []
    for i in items[:RULE_TOP]:
        if i.kind != "CORRECTION":
            continue
        if any(w in i.text.casefold() for w in want) or answers & set(m.labels_of(i.id)):
            continue
        out.append(i.text[:TEXT_CHARS])
    return out


async def ask_questions(client: GraphQLClient, project: str, labels: Labels, m: Match) -> Any:
    """Every question through `context`; the verdicts and their summary."""
    details: list[dict[str, Any]] = []
    for q in labels.questions:
        asked = await _ask(client, project, q.query)
        items = asked.items
        verdict = judge(q, items)
        any_kind = _carries(items[:ANSWER_TOP], q.expect_any, None)
        distilled = _carries(items[:ANSWER_TOP], q.expect_any, DISTILLED_KINDS)
        unrelated = _unrelated_rules(items, q.expect_any, set(q.answers), m)
        details.append(
            {
                "id": q.id,
                "query": q.query,
                "passed": verdict.passed,
                "reasons": list(verdict.reasons),
                "answer_top5_any": any_kind,
                "answer_top5_distilled": distilled,
                "unrelated_rules_top3": unrelated,
                "answerable": round(asked.answerable, 4),
                "answerable_why": asked.reasons,
                "items": asked.top(max(q.top, ANSWER_TOP)),
            }
        )
    unknown = [await _ask_unanswerable(client, project, q.id, q.query) for q in labels.unanswerable]
    pos = [float(d["answerable"]) for d in details if d["answer_top5_any"]]
    neg = [float(d["answerable"]) for d in details if not d["answer_top5_any"]]
    neg += [float(d["answerable"]) for d in unknown]
    return {
        "total": len(details),
        "passed": sum(d["passed"] for d in details),
        "answer_top5_any": sum(d["answer_top5_any"] for d in details),
        "answer_top5_distilled": sum(d["answer_top5_distilled"] for d in details),
        "unrelated_rule_top3": sum(bool(d["unrelated_rules_top3"]) for d in details),
        "answerable_auc": auc(pos, neg),
        "answerable_auc_negatives": len(neg),
        "details": details,
        "unanswerable": unknown,
    }


async def _ask_unanswerable(
    client: GraphQLClient, project: str, qid: str, query: str
) -> dict[str, Any]:
    """A question the history does not answer: what `answerable` said, and the top items."""
    asked = await _ask(client, project, query)
    return {
        "id": qid,
        "query": query,
        "answerable": round(asked.answerable, 4),
        "answerable_why": asked.reasons,
        "items": asked.top(ANSWER_TOP),
    }


# --- the run ---------------------------------------------------------------------------------


async def _ingest_and_consolidate(
    db: GraphDB, settings: Settings, corpus: Path, project: str, emb: Embedder, end: Any
) -> dict[str, Any]:
    from remgraph.wiring import extraction_hooks

    t0 = time.perf_counter()
    report = await ingest_paths(
        db,
        settings,
        [corpus],
        fmt="generic",
        project=project,
        hooks=extraction_hooks(db, settings, emb),
        embedder=emb,
    )
    ingest_s = time.perf_counter() - t0
    failed = await rem_cycle(db, settings, project, end)
    return {
        "sessions": report.sessions,
        "turns": report.turns_new + report.turns_unchanged,
        "issues": [i.reason for i in report.issues if i.severity != "info"][:20],
        "hook_errors": list(report.hook_errors)[:20],
        "rem_failures": failed,
        "ingest_s": round(ingest_s, 2),
        "rem_s": round(time.perf_counter() - t0 - ingest_s, 2),
    }


async def evaluate_extraction(
    labels_path: Path,
    corpus: Path,
    *,
    sessions: int | None = None,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
) -> ExtractionOutcome:
    """Run the whole evaluation (see the module docstring).

    Raises:
        LabelsError: the labels or the history cannot be read.
        DatabaseInUseError / ProjectInUseError: the shared database is not free (Neo4j).
    """
    cfg = eval_settings(settings)
    labels, history, keep = load_slice(labels_path, corpus, sessions)
    places, problems = locate(labels, history)
    last = parse_time(history.last_timestamp()) if history.last_timestamp() else None
    if last is None:
        raise LabelsError(f"{corpus}: no message has a timestamp")
    end = last + timedelta(minutes=1)
    emb = embedder or make_embedder(cfg.embedding)
    t0 = time.perf_counter()
    async with EvalIsolation.open(cfg, prefix="extraction") as iso:
        with tempfile.TemporaryDirectory() as tmp:
            file = Path(tmp) / corpus.name
            await asyncio.to_thread(_write_slice, corpus, keep, file)
            async with iso.namespace(labels.project, paths=[str(file)]) as ns:
                project = ns.project(labels.project)
                with frozen_clock(end):
                    run = await _ingest_and_consolidate(ns.db, ns.settings, file, project, emb, end)
                    stored = await distilled_items(ns.db, project, history, end)
                    items = [i for i in stored if not is_candidate(i)]
                    sims = await similarity_table(emb, stored, labels)
                    m = match(items, labels, places, lambda i, lab: sims.get((i.id, lab.id), 0.0))
                    held = candidates_report(
                        [i for i in stored if is_candidate(i)],
                        labels,
                        match(stored, labels, places, lambda i, lab: sims.get((i.id, lab.id), 0.0)),
                    )
                    start_rules = await session_start_rules(ns.db, project, items, m, labels, end)
                    async with served_app(
                        ns.db, ns.settings, emb, project, f"eval extraction: {labels.corpus}", end
                    ) as (client, _):
                        questions = await ask_questions(client, project, labels, m)
    judged = [i.judged_text for i in items]
    frag = dict(zip(judged, fragments(judged), strict=True))
    kinds: dict[str, dict[str, Any]] = {
        k: kind_report(k, items, labels, m, lambda t: frag.get(t, False)) | held.get(k, {})
        for k in LABEL_KINDS
    }
    by_id = {i.id: i for i in items}
    meta = {
        "labels": labels_path.name,
        "corpus": corpus.name,
        "project": labels.project,
        "sessions": len(history.sessions),
        "messages": history.messages,
        "history_end": end.isoformat(),
        "engine": cfg.engine.value,
        "extractor": "llm" if cfg.extract.use_llm else "offline",
        "offline_model": cfg.extract.offline_model,
        "embedding": f"{cfg.embedding.provider}:{cfg.embedding.model}",
        "isolation": iso.facts(),
        "match": {"sim_with_turn": SIM_WITH_TURN, "sim_alone": SIM_ALONE},
        "git_commit": git_commit(),
        "run": run,
        "duration_s": round(time.perf_counter() - t0, 2),
    }
    return ExtractionOutcome(
        meta=meta,
        kinds=kinds,
        questions=questions,
        unmatched=unmatched(items, labels, m, text_chars=TEXT_CHARS),
        matches=[
            {
                "item": i,
                "label": lab,
                "cosine": sim,
                "shared_message": shared,
                "item_text": by_id[i].text[:TEXT_CHARS],
                "confidence": round(by_id[i].confidence, 3),
            }
            for i, lab, sim, shared in sorted(m.pairs)
        ],
        label_problems=problems,
        session_start=start_rules,
    )


# --- output ----------------------------------------------------------------------------------


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)


def markdown(outcome: ExtractionOutcome) -> str:
    """The figures as a Markdown report (the JSON holds everything)."""
    m, q = outcome.meta, outcome.questions
    lines = [
        f"# Extraction evaluation: {m['corpus']} against {m['labels']}",
        "",
        f"{m['sessions']} sessions, {m['messages']} messages; engine `{m['engine']}`, "
        f"{m['extractor']} extraction ({m.get('offline_model', 'patterns')}), "
        f"commit `{m['git_commit']}`, {m['duration_s']} s.",
        "",
        "Candidates are stored, not served, so precision and recall leave them out.",
        "",
        "| kind | distilled | labelled | precision | recall | current-value acc. | garbled "
        "| candidates (labelled) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for k, r in outcome.kinds.items():
        lines.append(
            f"| {k} | {r['distilled']} | {r['labelled']} | {_fmt(r['precision'])} | "
            f"{_fmt(r['recall'])} | {_fmt(r['current_accuracy'])} | {_fmt(r['garbled'])} | "
            f"{r.get('candidates', 0)} ({r.get('candidates_matched', 0)}) |"
        )
    lines += [
        "",
        f"Questions: {q['passed']}/{q['total']} pass as written; a distilled item carries the "
        f"answer in the top {ANSWER_TOP} for {q['answer_top5_distilled']}, any item for "
        f"{q['answer_top5_any']}; an unrelated rule in the top {RULE_TOP} for "
        f"{q['unrelated_rule_top3']}; `answerable` AUC {_fmt(q['answerable_auc'])} "
        f"({q['answerable_auc_negatives']} negatives, {len(q['unanswerable'])} of them "
        "unanswerable questions).",
        "",
        f"Session-start rules (`rules(project)`, what a hook injects): "
        f"{outcome.session_start['right']} of {outcome.session_start['served']} are labelled "
        f"standing instructions; {outcome.session_start['held_back']} more in force were held "
        f"back, {outcome.session_start['held_back_right']} of them labelled rules.",
        "",
    ]
    return "\n".join(lines)


def print_outcome(outcome: ExtractionOutcome, console: Console) -> None:
    """The figures, then what matched nothing both ways, then problems with the labels."""
    console.print(markdown(outcome), highlight=False, markup=False, soft_wrap=True)
    for side in ("distilled", "labelled"):
        rows = outcome.unmatched[side]
        console.print(f"unmatched {side} ({len(rows)}):", highlight=False)
        for r in rows:
            console.print(f"  [{r['kind']}] {' '.join(r['text'].split())[:150]}", markup=False)
    for p in outcome.label_problems:
        console.print(f"label problem: {p}", markup=False)


def extraction_command(
    labels: Annotated[Path, typer.Argument(metavar="LABELS", help="A labels JSON file")],
    corpus: Annotated[Path, typer.Option(help="The history it labels (generic JSONL)")],
    out: Annotated[
        Path | None, typer.Option(help="Write <stem>.json and <stem>.md into this folder")
    ] = None,
    stem: Annotated[str, typer.Option(help="Result file name stem")] = "extraction",
    sessions: Annotated[
        int | None, typer.Option(min=1, help="Only the first N sessions and their labels")
    ] = None,
    write_scenario: Annotated[
        Path | None,
        typer.Option(help="Write the history and questions as an `eval scenarios` file; exit"),
    ] = None,
) -> None:
    """Distil a real history and score what was distilled against a person's labels."""
    err = Console(stderr=True)
    for p, what in ((labels, "LABELS"), (corpus, "--corpus")):
        if not p.is_file():
            err.print(f"error: {what}: {p} is not a file", markup=False)
            raise typer.Exit(1)
    if write_scenario is not None:
        try:
            lab, hist, _ = load_slice(labels, corpus, sessions)
        except LabelsError as e:
            err.print(f"error: {e}", markup=False)
            raise typer.Exit(1) from None
        limit = eval_settings().ingest.max_turn_chars
        spec = replay_scenario(lab, hist, limit)
        write_scenario.write_text(json.dumps(spec, ensure_ascii=False) + "\n", encoding="utf-8")
        Console().print(f"wrote {write_scenario}", highlight=False)
        return
    try:
        outcome = asyncio.run(evaluate_extraction(labels, corpus, sessions=sessions))
    except LabelsError as e:
        err.print(f"error: {e}", markup=False)
        raise typer.Exit(1) from None
    print_outcome(outcome, Console())
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        jp, mp = out / f"{stem}.json", out / f"{stem}.md"
        jp.write_text(json.dumps(outcome.to_json(), indent=2, sort_keys=True) + "\n", "utf-8")
        mp.write_text(markdown(outcome), encoding="utf-8")
        Console().print(f"wrote {jp} and {mp}", highlight=False)
