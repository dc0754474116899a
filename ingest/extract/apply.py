"""Apply extraction results to the graph: topics, corrections (AUDN), lessons, facts, snapshots.

Extractors propose; this module decides. Every decision is deterministic given the graph's state,
and re-applying the same session's result is a no-op (sessions already counted are not counted
again, ids are deterministic, and existing facts are left alone).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ai.embed import Embedder, cosine
from ai.injection import addresses_model
from ai.standing import first_status
from core.ids import content_hash, make_id, normalize_key
from core.text import content_words, stem
from core.timeutil import from_ms, now_ms, to_ms
from graph.db import GraphDB
from graph.models import (
    CANDIDATE,
    Correction,
    Entities,
    Fact,
    Lesson,
    LessonVersion,
    ProjectSnapshot,
    Topic,
)
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.lessons import LessonRepository
from graph.repositories.sessions import SessionRepository
from graph.repositories.snapshots import SnapshotRepository
from graph.repositories.topics import TopicRepository
from ingest.extract.config import ExtractSettings
from ingest.extract.facts import assert_facts, fact_id
from ingest.extract.models import (
    CorrectionCandidate,
    ExtractionReport,
    ExtractionResult,
    FactCandidate,
    LessonCandidate,
    TopicCandidate,
)
from ingest.extract.text import tech_category
from knowledge.config import CorrectionRules
from knowledge.habits import ends_habit, ends_having
from knowledge.scoring import STATUS_ORDER, correction_status, lesson_quality
from knowledge.stance import USE, agrees, stance, target_kind
from knowledge.stance import reverses as reverses_stance
from knowledge.topics import TopicActivity, TopicRules, topic_standings
from knowledge.vocabulary import vocabulary

__all__ = [
    "KnowledgeWriter",
    "correction_action",
    "reverses",
    "vector_texts",
]

_STEP_METHOD = {
    "topics": "_apply_topics",
    "corrections": "_apply_corrections",
    "lessons": "_apply_lessons",
    "facts": "_apply_facts",
    "fact_vectors": "_embed_facts",
    "enrichment": "_apply_enrichment",
}
"""Each step's `KnowledgeWriter` method, in the order `apply` runs them.

