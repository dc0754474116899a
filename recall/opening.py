"""What opens a `context` answer: the user's rules and the project's decisions it concerns.

A rule in force is the first thing an agent must follow, so a relevant one is put above the
evidence; an irrelevant one put there does harm twice (it is followed where it does not apply,
and it pushes the turns that answer out of the top). Within one project every text is about
the same things, so a rule's cosine to the query says little on its own: on the labelled
history we tune on (`bench/labels/minsky.json`), the rules that answer a question and those
that do not both run at cosines 0.1-0.77. What separates them is how far a rule stands out
from the project's other rules for this query (`standing`): the rule that answers is the
nearest by a wide margin, an unrelated one is one of many at about the same distance.

So a rule or preference opens an answer when the query asks for the rules as such, when it is
about a subject the query asks to do something about (a slot of the declared vocabulary whose
tasks the query is close to in meaning: "use yarn, not npm" for "how do I add a dependency?";
naming a value both mention is not enough), or when it stands out
(`RankingSection.rule_standout`). A decision in force opens the answers that use its words.
Everything else distilled competes with the turns on its score.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Mapping

from graph.kinds import FACT
from knowledge.environments import statement_environment
from recall.config import RankingSection
from recall.lexical import tokenize
from recall.ranking import FULLTEXT, VECTOR, Candidate, Ranked, Scored
from recall.understand import QueryIntent

__all__ = ["Opening", "names_decision", "open_with", "rule_cosines", "standing"]


def standing(cosines: Mapping[str, float], w: RankingSection) -> dict[str, float]:
    """How far each rule's cosine to the query stands above the other rules', in deviations.

    Each rule is measured against the mean and spread of the project's other rules in force
    (its own cosine left out, so one close rule does not widen the spread it is measured by),
    both shrunk toward a prior (`rule_prior_mean`, `rule_prior_sd`, worth `rule_prior_weight`
    rules): with few rules in force the prior decides.
    """
    n = len(cosines)
    k = w.rule_prior_weight
    total = sum(cosines.values())
    squares = sum(c * c for c in cosines.values())
    out: dict[str, float] = {}
    for i, c in cosines.items():
        m = n - 1 + k
        mean = (total - c + k * w.rule_prior_mean) / m
        # the others' squared deviations from `mean`, from their sum and sum of squares
        dev = (squares - c * c) - 2 * mean * (total - c) + (n - 1) * mean * mean
        sd = math.sqrt((dev + k * w.rule_prior_sd**2) / m)
        out[i] = (c - mean) / sd
    return out


def names_decision(c: Candidate, query_terms: frozenset[str]) -> bool:
    """A decision in force whose own words the query uses: its subject, object or category.

    "job queue uses RabbitMQ (message broker)" answers "which broker ..." and "is RabbitMQ set
    up with quorum queues?": what the project chose is what the agent must build on. The
    project's name and the predicate ("uses") name every decision, so they do not count.
    """
    if c.kind is not FACT or c.status != "decision":
        return False
    own = set(tokenize(c.text)).difference(tokenize(f"{c.project or ''} {c.predicate}"))
    return not own.isdisjoint(query_terms)


def _elsewhere(c: Candidate, query_terms: frozenset[str]) -> float:
    """1.0 for a decision scoped to an environment the query does not name, else 0.

    "Which database does the project use?" is answered by "main database uses PostgreSQL 16"
    first, "main database (local development) uses SQLite" after it; a query that says
    "locally" or "in development" gets the local one first.
    """
    env = statement_environment(c.text, c.predicate) if c.kind is FACT else None
    return 0.0 if env is None or not query_terms.isdisjoint(tokenize(env)) else 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class Opening:
    """What `open_with` weighs for one `context` call."""

    rules: Collection[str]
    """The corrections and standing preferences in force (ids)."""
    standing: Mapping[str, float]
    intent: QueryIntent
    about_subject: Callable[[Candidate], bool]
    """Whether an item names a value of a vocabulary slot the query asks to do something about
    (`recall.slots.SlotIndex.by_task`; a value both merely name does not count)."""


def _opens(c: Candidate, o: Opening, w: RankingSection, query_terms: frozenset[str]) -> bool:
    """A rule asked for as such, about the query's subject, or standing out from the others.

    Stage and a source turn close to the query do not open an answer: on the history we tune
    on, fragments and one-off requests graduated by repetition ("Write some tests to c instead
    of all the `tasks` subcommands.") came from turns close to 4 of 20 questions they do not
    answer.
    """
    if c.id not in o.rules:
        return names_decision(c, query_terms)
    return (
        o.intent.asks_rules
        or o.about_subject(c)
        or o.standing.get(c.id, -math.inf) >= w.rule_standout
    )


def open_with(
    scored: Scored, o: Opening, w: RankingSection, limit: int, token_budget: int | None
) -> list[Ranked]:
    """The items this answer opens with (`RankingSection.rules_first` at most).

    Only what passed the relevance gate is in `scored` (`recall.ranking.concerns_query`; a
    query asking for the user's rules as such lets every rule in force through). The most
    relevant first; each carries `rule_first` in its `why`.
    """
    query_terms = frozenset(tokenize(o.intent.text))
    picked: list[tuple[float, Ranked]] = []
    for r in scored.knowledge():  # a turn is neither a rule nor a decision
        c = r.candidate
        if not _opens(c, o, w, query_terms):
            continue
        lexical = c.scores.get(FULLTEXT, 0.0) > 0 or c.id not in o.rules
        score = c.scores.get(VECTOR, 0.0) + (1.0 if lexical else 0.0)
        picked.append((score - _elsewhere(c, query_terms), r))
    picked.sort(key=lambda x: -x[0])
    out: list[Ranked] = []
    left = token_budget
    for _, r in picked[: min(w.rules_first, limit)]:
        if left is not None and r.candidate.tokens > left:
            continue
        out.append(dataclasses.replace(r, why={**r.why, "rule_first": 1.0}))
        left = None if left is None else left - r.candidate.tokens
    return out


def rule_cosines(scored: Scored, rules: Collection[str]) -> dict[str, float]:
    """Each rule in force's cosine to the query, where known (before the relevance gate)."""
    out: dict[str, float] = {}
    for r in scored.knowledge():
        c = r.candidate
        if c.id in rules and VECTOR in c.scores:
            out[c.id] = float(c.scores[VECTOR])
    return out
