"""Rules first: the project's instructions in force open the `context` answers they concern.

A rule or preference opens an answer when it is about the query's subject (a slot of the
declared vocabulary), stands out from the project's other rules in meaning, or the query asks
for the rules as such; never an answer it has nothing to do with. A closed one is never served
at the default as-of. `kinds` applies before `limit`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.timeutil import to_ms
from graph.kinds import ItemKind
from graph.models import Correction, Fact, Turn
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from graph.repositories.recall import RecallRepository
from graph.repositories.turns import TurnRepository
from recall.config import RankingSection
from recall.retrieval import RetrievalService
from tests.shared_embedder import shared_local_embedder

T0 = datetime(2026, 3, 1, tzinfo=UTC)
TALK = [
    "Change the RDS instance class to db.r6g.large for the reporting database.",
    "The RDS instance class change is in the plan output.",
    "Resize the RDS volume to 500 GB as well.",
    "The dashboard for the RDS metrics loads again.",
]


async def _seed(db) -> None:
    emb = shared_local_embedder()
    vecs = await emb.embed(TALK)
    await TurnRepository(db).upsert_many(
        [
            Turn(
                id=f"trn_r_{i}",
                project="infra",
                session_id="ses_r",
                ordinal=i,
                role="user",
                text=t,
                token_estimate=len(t) // 4 + 1,
                valid_from=T0 + timedelta(minutes=i),
                embedding=v,
            )
            for i, (t, v) in enumerate(zip(TALK, vecs, strict=True))
        ]
    )
    rules = {
        "cor_plan": ("Always run terraform plan before any terraform apply.", "preference", None),
        "cor_http": ("Use httpx, not requests.", "correction", None),
        "cor_old": ("Use Poetry for dependencies.", "rule", T0 + timedelta(days=1)),
    }
    rvecs = await emb.embed([t for t, _, _ in rules.values()])
    await CorrectionRepository(db).upsert_many(
        [
            Correction(
                id=cid,
                project="infra",
                rule_text=text,
                corrected_behaviour=text,
                status=status,
                confidence=0.8,
                valid_from=T0,
                valid_to=ended,
                last_seen=datetime.now(UTC),
                embedding=v,
            )
            for (cid, (text, status, ended)), v in zip(rules.items(), rvecs, strict=True)
        ]
    )


async def _ids(svc: RetrievalService, query: str, **kw) -> list[str]:
    out = await svc.context(query, ("infra",), limit=kw.pop("limit", 5), token_budget=None, **kw)
    return [r.candidate.id for r in out.items]


async def test_rules_in_force_open_every_answer_and_stale_ones_never(graph_db) -> None:
    await _seed(graph_db)
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), RankingSection())
    ship = await _ids(svc, "Ship this infrastructure change to production")
    # asks to do what the rule's subject governs (infrastructure): opens, though no word is shared
    assert ship[0] == "cor_plan"
    assert "cor_http" not in ship  # an early correction about something else stays out
    assert "cor_old" not in ship  # ended: not at the default as-of
    infra = await _ids(svc, "Change the RDS instance class to db.r6g.large")
    assert infra[0] != "cor_plan"  # naming a tool of the subject (RDS) is not asking about it
    http = await _ids(svc, "Which client should I use for requests to the partner API?")
    assert http[0] == "cor_http"
    assert "cor_plan" not in http  # in force, but this answer is not about infrastructure
    # as of a time when the Poetry rule held, it is served again
    back = await svc.context(
        "How do I add dependencies with Poetry?",
        ("infra",),
        limit=5,
        token_budget=None,
        as_of=int((T0 + timedelta(hours=12)).timestamp() * 1000),
    )
    assert "cor_old" in [r.candidate.id for r in back.items]
    first = (
        await svc.context(
            "deploy the infrastructure change", ("infra",), limit=5, token_budget=None
        )
    ).items
    assert first[0].why.get("rule_first") == 1.0


async def test_kinds_apply_before_the_limit(graph_db) -> None:
    await _seed(graph_db)
    # the gate's margin to the closest turn off: what is checked is `kinds` against `limit`
    ranking = RankingSection(knowledge_turn_margin=2)
    svc = RetrievalService(RecallRepository(graph_db), shared_local_embedder(), ranking)
    only = await _ids(
        svc, "RDS instance class and requests", limit=2, kinds=frozenset({ItemKind.CORRECTION})
    )
    assert len(only) == 2  # two corrections, not two slots eaten by turns then filtered away
    assert set(only) <= {"cor_plan", "cor_http"}
    turns = await _ids(svc, "RDS instance class", limit=3, kinds=frozenset({ItemKind.TURN}))
    assert len(turns) == 3
    assert all(i.startswith("trn_") for i in turns)


async def test_no_rules_first_when_switched_off(graph_db) -> None:
    await _seed(graph_db)
    svc = RetrievalService(
        RecallRepository(graph_db), shared_local_embedder(), RankingSection(rules_first=0)
    )
    ids = await _ids(svc, "Change the RDS instance class to db.r6g.large")
    assert ids[0] != "cor_plan"  # ranked on its merits only: the turns about RDS come first


async def test_a_correction_its_turn_shows_joins_the_answer_but_opens_only_those_asking_rules(
    graph_db,
) -> None:
    """An early correction shares no word with the query: its own turn among the best makes it
    relevant, so it is in the answer, ranked on its merits; it opens only an answer that asks
    for the user's rules as such (a turn shown is no sign the rule stands out for the query)."""
    await _seed(graph_db)
    said = "Rotate the TLS certificates on the load balancer tonight."
    text = "Ask the on-call engineer before touching production."
    emb = shared_local_embedder()
    said_vec, vec = await emb.embed([said, text])
    await TurnRepository(graph_db).upsert_many(
        [
            Turn(
                id="trn_tls",
                project="infra",
                session_id="ses_tls",
                ordinal=0,
                role="user",
                text=said,
                token_estimate=len(said) // 4 + 1,
                valid_from=T0 + timedelta(hours=1),
                embedding=said_vec,
            )
        ]
    )
    await CorrectionRepository(graph_db).upsert_many(
        [
            Correction(
                id="cor_src",
                project="infra",
                rule_text=text,
                corrected_behaviour=text,
                status="correction",
                confidence=0.6,
                valid_from=T0,
                last_seen=datetime.now(UTC),
                source_turn_ids=("trn_tls",),
                embedding=vec,
            )
        ]
    )
    svc = RetrievalService(RecallRepository(graph_db), emb, RankingSection())
    ids = await _ids(svc, "rotate the TLS certificates")
    assert "trn_tls" in ids
    assert "cor_src" in ids
    served = await svc.context(
        "rotate the TLS certificates", ("infra",), limit=5, token_budget=None
    )
    assert not any(r.why.get("rule_first") for r in served.items)
    # the same correction stays out of an answer that does not show its turn
    other = await _ids(svc, "Which client should I use for requests?", limit=3)
    assert "cor_src" not in other  # its turn is no match for these words
    asked = await _ids(svc, "What are my preferences?", limit=5)
    assert {"cor_src", "cor_http", "cor_plan"} <= set(asked[:3])