`fact_vectors` embeds the statements of the facts the `facts` step stored, so `context` finds
facts by meaning as well as by words."""
_STEP_ORDER = tuple(_STEP_METHOD)

log = logging.getLogger(__name__)


def _union(*parts: Iterable[str], cap: int | None = None) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(x for p in parts for x in p if x))
    return out[:cap] if cap is not None else out


def _union_links(
    *parts: Sequence[tuple[str, str, float]],
) -> list[tuple[str, str, float]]:
    """Links by `(from, to)`, the first weight kept."""
    out: dict[tuple[str, str], float] = {}
    for part in parts:
        for a, b, w in part:
            out.setdefault((a, b), w)
    return [(a, b, w) for (a, b), w in out.items()]


def _min_dt(a: datetime | None, b: datetime) -> datetime:
    return b if a is None or b < a else a


def _max_dt(a: datetime | None, b: datetime) -> datetime:
    return b if a is None or b > a else a


def correction_action(
    cand: CorrectionCandidate,
    best: Correction | None,
    similarity: float,
    session_id: str,
    threshold: float,
) -> str:
    """Offline AUDN rule for one candidate against its most similar stored correction.

    - INVALIDATE: the candidate reverses the stored one (its `original` is the stored `corrected`
      behaviour and vice versa, or it forbids what the stored one prescribes);
    - NOOP: the stored one already counts this session (a re-run);
    - UPDATE: similar enough (cosine > threshold): reinforce it;
    - ADD: otherwise.
    """
    if cand.action is not None:
        return cand.action
    if best is None:
        return "ADD"
    if reverses(cand, best):
        return "INVALIDATE"
    if similarity <= threshold:
        return "ADD"
    if session_id in best.sessions:
        return "NOOP"
    return "UPDATE"


def reverses(cand: CorrectionCandidate, old: Correction) -> bool:
    """Whether a candidate correction says the opposite of a stored one.

    Three shapes: swapped "use X instead of Y" / "use Y instead of X"; "don't X" after "(always) X";
    and "(always) X" after "don't X" (stored corrected behaviour "not X").
    """
    c_new, o_new = normalize_key(cand.corrected_behaviour), normalize_key(cand.original_behaviour)
    c_old, o_old = normalize_key(old.corrected_behaviour), normalize_key(old.original_behaviour)
    if c_new and o_new and c_old and o_old and c_new == o_old and o_new == c_old:
        return True
    if cand.negates:
        neg = normalize_key(cand.negates)
        if neg and (neg == c_old or normalize_key(old.rule_text).rstrip(".") == f"always {neg}"):
            return True
    if c_old.startswith("not ") and c_new and not c_new.startswith("not "):
        return c_old.removeprefix("not ") == c_new
    return False


def _replacing(new: Correction, old: Sequence[Correction]) -> Correction:
    """A correction that replaces others takes over their standing, at least `preference`.

    The user overrode an instruction the agent was following: the new one is what holds now.
    """
    statuses = [new.status, "preference", *(c.status for c in old)]
    return new.model_copy(update={"status": max(statuses, key=lambda x: STATUS_ORDER[x])})


def _title_stems(title: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(title))


def _topic_text(c: TopicCandidate) -> str:
    return f"{c.title}: {', '.join(c.keywords[:8])}"


def _correction_text(c: CorrectionCandidate) -> str:
    return c.rule_text


def _lesson_text(c: LessonCandidate) -> str:
    return f"{c.title}\n{c.applicable_when}"


def _fact_statement(c: FactCandidate) -> str:
    return c.statement or f"{c.subject} {c.predicate} {c.object}"


def _category(target: str) -> str | None:
    """The kind of a stance target.

    Its notation's ("dd/mm/yyyy" -> "date format"), else its lexicon category ("tab" ->
    "indentation").
    """
    return target_kind(target) or tech_category(target) or tech_category(target + "s")


_SCOPE = re.compile(r"\b(?:for|in|on|with)\s+(?P<s>[^.,;!?]+)", re.I)


def _scope(rule: str, category: str) -> frozenset[str]:
    """What a rule is limited to ("for e2e tests"), its category itself being no limit.

    Stems, so "for dates" is no limit on a date format.
    """
    m = _SCOPE.search(rule)
    words = {stem(w) for w in content_words(m.group("s"))} if m else set()
    return frozenset(words - {stem(w) for w in category.split()})


def takes_the_place_of(new: str, old: str) -> bool:
    """Whether instruction `new` says to use another thing of the kind `old` says to use.

    "Use npm from now on" after "Use yarn": one package manager at a time, so the new rule
    replaces the old (and "use pytest for unit tests" leaves "use playwright for e2e tests").
    """
    a, b = stance(new).polarity(), stance(old).polarity()
    for t, p in a.items():
        cat = _category(t) if p == USE else None
        if cat is None:
            continue
        for u, q in b.items():
            if u != t and q == USE and t not in b and _category(u) == cat:
                return _scope(new, cat) == _scope(old, cat)
    return False


def _ends(c: FactCandidate, f: Fact) -> bool:
    """Whether new fact `c` says current fact `f` no longer holds (see `_ended_by`)."""
    if c.ends and f.subject == normalize_key(c.subject):
        return ends_habit(f.statement, c.ends)
    if c.parted and f.subject == normalize_key(c.subject):
        return ends_having(f.statement, c.parted)
    if c.replaces and f.kind == "decision":
        old = normalize_key(c.replaces)
        return normalize_key(f.object) == old or normalize_key(f.object).split()[:1] == [old]
    return False


def _fact_id(project: str, c: FactCandidate) -> str:
    return fact_id(project, c.subject, c.predicate, c.object, to_ms(c.valid_from))


def vector_texts(r: ExtractionResult) -> list[str]:
    """Every text applying `r` embeds (topics, corrections, lessons, fact statements).

    A caller applying many results embeds them all in one pass first.
    """
    return [
        *(_topic_text(c) for c in r.topics if c.turn_ids),
        *(_correction_text(c) for c in r.corrections),
        *(_lesson_text(c) for c in r.lessons),
        *(_fact_statement(c) for c in r.facts),
    ]


@dataclass
class _RunState:
    projects: set[str] = field(default_factory=set)


@dataclass
class _TopicBatch:
    """The topics one session's result touches, as they are matched, created or merged."""

    by_id: dict[str, Topic] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)
    mentions: list[tuple[str, str]] = field(default_factory=list)
    """(turn id, topic id) pairs."""
    session_topics: list[str] = field(default_factory=list)

    def mention(self, topic_id: str, cand: TopicCandidate) -> None:
        self.session_topics.append(topic_id)
        self.mentions.extend((tid, topic_id) for tid in cand.turn_ids)