async def test_standing_preferences_and_named_decisions_open_answers(graph_db) -> None:
    """A diet told to the agent opens every answer while it holds; a decision in force opens the
    answers whose query uses its words, not others."""
    await _seed(graph_db)
    emb = shared_local_embedder()
    base = T0 - timedelta(days=60)
    facts = [  # id, subject, predicate, object, kind, statement, start day, end day
        ("fct_veg", "ann", "diet", "vegetarian", "preference", "Ann is vegetarian (diet)", 0, 30),
        (
            "fct_pesc",
            "ann",
            "diet",
            "pescatarian",
            "preference",
            "Ann is pescatarian (diet)",
            30,
            None,
        ),
        (
            "fct_db",
            "reporting database",
            "uses",
            "Aurora",
            "decision",
            "infra: reporting database uses Aurora (database)",
            0,
            None,
        ),
    ]
    vecs = await emb.embed([f[5] for f in facts])
    await FactRepository(graph_db).upsert_many(
        [
            Fact(
                id=fid,
                project="infra",
                subject=subj,
                predicate=pred,
                object=obj,
                kind=kind,
                statement=text,
                confidence=0.7,
                valid_from=base + timedelta(days=start),
                valid_to=None if end is None else base + timedelta(days=end),
                embedding=v,
            )
            for (fid, subj, pred, obj, kind, text, start, end), v in zip(facts, vecs, strict=True)
        ]
    )
    svc = RetrievalService(RecallRepository(graph_db), emb, RankingSection())
    plan = await _ids(svc, "Resize the RDS volume to 500 GB")
    assert "fct_pesc" not in plan  # in force, but a diet has nothing to do with a disk size
    assert "fct_db" not in plan[:3]  # a decision opens only where the query uses its words
    meal = await _ids(svc, "Suggest a dinner for Ann on Friday")
    assert "fct_pesc" in meal[:3]  # the diet concerns a meal, though no word is shared
    assert "fct_veg" not in meal  # ended: not at the default as-of
    back = await svc.context(
        "Suggest a dinner for Ann on Friday",
        ("infra",),
        limit=5,
        token_budget=None,
        as_of=to_ms(T0 - timedelta(days=50)),
    )
    assert "fct_veg" in [r.candidate.id for r in back.items][:3]
    asked = await svc.context(
        "Which database does the nightly report read?", ("infra",), limit=5, token_budget=None
    )
    opened = [r.candidate.id for r in asked.items if r.why.get("rule_first")]
    assert "fct_db" in opened


async def test_rules_in_force_are_read_per_scope_once_each(graph_db) -> None:
    """The caller's projects, another project, and every project (`*`): each rule once."""
    await _seed(graph_db)
    await CorrectionRepository(graph_db).upsert_many(
        [
            Correction(
                id="cor_elsewhere",
                project="webapp",
                rule_text="Use pnpm, not npm.",
                corrected_behaviour="Use pnpm, not npm.",
                status="rule",
                confidence=0.8,
                valid_from=T0,
            )
        ]
    )
    repo = RecallRepository(graph_db)
    now = to_ms(datetime.now(UTC))

    async def ids(projects: tuple[str, ...]) -> list[str]:
        return sorted(h.id for h in await repo.rules_in_force(projects, as_of=now, known_at=now))

    assert await ids(("infra",)) == ["cor_http", "cor_plan"]
    assert await ids(("webapp",)) == ["cor_elsewhere"]
    assert await ids(("nobody",)) == []
    assert await ids(("*",)) == ["cor_elsewhere", "cor_http", "cor_plan"]
    assert await ids(("infra", "webapp")) == ["cor_elsewhere", "cor_http", "cor_plan"]