class KnowledgeWriter:
    """Applies `ExtractionResult`s to the graph.

    Args:
        db: the graph.
        embedder: embeds topic, correction and lesson texts.
        settings: extraction thresholds.
        topic_rules: topic weight and phase (shared with the REM cycle).
        correction_rules: correction graduation and decay (shared with the REM cycle).
    """

    def __init__(
        self,
        db: GraphDB,
        embedder: Embedder,
        settings: ExtractSettings,
        *,
        topic_rules: TopicRules | None = None,
        correction_rules: CorrectionRules | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.settings = settings
        self.topic_rules = topic_rules or TopicRules()
        self.correction_rules = correction_rules or CorrectionRules()
        self.topics = TopicRepository(db)
        self.corrections = CorrectionRepository(db)
        self.lessons = LessonRepository(db)
        self.facts = FactRepository(db)
        self.snapshots = SnapshotRepository(db)
        self.sessions = SessionRepository(db)
        self._state = _RunState()
        self._now = now_ms()
        self.timings: dict[str, float] = dict.fromkeys((*_STEP_ORDER, "finish"), 0.0)

    @property
    def projects_touched(self) -> set[str]:
        """Projects that received knowledge since the last `finish()`."""
        return set(self._state.projects)

    async def apply(self, result: ExtractionResult, *, now: int | None = None) -> ExtractionReport:
        """Apply one session's result; returns what changed."""
        now = now if now is not None else now_ms()
        report = ExtractionReport(sessions=1)
        self._state.projects.add(result.project)
        self._now = now
        for name in _STEP_ORDER:
            t0 = time.perf_counter()
            await getattr(self, _STEP_METHOD[name])(result, report, now)
            self.timings[name] += time.perf_counter() - t0
        if result.llm_usage:
            report.llm_usage = dict(result.llm_usage)
        return report

    async def finish(self, *, now: int | None = None) -> ExtractionReport:
        """End of an ingest run: recompute topic weights and snapshot each touched project."""
        now = now if now is not None else now_ms()
        report = ExtractionReport()
        t0 = time.perf_counter()
        await self.recompute_topic_weights(now=now)
        for project in sorted(self._state.projects):
            if await self.snapshot(project, now=now) is not None:
                report.snapshots += 1
        self._state = _RunState()
        self.timings["finish"] += time.perf_counter() - t0
        return report

    # --- topics ----------------------------------------------------------------------------------

    async def _apply_topics(self, r: ExtractionResult, report: ExtractionReport, now: int) -> None:
        cands = [c for c in r.topics if c.turn_ids]
        if not cands:
            return
        texts = [_topic_text(c) for c in cands]
        vecs = await self.embedder.embed(texts)
        batch = _TopicBatch()
        # Same-title topics are the same topic even if their keywords drifted.
        own_ids = [make_id("topic", r.project, normalize_key(c.title)) for c in cands]
        stored = {t.id: t for t in await self.topics.get_many(own_ids) if t is not None}
        # One batched similarity search for every candidate (topics created by earlier
        # candidates of this session are matched in memory, in `_match_topic`).
        nearest = await self.topics.search_similar_many(
            [v.tolist() for v in vecs], r.project, k=3, now=now
        )
        for cand, vec, own_id, hits in zip(cands, vecs, own_ids, nearest, strict=True):
            target = self._match_topic(
                cand.title, batch.by_id.get(own_id) or stored.get(own_id), hits, vec, batch
            )
            if target is None:
                target = self._new_topic(own_id, cand, r, vec)
                batch.created.add(target.id)
            elif r.session_id in target.sessions and target.id not in batch.by_id:
                batch.mention(target.id, cand)  # re-run of a counted session: no change
                continue
            else:
                target = self._merge_topic(target, cand, r)
            batch.by_id[target.id] = target
            batch.mention(target.id, cand)
        await self._store_topics(batch, r.session_id)
        report.topics_created += len(batch.created)
        report.topics_updated += len(set(batch.by_id) - batch.created)
        report.mentions += len(set(batch.mentions))

    def _match_topic(
        self,
        title: str,
        same_title: Topic | None,
        hits: Sequence[tuple[Topic, float]],
        vec: np.ndarray,
        batch: _TopicBatch,
    ) -> Topic | None:
        """The topic new material joins, or None for a new topic.

        The same-title topic; else the first stored hit, or failing that a topic of this batch
        sharing a title word, at cosine ≥ `topic_match_threshold`. One session's candidates are
        distinct phrases already, and their texts share the session's keywords, so only a variant
        of the same title ("vector indexes") joins a topic of this batch.
        """
        if same_title is not None:
            return same_title
        threshold = self.settings.topic_match_threshold
        for t, sim in hits:
            if sim >= threshold:
                return batch.by_id.get(t.id, t)
        # Material matched nothing stored: maybe a topic created moments ago in this batch.
        words = _title_stems(title)
        for t in batch.by_id.values():
            if (
                t.embedding is not None
                and not words.isdisjoint(_title_stems(t.title))
                and cosine(t.embedding, vec) >= threshold
            ):
                return t
        return None

    async def _store_topics(self, batch: _TopicBatch, session_id: str) -> None:
        """Write the batch's topics, their mentions, and relate the session's topics pairwise."""
        if batch.by_id:
            await self.topics.upsert_many(list(batch.by_id.values()))
        await self.topics.link_mentions(sorted(set(batch.mentions)))
        ids = sorted(set(batch.session_topics))
        pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
        await self.topics.relate(pairs, session_id)

    @staticmethod
    def _turn_times(cand: TopicCandidate, now: int) -> tuple[datetime, datetime]:
        first = cand.first_seen or cand.last_seen or from_ms(now)
        return first, cand.last_seen or first

    def _new_topic(
        self, tid: str, cand: TopicCandidate, r: ExtractionResult, vec: np.ndarray
    ) -> Topic:
        first, last = self._turn_times(cand, self._now)
        return Topic(
            id=tid,
            title=cand.title,
            project=r.project,
            projects=(r.project,),
            sessions=(r.session_id,),
            keywords=cand.keywords[: self.settings.max_keywords_per_topic],
            entities=Entities(
                people=cand.entities.people,
                projects=_union(cand.entities.projects, [r.project]),
                technologies=cand.entities.technologies,
            ),
            message_ids=cand.turn_ids[: self.settings.max_message_ids_per_topic],
            first_seen=first,
            last_seen=last,
            message_count=len(set(cand.turn_ids)),
            valid_from=first,
            embedding=tuple(float(x) for x in vec),
        )

    def _merge_topic(self, t: Topic, cand: TopicCandidate, r: ExtractionResult) -> Topic:
        first, last = self._turn_times(cand, self._now)
        new_ids = [x for x in cand.turn_ids if x not in set(t.message_ids)]
        kw_cap = self.settings.max_keywords_per_topic
        return t.model_copy(
            update={
                "project": r.project,
                "projects": (r.project,),
                "sessions": _union(t.sessions, [r.session_id]),
                "keywords": _union(t.keywords, cand.keywords, cap=kw_cap),
                "entities": Entities(
                    people=_union(t.entities.people, cand.entities.people, cap=50),
                    projects=_union(t.entities.projects, cand.entities.projects, [r.project]),
                    technologies=_union(
                        t.entities.technologies, cand.entities.technologies, cap=50
                    ),
                ),
                "message_ids": _union(
                    t.message_ids, cand.turn_ids, cap=self.settings.max_message_ids_per_topic
                ),
                "first_seen": _min_dt(t.first_seen, first),
                "last_seen": _max_dt(t.last_seen, last),
                "message_count": t.message_count + len(new_ids),
            }
        )

    async def recompute_topic_weights(self, *, now: int | None = None) -> int:
        """Recompute every topic's weight and phase per project (`knowledge.topics`); how many."""
        now = now if now is not None else now_ms()
        by_project: dict[str, list[TopicActivity]] = {}
        for t in await self.topics.list_all(now=now):
            if not t.project:
                continue  # a legacy global topic: no project's weights are measured with it
            by_project.setdefault(t.project, []).append(
                TopicActivity(
                    id=t.id,
                    message_count=t.message_count,
                    sessions=len(t.sessions),
                    projects=len(t.projects),
                    last_seen_ms=to_ms(t.last_seen) if t.last_seen else None,
                )
            )
        # Each project's topics are measured against that project's own latest activity.
        standings = [
            x
            for activity in by_project.values()
            for x in topic_standings(activity, now, self.topic_rules)
        ]
        if standings:
            await self.topics.set_weights([(x.id, x.weight, x.phase) for x in standings])
        return len(standings)

    # --- corrections (AUDN) ----------------------------------------------------------------------

    async def _apply_corrections(
        self, r: ExtractionResult, report: ExtractionReport, now: int
    ) -> None:
        cands = list(r.corrections)
        if not cands:
            return
        vecs = await self.embedder.embed([_correction_text(c) for c in cands])
        for cand, vec in self._sightings(cands, vecs):
            await self._apply_correction(cand, vec, r, report, now)

    def _sightings(
        self, cands: Sequence[CorrectionCandidate], vecs: np.ndarray
    ) -> list[tuple[CorrectionCandidate, np.ndarray]]:
        """Within one session, near-identical candidates are one sighting (turn ids merged)."""
        groups: list[tuple[CorrectionCandidate, np.ndarray]] = []
        for cand, vec in zip(cands, vecs, strict=True):
            for i, (g, gv) in enumerate(groups):
                if float(np.dot(gv, vec)) > self.settings.correction_similarity:
                    merged = g.model_copy(update={"turn_ids": _union(g.turn_ids, cand.turn_ids)})
                    groups[i] = (merged, gv)
                    break
            else:
                groups.append((cand, vec))
        return groups

    async def _apply_correction(
        self,
        cand: CorrectionCandidate,
        vec: np.ndarray,
        r: ExtractionResult,
        report: ExtractionReport,
        now: int,
    ) -> None:
        """AUDN for one sighting against the stored corrections it resembles.

        Text that addresses an AI model ("ignore previous instructions", `ai.injection`) is
        no correction of the user's, however often it is repeated: it stays in its turns only.
        """
        if addresses_model(cand.rule_text) or addresses_model(cand.corrected_behaviour):
            report.corrections_noop += 1
            return
        found = await self.corrections.search_similar(r.project, vec.tolist(), k=10, now=now)
        hits = [(c, sim) for c, sim in found if sim > self.settings.correction_related_similarity]
        live = await self.corrections.list_by_project(r.project, now=now)
        best, action, lifted = self._decide(cand, hits, live, r.session_id)
        if action == "NOOP" or (cand.withdraws and action != "INVALIDATE"):
            report.corrections_noop += 1  # a lift with nothing to lift is no instruction
            return
        if action == "UPDATE" and best is not None:
            await self._reinforce_stored(best, cand, hits, r.session_id)
            report.corrections_reinforced += 1
            return
        new = self._new_correction(cand, r, vec)
        support: list[tuple[str, str, float]] = []
        if new.status == CANDIDATE and action == "INVALIDATE":
            # it reverses or lifts a stored correction: that says it holds ("go ahead and
            # run them again" ends the ban, however it is worded)
            new = new.model_copy(update={"status": "correction"})
        elif new.status == CANDIDATE:  # said once in words that do not say it holds
            new, support = self._supported(new, found)
        if action == "INVALIDATE":
            new = _replacing(new, lifted or ([best] if best is not None else []))
        if not (cand.withdraws and not stance(cand.rule_text).gives()):
            await self.corrections.upsert_many([new])
            await self.corrections.link_sources([(new.id, t) for t in cand.turn_ids])
            report.corrections_added += 1
        if action == "INVALIDATE":
            for old in lifted or ([best] if best is not None else []):
                report.corrections_invalidated += await self._supersede(new, old, cand, now)
            return
        related = [
            (new.id, c.id, round(x, 4))
            for c, x in hits
            if c.id != new.id and (best is None or c.id != best.id or action == "ADD")
        ]
        await self.corrections.link("RELATED_TO", _union_links(related, support))

    def _decide(
        self,
        cand: CorrectionCandidate,
        hits: Sequence[tuple[Correction, float]],
        live: Sequence[Correction],
        session_id: str,
    ) -> tuple[Correction | None, str, list[Correction]]:
        """The stored correction the sighting acts on, the AUDN action, and what it reverses.

        The stance (`knowledge.stance`) decides first: a sighting that flips or lifts what live
        corrections say about a target reverses all of them (the rule and its paraphrases); one
        that says the same as a live correction reinforces it, however it is worded. Without a
        readable stance, embedding similarity decides (`correction_action`).
        """
        mine = stance(cand.rule_text)
        if mine and cand.action is None:
            flipped = [c for c in live if reverses_stance(mine, stance(c.rule_text))]
            if flipped:
                return flipped[0], "INVALIDATE", flipped
            same = [c for c in live if agrees(mine, stance(c.rule_text))]
            if same:
                kept = max(same, key=lambda c: (STATUS_ORDER[c.status], c.reinforcement, c.id))
                return kept, ("NOOP" if session_id in kept.sessions else "UPDATE"), []
        if mine and cand.action is None:  # "use npm" after "use yarn": one package manager
            replaced = [c for c in live if takes_the_place_of(cand.rule_text, c.rule_text)]
            if replaced:
                return replaced[0], "INVALIDATE", replaced
        best, sim = hits[0] if hits else (None, 0.0)
        reversal = next((c for c, _ in hits if reverses(cand, c)), None)
        if reversal is not None and cand.action is None:
            return reversal, "INVALIDATE", [reversal]
        threshold = self.settings.correction_similarity
        return best, correction_action(cand, best, sim, session_id, threshold), []

    async def _reinforce_stored(
        self,
        best: Correction,
        cand: CorrectionCandidate,
        hits: Sequence[tuple[Correction, float]],
        session_id: str,
    ) -> None:
        """UPDATE: reinforce `best`, add the sighting's turns; other near-copies are duplicates."""
        updated = self._reinforce(best, cand, session_id)
        await self.corrections.upsert_many([updated])
        await self.corrections.link_sources([(updated.id, t) for t in cand.turn_ids])
        dups = [
            (c.id, best.id, round(x, 4))
            for c, x in hits[1:]
            if x > self.settings.correction_similarity and not reverses(cand, c)
        ]
        await self.corrections.link("DUPLICATE_OF", dups)

    async def _supersede(
        self, new: Correction, old: Correction, cand: CorrectionCandidate, now: int
    ) -> int:
        """INVALIDATE: close `old` as of the sighting; `new` supersedes and contradicts it."""
        closed = await self.corrections.close_many([(old.id, to_ms(cand.seen_at))], now=now)
        await self.corrections.link("SUPERSEDES", [(new.id, old.id, 1.0)])
        await self.corrections.link("CONTRADICTS", [(new.id, old.id, 1.0)])
        return len(closed)

    def _reinforce(self, c: Correction, cand: CorrectionCandidate, session_id: str) -> Correction:
        rules = self.correction_rules
        sessions = _union(c.sessions, [session_id])
        reinforcement = c.reinforcement + 1.0
        status = correction_status(
            c.status,
            sessions=len(sessions),
            sightings=int(reinforcement),
            confirmed=c.confirmed,
            rule_after=rules.rule_after_sessions,
            preference_after=rules.preference_after_sessions,
            pattern_after=rules.pattern_after_sessions,
        )
        if cand.explicit_rule and STATUS_ORDER[status] < STATUS_ORDER["preference"]:
            status = "preference"
        return c.model_copy(
            update={
                "sessions": sessions,
                "reinforcement": reinforcement,
                "confidence": min(0.99, max(c.confidence, cand.confidence) + 0.05),
                "first_seen": _min_dt(c.first_seen, cand.seen_at),
                "last_seen": _max_dt(c.last_seen, cand.seen_at),
                "status": status,
                "source_turn_ids": _union(c.source_turn_ids, cand.turn_ids),
            }
        )

    def _supported(
        self, new: Correction, found: Sequence[tuple[Correction, float]]
    ) -> tuple[Correction, list[tuple[str, str, float]]]:
        """A candidate that a stored correction of another session says in other words.

        Said again elsewhere, it holds: it is stored as a `pattern` (served), linked
        `RELATED_TO` the wordings that support it. Its sessions stay its own, so it graduates
        further only when these words are seen again (`consolidate.jobs.graduation`).
        """
        floor = self.settings.correction_support_similarity
        support = [
            (new.id, c.id, round(sim, 4))
            for c, sim in found
            if sim >= floor and c.id != new.id and not set(c.sessions) <= set(new.sessions)
        ]
        if not support:
            return new, []
        return new.model_copy(update={"status": "pattern"}), support

    def _new_correction(
        self, cand: CorrectionCandidate, r: ExtractionResult, vec: np.ndarray
    ) -> Correction:
        return Correction(
            id=make_id("correction", r.project, normalize_key(cand.rule_text), r.session_id),
            project=r.project,
            type=cand.type,
            original_behaviour=cand.original_behaviour,
            corrected_behaviour=cand.corrected_behaviour,
            rule_text=cand.rule_text,
            confidence=cand.confidence,
            reinforcement=1.0,
            half_life_days=self.correction_rules.half_life_days,
            first_seen=cand.seen_at,
            last_seen=cand.seen_at,
            status=first_status(
                cand.rule_text,
                explicit=cand.explicit_rule,
                names_value=bool(vocabulary().valued_in(cand.rule_text)),
            ),
            sessions=(r.session_id,),
            source_turn_ids=cand.turn_ids,
            valid_from=cand.seen_at,
            embedding=tuple(float(x) for x in vec),
        )

    # --- lessons ---------------------------------------------------------------------------------

    async def _apply_lessons(self, r: ExtractionResult, report: ExtractionReport, now: int) -> None:
        cands = list(r.lessons)
        if not cands:
            return
        # Lessons are matched by the problem they solve (title + when it applies), not by the
        # fix, so a second, different fix for the same error refines the same lesson.
        vecs = await self.embedder.embed([_lesson_text(c) for c in cands])
        for cand, vec in zip(cands, vecs, strict=True):
            hits = await self.lessons.search_similar(r.project, vec.tolist(), k=3, now=now)
            best = next((x for x, sim in hits if sim >= self.settings.lesson_similarity), None)
            if best is None:
                lesson = self._new_lesson(cand, r, vec)
                await self.lessons.upsert_many([lesson])
                await self.lessons.link_sources([(lesson.id, t) for t in lesson.source_turn_ids])
                report.lessons_created += 1
                continue
            if set(cand.turn_ids) <= set(best.source_turn_ids):
                continue  # already learned from these very turns (re-run)
            version = LessonVersion(
                id=make_id("lesson_version", best.id, best.version),
                project=best.project,
                lesson_id=best.id,
                version=best.version,
                title=best.title,
                content=best.content,
                summary=best.summary,
                reason=f"refined by session {r.session_id}",
                session_id=r.session_id,
                created_at=from_ms(now),  # when this text stopped being current
                valid_from=best.valid_from,
                recorded_at=from_ms(now),
            )
            await self.lessons.add_versions([version])
            refined = self._refine(best, cand)
            await self.lessons.upsert_many([refined])
            await self.lessons.link_sources([(best.id, t) for t in cand.turn_ids])
            report.lessons_refined += 1

    def _new_lesson(self, cand: LessonCandidate, r: ExtractionResult, vec: np.ndarray) -> Lesson:
        return Lesson(
            id=make_id("lesson", r.project, normalize_key(cand.title), cand.turn_ids[0]),
            project=r.project,
            category=cand.category,
            title=cand.title,
            content=cand.content,
            summary=cand.summary,
            applicable_when=cand.applicable_when,
            keywords=cand.keywords,
            weight=1.0,
            quality=lesson_quality(
                has_examples=cand.has_examples,
                has_steps=cand.has_steps,
                sources=1,
                content_chars=len(cand.content),
            ),
            version=1,
            source_turn_ids=cand.turn_ids,
            valid_from=cand.seen_at,
            embedding=tuple(float(x) for x in vec),
        )

    def _refine(self, old: Lesson, cand: LessonCandidate) -> Lesson:
        fix_new = next(
            (ln for ln in cand.content.splitlines() if ln.startswith("Fix:")), cand.summary
        )
        content = old.content
        if fix_new and normalize_key(fix_new) not in normalize_key(content):
            content = f"{content}\nAlso worked: {fix_new.removeprefix('Fix:').strip()}"
        sources = old.version + 1
        return old.model_copy(
            update={
                "content": content,
                "keywords": _union(old.keywords, cand.keywords, cap=16),
                "version": old.version + 1,
                "weight": round(1.0 + 0.5 * (sources - 1), 3),
                "quality": lesson_quality(
                    has_examples=True,
                    has_steps=cand.has_steps or "Fix:" in content,
                    sources=sources,
                    content_chars=len(content),
                ),
                "source_turn_ids": _union(old.source_turn_ids, cand.turn_ids),
            }
        )

    # --- facts -----------------------------------------------------------------------------------

    async def _apply_facts(self, r: ExtractionResult, report: ExtractionReport, now: int) -> None:
        if not r.facts:
            return
        facts: dict[str, Fact] = {}
        for c in r.facts:
            fid = _fact_id(r.project, c)
            prev = facts.get(fid)
            facts[fid] = Fact(
                id=fid,
                project=r.project,
                subject=normalize_key(c.subject),
                predicate=normalize_key(c.predicate),
                object=c.object,
                kind=c.kind,
                statement=_fact_statement(c),
                confidence=c.confidence,
                source_turn_ids=_union(prev.source_turn_ids if prev else (), c.turn_ids),
                valid_from=c.valid_from,
                recorded_at=from_ms(now),
            )
        ended = await self._ended_by(r, now)
        out = await assert_facts(
            self.facts,
            r.project,
            list(facts.values()),
            now_ms=now,
            contradicts=ended,
            corrects=frozenset(_fact_id(r.project, c) for c in r.facts if c.corrects),
        )
        report.facts_added += len(out.added)
        report.facts_reinforced += len(out.reinforced)
        report.facts_invalidated += len(out.invalidated)

    async def _ended_by(self, r: ExtractionResult, now: int) -> list[tuple[str, str]]:
        """`(new, old)` pairs of current facts a new one says no longer hold, whatever their key.

        A habit given up (`FactCandidate.ends`) contradicts its subject's statements of doing it
        (`knowledge.habits.ends_habit`), a thing parted with (`parted`: "I sold my Honda Civic")
        its statements of having it (`ends_having`); a decision that replaces something
        (`replaces`: "we replaced Redis with Memcached") contradicts the project's current
        decisions to use it.
        The project's current facts are read only when a fact of `r` says one of these.
        """
        enders = [c for c in r.facts if c.ends or c.parted or c.replaces]
        if not enders:
            return []
        live = await self.facts.list_active(r.project, as_of=now, known_at=now)
        return [
            (_fact_id(r.project, c), f.id)
            for c in enders
            for f in live
            if f.valid_from <= c.valid_from and _ends(c, f)
        ]

    async def _embed_facts(self, r: ExtractionResult, report: ExtractionReport, now: int) -> None:
        """Store the statement embedding of each fact of `r`.

        A fact folded into an older one that says the same keeps that one's vector (its own id
        was never stored, so nothing is set for it).
        """
        if not r.facts:
            return
        by_id = {_fact_id(r.project, c): _fact_statement(c) for c in r.facts}
        vecs = await self.embedder.embed(list(by_id.values()))
        await self.facts.set_embeddings(zip(by_id, vecs, strict=True))

    # --- session enrichment ----------------------------------------------------------------------

    async def _apply_enrichment(
        self, r: ExtractionResult, report: ExtractionReport, now: int
    ) -> None:
        """Store summary, intent, outcome, quality and complexity on the session node (if any)."""
        e = r.enrichment
        update: dict[str, object] = {
            k: v
            for k, v in {
                "summary": e.summary,
                "intent": e.intent,
                "outcome": e.outcome,
                "quality": e.quality,
                "complexity": e.complexity,
            }.items()
            if v is not None
        }
        if not update and not e.meta:
            return
        stored = await self.sessions.find(r.session_id)
        if stored is None:
            return
        if e.meta:
            update["meta"] = {**stored.meta, **e.meta}
        if all(getattr(stored, k) == v for k, v in update.items()):
            return
        await self.sessions.upsert_many([stored.model_copy(update=update)])

    # --- snapshots -------------------------------------------------------------------------------

    async def snapshot(self, project: str, *, now: int | None = None) -> ProjectSnapshot | None:
        """Record the project's active facts, todos and decisions if they changed since last time.

        Returns the new snapshot, or None when nothing changed.
        """
        now = now if now is not None else now_ms()
        active = await self.facts.list_active(project, as_of=now, known_at=now)
        ids = sorted(f.id for f in active)
        digest = content_hash("\n".join(ids))
        prev = await self.snapshots.latest(project)
        if prev is not None and prev.hash == digest:
            return None
        before = set(prev.active_fact_ids) if prev else set()
        taken = from_ms(now)
        snap = ProjectSnapshot(
            # from content and the chain, not the clock: a re-run after a crash makes the same one
            id=make_id("snapshot", project, digest, prev.id if prev else ""),
            project=project,
            taken_at=taken,
            hash=digest,
            active_fact_ids=tuple(ids),
            todo_ids=tuple(
                f.id
                for f in active
                if f.kind == "todo" and normalize_key(f.object) not in {"completed", "done"}
            ),
            decision_ids=tuple(f.id for f in active if f.kind == "decision"),
            delta_added=tuple(sorted(set(ids) - before)),
            delta_removed=tuple(sorted(before - set(ids))),
            valid_from=taken,
            recorded_at=taken,
        )
        await self.snapshots.create(snap)
        return snap
