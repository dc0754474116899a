from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ingest.extract.models import SessionInput, TurnInput
from ingest.extract.offline import (
    OfflineExtractor,
    correction_from_clause,
    decision_fact,
    normalize_rule,
)

T0 = datetime(2026, 1, 5, tzinfo=UTC)


def _s(*lines: tuple[Any, ...]) -> SessionInput:
    turns = []
    for i, line in enumerate(lines):
        role, text, *tool = line
        turns.append(
            TurnInput(
                id=f"t{i}",
                ordinal=i,
                role=role,
                text=text,
                timestamp=T0 + timedelta(minutes=i),
                tool_name=tool[0] if tool else None,
                tool_ok=tool[1] if tool else None,
                speaker=("Ann" if role == "user" else ""),
            )
        )
    return SessionInput(id="s", project="demo", turns=tuple(turns))


def _chat(*said: tuple[str, str]) -> SessionInput:
    """People talking (`(speaker, text)` lines): Caroline on the user side, the other person on
    the other, both persons, so `between_people` holds."""
    turns = tuple(
        TurnInput(
            id=f"t{i}",
            ordinal=i,
            role="user" if who == "Caroline" else "assistant",
            text=text,
            timestamp=T0 + timedelta(minutes=i),
            speaker=who,
        )
        for i, (who, text) in enumerate(said)
    )
    return SessionInput(id="s", project="chat", turns=turns)


@pytest.mark.parametrize(
    ("clause", "rule"),
    [
        ("No, use pytest not unittest.", "Use pytest instead of unittest."),
        (
            "Please use double quotes, not single quotes",
            "Use double quotes instead of single quotes.",
        ),
        ("Actually, use uv instead of pip", "Use uv instead of pip."),
        ("don't add comments to the code", "Do not add comments to the code."),
        ("Stop using print statements", "Stop using print statements."),
        ("Never push to main directly", "Never push to main directly."),
        ("Always run the tests before committing", "Always run the tests before committing."),
        ("From now on, write docstrings in google style", "Write docstrings in google style."),
        ("I told you to use tabs", "Use tabs."),
        ("That's wrong, the port is 8080", "The port is 8080."),
        ("No flights before 9am please, I can't do early mornings.", "No flights before 9am."),
        ("Again, nothing that leaves before nine.", "Nothing that leaves before nine."),
        ("Right idea, wrong client: httpx, not requests.", "Httpx, not requests."),
        (
            "Don't use requests in the ingestion service, use httpx; we need the async client.",
            "Use httpx instead of requests in the ingestion service.",
        ),
        ("Never use moment, use dayjs instead.", "Use dayjs instead of moment."),
        (
            "Stop using node.js for scripts, use python.",
            "Use python instead of node.js for scripts.",
        ),
        (
            "Stop squash merging, use regular merge commits.",
            "Use regular merge commits instead of squash merging.",
        ),
        ("We've switched back to npm.", "Use npm."),
        ("Run the tests before committing.", "Run the tests before committing."),
        ("Please run tests before you commit.", "Run tests before you commit."),
        ("Remember: tests before every commit.", "Tests before every commit."),
        ("Please reply in Spanish from now on.", "Reply in Spanish."),
        ("Use tabs for indentation.", "Use tabs for indentation."),
        ("Use yarn.", "Use yarn."),
    ],
)
def test_correction_cues(clause: str, rule: str) -> None:
    parsed = correction_from_clause(clause)
    assert parsed is not None
    assert parsed[0] == rule


@pytest.mark.parametrize(
    "clause",
    [
        "Don't worry about it",
        "Never mind",
        "I don't know",
        "Let's grab lunch",
        "Thanks a lot!",
        "No worries, thanks",
        "No idea what happened",
        "No tests were run after the change",
        "I went to the store before lunch.",  # said of oneself: no procedure
        "Check the logs after the deploy.",  # one deploy: no procedure
        "We had dinner before leaving.",
        "We switched to a new office.",  # no tool named
        "I'll be more careful from now on.",
        "Use the staging DB for this test.",  # no tool named, and one test
    ],
)
def test_not_corrections(clause: str) -> None:
    assert correction_from_clause(clause) is None


def test_normalize_rule() -> None:
    assert normalize_rule("  please use   ruff!! ") == "Use ruff."
    assert normalize_rule("") == ""


def test_extracts_everything_with_provenance() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Let's use SQLite for the database. TODO: add a login page"),
            ("assistant", "I'll run the tests with unittest."),
            ("user", "No, use pytest not unittest. I prefer ruff over flake8."),
            ("assistant", "Running pytest.", "Bash", None),
            (
                "tool",
                "Traceback (most recent call last):\nModuleNotFoundError: No module named 'x'",
                "Bash",
                False,
            ),
            ("assistant", "The x package is missing, so I'll install it with pip install x."),
            ("tool", "===== 12 passed in 0.3s =====", "Bash", True),
        )
    )
    [c] = r.corrections
    assert (c.rule_text, c.type, c.original_behaviour, c.turn_ids) == (
        "Use pytest instead of unittest.",
        "tool_usage",
        "use unittest",
        ("t2",),
    )
    facts = {(f.subject, f.predicate, f.object, f.kind, f.turn_ids) for f in r.facts}
    assert ("database", "uses", "SQLite", "decision", ("t0",)) in facts
    assert ("ann", "prefers linter", "ruff", "preference", ("t2",)) in facts
    assert any(f.kind == "todo" and f.object == "add a login page" for f in r.facts)
    [lesson] = r.lessons
    assert lesson.title == "Fix: ModuleNotFoundError: No module named 'x'"
    assert lesson.summary.endswith(": I'll install it with pip install x.")
    assert lesson.turn_ids == ("t4", "t5", "t6")
    # problem → cause → fix → verification, each quoted from the session, with provenance
    sections = [line for line in lesson.content.splitlines() if line.startswith("## ")]
    assert sections == ["## Problem", "## Cause", "## Fix", "## Verification", "## Provenance"]
    assert "While working on: Let's use SQLite for the database." in lesson.content
    assert "\nThe x package is missing\n" in lesson.content
    assert "- I'll install it with pip install x." in lesson.content
    assert "===== 12 passed in 0.3s =====" in lesson.content
    assert "- verification: t6" in lesson.content
    assert r.entities.technologies[:3] == ("sqlite", "unittest", "pytest")
    assert r.entities.people == ("Ann",)
    assert r.enrichment.tool_stats == {"Bash": {"calls": 2, "failures": 1}}


def test_no_lesson_without_a_passing_run() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("tool", "error: cannot find module 'foo'", "Bash", False),
            ("assistant", "I'll add the foo dependency."),
            ("tool", "error: cannot find module 'foo'", "Bash", False),
        )
    )
    assert r.lessons == ()


def test_personal_facts_from_conversation() -> None:
    r = OfflineExtractor().extract_sync(
        _s(("user", "Guess what, I just moved to Boston last month! I work at Acme Corp now."))
    )
    got = {(f.subject, f.predicate, f.object) for f in r.facts}
    assert ("ann", "lives in", "Boston") in got
    assert ("ann", "works at", "Acme Corp") in got


def test_switches_supersede_what_a_subject_used() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Let's use MySQL 8 for the orders database."),
            ("user", "Heads up: we migrated the orders database to Postgres 16 over the weekend."),
            ("user", "We decided to switch the job queue to RabbitMQ. Quorum queues, please."),
            ("user", "We're moving the deployment to a Hetzner box with Docker Compose."),
            ("user", "Also move my dentist appointment to next week."),
            ("user", "Let's move the standup to Monday."),
        )
    )
    got = [(f.subject, f.predicate, f.object) for f in r.facts]
    assert got == [
        ("orders database", "uses", "MySQL 8"),
        ("orders database", "uses", "Postgres 16"),
        ("job queue", "uses", "RabbitMQ"),
        ("deployment", "uses", "Hetzner box"),
    ]
    # a known technology's category is said when the subject does not say it already
    assert [f.statement.split(": ", 1)[1] for f in r.facts] == [
        "orders database uses MySQL 8",
        "orders database uses Postgres 16",
        "job queue uses RabbitMQ (message broker)",
        "deployment uses Hetzner box",
    ]


def test_a_choice_for_one_environment_keys_apart_from_the_project_wide_one() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "We decided to use PostgreSQL 16 for the main database."),
            ("user", "Switch the main database to SQLite for local development; Postgres stays."),
            ("user", "Let's use DuckDB locally."),
            ("user", "We're going with Kafka for the event bus in staging."),
            ("user", "Move the job queue to Redis on CI."),
            ("user", "Let's use Vitest for testing."),
            ("user", "We migrated the analytics store to ClickHouse in March."),
        )
    )
    assert [(f.subject, f.predicate, f.object) for f in r.facts] == [
        ("main database", "uses", "PostgreSQL 16"),
        ("main database (local development)", "uses", "SQLite"),
        ("database (local development)", "uses", "DuckDB"),
        ("event bus (staging)", "uses", "Kafka"),
        ("job queue (CI)", "uses", "Redis"),
        ("test framework", "uses", "Vitest"),  # what Vitest is for, not an environment
        ("analytics store", "uses", "ClickHouse"),
    ]


def test_a_new_employer_or_manager_is_a_new_value_of_the_same_fact() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "My manager is Priya Raman, please cc her on the weekly report."),
            ("user", "I work at Northwind as a data engineer."),
            ("user", "Reorg happened: my new manager is Tomas Berg."),
            ("user", "I left Northwind last month and joined Contoso as a staff engineer."),
            ("user", "I started a new job at Globex in May."),
            ("user", "I joined Rotary as a volunteer."),  # a club, not an employer
            ("user", "My sister joined Acme as a designer."),  # someone else's job
        )
    )
    got = [(f.subject, f.predicate, f.object) for f in r.facts if f.kind != "observation"]
    assert got == [
        ("ann", "manager", "Priya Raman"),
        ("ann", "works at", "Northwind"),
        ("ann", "manager", "Tomas Berg"),
        ("ann", "works at", "Contoso"),
        ("ann", "works at", "Globex"),
    ]
    assert r.facts[0].statement == "Ann's manager is Priya Raman"


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("We are going back to Postgres for the analytics store.", ("analytics store", "Postgres")),
        ("Switch the queue back to RabbitMQ.", ("queue", "RabbitMQ")),
        ("We replaced Jenkins with GitHub Actions.", ("ci service", "GitHub Actions")),
        ("From now on we use GitLab CI for the pipelines.", ("pipelines", "GitLab CI")),
        ("We dropped Redis; the cache is now Memcached.", ("cache", "Memcached")),
        ("We're standardising on Terraform for infrastructure.", ("infrastructure", "Terraform")),
        ("The frontend now uses Svelte instead of React.", ("frontend", "Svelte")),
        ("Moving forward the API will use gRPC.", ("api", "gRPC")),
        ("The team uses Slack for chat.", ("chat", "Slack")),
        # what the old one was says which slot the new one fills
        (
            "We moved from black to ruff format, so use it from now on.",
            ("formatter", "ruff format"),
        ),
        ("No. We stay on uv.", ("package manager", "uv")),
        ("We're sticking with Postgres.", ("database", "Postgres")),
        (
            "We replaced Jenkins with GitHub Actions for CI as of today.",
            ("ci service", "GitHub Actions"),
        ),
        ("Let's use Jenkins for CI.", ("ci service", "Jenkins")),  # CI is what Jenkins is for
        ("And the event bus now uses SQS, the cluster is too much.", ("event bus", "SQS")),
        # a choice need not be a product's name when a choosing verb says it is one
        ("Let's use snake_case for the column names.", ("column names", "snake_case")),
        ("Let's go with dark mode for the dashboard.", ("dashboard", "dark mode")),
        ("We decided to use feature flags for the rollout.", ("rollout", "feature flags")),
        # a verb is no choice: "revert that commit" decides nothing about what is used
        ("Let's revert that commit.", None),
        ("Let's revert the migration we ran yesterday.", None),
        ("The weather is now sunny.", None),
        ("I replaced the battery with a new one.", None),
    ],
)
def test_the_forms_a_decision_takes(said: str, fact: tuple[str, str] | None) -> None:
    found = decision_fact(said, "p")
    assert (None if found is None else (found[0], found[2])) == fact


def test_two_choices_in_one_clause_are_two_decisions() -> None:
    r = OfflineExtractor().extract_sync(
        _s(("user", "Let's use Jenkins for CI and Kafka for the event bus."))
    )
    assert [(f.subject, f.object) for f in r.facts if f.kind == "decision"] == [
        ("ci service", "Jenkins"),
        ("event bus", "Kafka"),
    ]


def test_the_name_the_user_goes_by_is_one_fact() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Hi there. I'm Alexandra, but please call me Alex."),
            ("assistant", "Nice to meet you! Call me when you need me."),
            ("user", "Actually, I'd rather you call me Sasha from now on."),
        )
    )
    assert [(f.subject, f.predicate, f.object) for f in r.facts] == [
        ("ann", "is called", "Alex"),
        ("ann", "is called", "Sasha"),
    ]


def test_topics_prefer_recurring_phrases() -> None:
    r = OfflineExtractor(max_topics=3).extract_sync(
        _s(
            ("user", "The vector index on the graph database is slow for large batches."),
            ("assistant", "The vector index rebuild runs on every batch insert."),
            ("user", "Can we batch the vector index updates and cache query plans?"),
            ("assistant", "Yes: batching vector index updates and a query plan cache will help."),
        )
    )
    assert r.topics[0].title == "vector index"
    assert r.topics[0].turn_ids == ("t0", "t1", "t2", "t3")
    assert all(len(t.turn_ids) >= 2 for t in r.topics)


def test_deterministic() -> None:
    s = _s(("user", "Let's use Redis for the cache."), ("assistant", "Redis cache configured."))
    assert OfflineExtractor().extract_sync(s) == OfflineExtractor().extract_sync(s)


def test_todo_items_tolerate_truncated_json() -> None:
    from ingest.extract.offline import todo_items

    text = (
        '[tool_use TodoWrite] {"todos": [{"content": "Write docs", "id": "1", "status": '
        '"pending"}, {"content": "Ship \\"it\\"", "status": "completed", "priority": "high"}, '
        '{"content": "cut off here", "sta'
    )
    assert todo_items(text) == [("Write docs", "pending"), ('Ship \\"it\\"', "completed")]


def test_insight_lessons() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("assistant", "It turns out the port 8080 was already taken by another container."),
            ("user", "I've learned that small daily habits beat big bursts of effort."),
            ("user", "I learned the hard way last year."),
        )
    )
    got = [(x.category, x.title, x.turn_ids) for x in r.lessons]
    # a technical gotcha is kept; a life maxim in a session with no work in it is not a lesson
    assert got == [("gotcha", "The port 8080 was already taken by another container", ("t0",))]
    work = OfflineExtractor().extract_sync(
        _s(
            ("user", "Why does the deploy hang?"),
            ("assistant", "Checking.", "Bash", None),
            ("tool", "ok", "Bash", True),
            ("user", "I've learned that small daily habits beat big bursts of effort."),
        )
    )
    [lesson] = work.lessons
    assert lesson.turn_ids == ("t0", "t3")  # with the turn it answers
    assert lesson.content.startswith("Context: Why does the deploy hang?")
    # "the key insight is that ...": the insight, without the marks of bold or code
    marked = OfflineExtractor().extract_sync(
        _s(
            ("user", "How do I give a Python decorator parameters?"),
            ("assistant", "The key insight is that we need **three levels of `functions`**:"),
        )
    )
    assert [x.title for x in marked.lessons] == ["We need three levels of functions"]


def test_error_then_clean_rerun_of_the_same_command_is_a_lesson() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Run the migrations."),
            (
                "tool",
                "pnpm migrate\nError: SQLITE_CANTOPEN: unable to open database file",
                "Bash",
                None,
            ),
            ("assistant", "The data directory did not exist; creating ./data and re-running."),
            ("tool", "pnpm migrate\n12 migrations applied", "Bash", None),
        )
    )
    [lesson] = r.lessons
    assert lesson.category == "problem-solution"
    assert "`pnpm migrate` failed with:" in lesson.content
    assert "## Cause\nThe data directory did not exist\n" in lesson.content
    assert "- creating ./data and re-running." in lesson.content
    assert "12 migrations applied" in lesson.content


def test_model_speakers_are_not_people() -> None:
    s = SessionInput(
        id="s",
        project="demo",
        turns=(
            TurnInput(
                id="t0",
                ordinal=0,
                role="assistant",
                speaker="claude-sonnet-4-20250514",
                text="Let's use SQLite for the database. I moved to Boston.",
                timestamp=T0,
            ),
        ),
    )
    r = OfflineExtractor().extract_sync(s)
    assert r.facts == ()
    assert "claude-sonnet-4-20250514" not in r.entities.people


def test_what_replaces_a_lifted_instruction_is_a_rule() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            (
                "user",
                "Forget what I said about squash merging. We use merge commits now, so git "
                "bisect can see the individual commits.",
            ),
            ("user", "We use Slack for that."),  # no lift before it: not an instruction
        )
    )
    got = [(c.rule_text, c.withdraws, c.explicit_rule) for c in r.corrections]
    assert got[1:] == [("Use merge commits.", False, True)]
    assert got[0][1] is True


def test_people_talking_give_personal_facts_but_no_corrections_todos_or_decisions() -> None:
    said = [
        ("Caroline", "I've just started volunteering at the shelter, it's great."),
        ("Melanie", "Make sure to take breaks, don't burn out!"),
        ("Caroline", "We need to stay positive and motivate others."),
        ("Melanie", "Let's work together for the community, it makes things better."),
        ("Caroline", "Never give up on what you love. I started playing again."),
    ]
    r = OfflineExtractor().extract_sync(_chat(*said))
    assert r.corrections == ()
    assert [(f.subject, f.kind, f.object) for f in r.facts] == [
        ("caroline", "event", "volunteering")
    ]  # "started playing" names no hobby: no fact


def test_a_diet_told_to_the_agent_is_one_standing_preference() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "I'm vegetarian, so no meat in any recipes you suggest, please."),
            ("assistant", "Noted. I'm vegetarian-friendly by default."),  # not the user
            ("user", "I'm not vegan though, cheese is fine."),  # a negation states no diet
            ("user", "Update: I eat fish again. Pescatarian now, salmon is welcome."),
            ("user", "Also, I'm allergic to peanuts and cashews, keep them out."),
        )
    )
    got = [(f.predicate, f.object, f.kind) for f in r.facts if f.kind != "observation"]
    assert got == [
        ("diet", "vegetarian", "preference"),
        ("diet", "pescatarian", "preference"),
        ("allergic to peanuts and cashews", "peanuts and cashews", "preference"),
    ]
    assert r.facts[1].statement == "Ann is pescatarian (diet)"


def test_a_diet_between_people_is_a_personal_fact_not_an_instruction() -> None:
    r = OfflineExtractor().extract_sync(
        _chat(("Caroline", "I went vegan in March!"), ("Melanie", "Wow, how is it going?"))
    )
    assert [(f.subject, f.predicate, f.object, f.kind) for f in r.facts] == [
        ("caroline", "diet", "vegan", "other")
    ]


def _facts_of(*user_said: str) -> list[tuple[str, str, str, str]]:
    """(kind, subject, predicate, object) of the facts the user's lines state (no observations)."""
    lines = [x for said in user_said for x in (("user", said), ("assistant", "Noted."))]
    r = OfflineExtractor().extract_sync(_s(*lines))
    return [(f.kind, f.subject, f.predicate, f.object) for f in r.facts if f.kind != "observation"]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("We use Jest for unit tests in this repo.", ("test framework", "Jest")),
        ("we use pnpm in this project", ("package manager", "pnpm")),
        ("We're on Node 18 for the API server.", ("node version", "18")),
        ("We upgraded the API server to Node 22 last week.", ("node version", "22")),
        ("The project targets Python 3.10.", ("python version", "3.10")),
        ("We bumped the minimum Python version to 3.12.", ("python version", "3.12")),
        ("We run 3 replicas.", None),
        ("I'm on 2 meetings today.", None),
    ],
)
def test_a_decision_for_the_whole_project_and_versions_in_use(
    said: str, fact: tuple[str, str] | None
) -> None:
    got = [(s, o) for k, s, _, o in _facts_of(said) if k == "decision"]
    assert got == ([] if fact is None else [fact])


def test_a_decision_says_what_it_replaces_when_it_names_it() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "We replaced Redis with Memcached last week."),
            ("user", "We're migrating from Jest to Vitest this sprint."),
            ("user", "Let's use Postgres for the orders service."),
        )
    )
    assert [(f.object, f.replaces) for f in r.facts if f.kind == "decision"] == [
        ("Memcached", "redis"),
        ("Vitest", "jest"),
        ("Postgres", ""),
    ]


def test_a_standing_preference_said_to_no_longer_hold_ends_with_the_same_key() -> None:
    assert _facts_of(
        "I'm allergic to shellfish.",
        "Turns out I'm not allergic to shellfish after all.",
        "I've stopped being vegetarian.",
        "I'm not vegan though.",  # what the diet is not; no diet ended
    ) == [
        ("preference", "ann", "allergic to shellfish", "shellfish"),
        ("other", "ann", "allergic to shellfish", "not allergic"),
        ("other", "ann", "diet", "no longer vegetarian"),
    ]


def test_a_habit_given_up_names_what_it_ends() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "I've quit coffee entirely, it's green tea only for me now."),
            ("user", "I gave up smoking last year."),
            ("user", "I don't drink alcohol."),  # no "any more": not a change
            ("user", "I quit my job."),  # not a habit
        )
    )
    assert [(f.statement, f.ends) for f in r.facts if f.ends] == [
        ("Ann has given up coffee", "coffee"),
        ("Ann has given up smoking", "smoking"),
    ]


def test_a_convention_without_a_tool_is_a_correction() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Use snake_case for variable names."),
            ("user", "Use single quotes for strings."),
            ("user", "Use the snake case example."),  # names no convention to follow
        )
    )
    assert [c.rule_text for c in r.corrections] == [
        "Use snake_case for variable names.",
        "Use single quotes for strings.",
    ]


def test_a_thing_parted_with_names_what_it_ends() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "I sold my Honda Civic and bought a Tesla Model 3."),
            ("user", "We finally got rid of our old Subaru last month."),
            ("user", "I sold the idea to my boss."),  # not a belonging
            ("user", "I sold 20 tickets."),  # not one of mine
        )
    )
    assert [(f.statement, f.parted) for f in r.facts if f.parted] == [
        ("Ann no longer has their Honda Civic", "Honda Civic"),
        ("Ann no longer has their Subaru", "Subaru"),
    ]


def test_team_leads_schedules_pets_and_reply_language_keep_one_current_value() -> None:
    assert _facts_of(
        "Maria leads the backend team, ask her for reviews.",
        "Maria moved to the platform team; Kenji now leads backend.",
        "The launch is scheduled for March 3.",
        "Bad news: the launch slipped to March 17.",
        "Standup moves to 10:00 starting Monday.",
        "We adopted a puppy named Luna.",
        "Please reply in Spanish from now on.",
        "Don't reply in German.",
    ) == [
        ("other", "backend team", "led by", "Maria"),
        ("other", "backend team", "led by", "Kenji"),
        ("other", "launch", "scheduled for", "March 3"),
        ("other", "launch", "scheduled for", "March 17"),
        ("other", "standup", "scheduled for", "10:00"),
        ("other", "ann", "has dog", "Luna"),
        ("preference", "ann", "reply language", "Spanish"),
    ]


def test_a_trailing_from_now_on_makes_a_standing_rule_and_a_reply_language_no_correction() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Run the linter before every commit going forward."),
            ("user", "Please reply in Spanish from now on."),
            ("user", "Don't reply in German."),
            ("user", "I'll be more careful from now on."),
        )
    )
    assert [(c.rule_text, c.explicit_rule) for c in r.corrections] == [
        ("Run the linter before every commit.", True),
        ("Do not reply in German.", False),
    ]


def test_roles_amounts_due_dates_and_where_one_is_based_keep_one_current_value() -> None:
    assert _facts_of(
        "Dana is our designer, loop her in on UI changes.",
        "Dana left the company; Eli is our new designer.",
        "Our new PM is Jordan Lee.",
        "Paris is our only option.",
        "Our marketing budget is $5,000 per month.",
        "The marketing budget was cut to $3,000 per month.",
        "Our budget is tight.",
        "The deadline for the report is Friday.",
        "I'm based in Berlin.",
        "I've moved to San Francisco.",
    ) == [
        ("other", "designer", "held by", "Dana"),
        ("other", "designer", "held by", "Eli"),
        ("other", "pm", "held by", "Jordan Lee"),
        ("other", "marketing budget", "amounts to", "$5,000 per month"),
        ("other", "marketing budget", "amounts to", "$3,000 per month"),
        ("other", "deadline", "scheduled for", "Friday"),
        ("other", "ann", "lives in", "Berlin"),
        ("other", "ann", "lives in", "San Francisco"),
    ]


def test_a_team_named_by_its_initials_has_one_lead_whichever_way_it_is_said() -> None:
    """ "Maria is our QA lead" and "Jonas is the QA lead now" name one key, so Jonas ends Maria;
    initials keep their capitals in the statement."""
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Maria is our QA lead, ask her before releases."),
            ("user", "Maria moved to the platform team. Jonas is the QA lead now."),
            ("user", "Ravi is our UX designer."),
            ("user", "Ines is our design team lead."),
        )
    )
    assert [(f.subject, f.predicate, f.object) for f in r.facts] == [
        ("qa team", "led by", "Maria"),
        ("qa team", "led by", "Jonas"),
        ("ux designer", "held by", "Ravi"),
        ("design team", "led by", "Ines"),
    ]
    assert r.facts[1].statement.endswith("Jonas leads the QA team")


def test_a_machines_memory_cpus_and_replicas_keep_one_current_value_each() -> None:
    """A size in bytes needs what it is of; a count's unit is its resource. The same machine
    said with or without "server" is one key, so the upgrade ends the size before."""
    assert _facts_of(
        "The staging server has 16 GB of RAM.",
        "We upgraded staging to 64 GB of RAM last night.",
        "The database now runs on 8 vCPUs.",
        "We scaled the API to 6 replicas.",
        "Prod was upgraded to 128 GB of memory.",
        "The disk has 16 GB free.",
        "The report has 12 pages.",
    ) == [
        ("other", "staging", "has memory", "16 GB"),
        ("other", "staging", "has memory", "64 GB"),
        ("other", "database", "has cpu", "8 vCPUs"),
        ("other", "api", "has replica", "6 replicas"),
        ("other", "prod", "has memory", "128 GB"),
    ]


def test_a_timeout_a_rate_limit_and_a_retry_count_keep_one_current_value_each() -> None:
    assert _facts_of(
        "The request timeout is 30 seconds.",
        "We increased the request timeout to 90 seconds.",
        "Our API rate limit is 100 requests per minute per key.",
        "The API rate limit was raised to 500 requests per minute.",
        "The retry limit is 3 attempts.",
        "The build took 10 minutes.",
    ) == [
        ("other", "request timeout", "amounts to", "30 seconds"),
        ("other", "request timeout", "amounts to", "90 seconds"),
        ("other", "api rate limit", "amounts to", "100 requests per minute"),
        ("other", "api rate limit", "amounts to", "500 requests per minute"),
        ("other", "retry limit", "amounts to", "3 attempts"),
    ]


def test_a_host_a_branch_a_region_and_a_port_keep_one_current_value_each() -> None:
    """A value inside a name ("db1.internal") is whole; a word saying how a setting is ("down",
    "ready") or a name that is not a setting ("the topic") stores nothing."""
    assert _facts_of(
        "The database host is db1.internal.",
        "The database host is now db2.internal after the migration.",
        "The default branch is master, open PRs against it.",
        "We renamed the default branch to main.",
        "The AWS region is eu-west-1.",
        "The API runs on port 8080 locally.",
        "We moved the API to port 9000 because 8080 clashes with the proxy.",
        "So the web app listens on port 3000.",
        "The database host is down.",
        "The feature branch is ready for review.",
        "The topic is interesting.",
        "The host is me.",
    ) == [
        ("other", "database host", "is set to", "db1.internal"),
        ("other", "database host", "is set to", "db2.internal"),
        ("other", "default branch", "is set to", "master"),
        ("other", "default branch", "is set to", "main"),
        ("other", "aws region", "is set to", "eu-west-1"),
        ("other", "api port", "is set to", "8080"),
        ("other", "api port", "is set to", "9000"),
        ("other", "web app port", "is set to", "3000"),
    ]


def test_moving_home_is_not_a_switch_of_tools() -> None:
    """ "I moved to New York" says where the speaker lives, not a rule to use New York; "we moved
    to Bitbucket" and "we've moved to pnpm" stay switches."""
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "I moved to New York."),
            ("user", "We moved to Bitbucket."),
            ("user", "We've moved to pnpm."),
        )
    )
    assert [c.rule_text for c in r.corrections] == ["Use Bitbucket.", "Use pnpm."]
    assert ("ann", "lives in", "New York") in [(f.subject, f.predicate, f.object) for f in r.facts]


def test_a_withdrawal_and_its_replacement_in_one_clause_are_two_corrections() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "Always use pnpm, never npm."),
            ("user", "Forget what I said about pnpm, we use bun now."),
            ("user", "We have canary releases now, so deploying on Fridays is fine again."),
        )
    )
    assert [(c.rule_text, c.negates, c.withdraws) for c in r.corrections] == [
        ("Always use pnpm.", None, False),
        ("Forget what I said about pnpm, we use bun now.", "pnpm", True),
        ("Use bun.", None, False),
        ("Deploying on Fridays is fine again.", "deploying on Fridays", True),
    ]


def test_a_tools_name_that_is_a_common_word_titles_a_topic_only_in_talk_of_software() -> None:
    def topics(*said: str) -> list[str]:
        lines = [("user" if i % 2 == 0 else "assistant", x) for i, x in enumerate(said)]
        return [t.title for t in OfflineExtractor().extract_sync(_s(*lines)).topics]

    assert "black" not in topics(
        "I drink my coffee black, two cups every morning.", "Noted: black coffee."
    )
    assert "black" in topics(
        "Format the code with black.", "Running black on src/.", "black reformatted 3 files."
    )


def test_contact_details_service_addresses_and_cancellations_keep_one_current_value() -> None:
    assert _facts_of(
        "My phone number is +1 555 0100.",
        "New phone number: +1 555 0199.",
        "Please use ann@new.io as my email from now on.",
        "My number is private.",
        "The staging API lives at https://staging.acme.io/v1.",
        "Staging moved to https://stg.acme.dev/v2 yesterday.",
        "Our weekly sync is on Tuesdays at 3pm.",
        "We cancelled the weekly sync, async updates only from now on.",
        "We dropped the ball on that one.",
    ) == [
        ("other", "ann", "phone number", "+1 555 0100"),
        ("other", "ann", "phone number", "+1 555 0199"),
        ("other", "ann", "email", "ann@new.io"),
        ("other", "staging", "is at", "https://staging.acme.io/v1"),
        ("other", "staging", "is at", "https://stg.acme.dev/v2"),
        ("other", "weekly sync", "scheduled for", "Tuesday"),
        ("other", "weekly sync", "scheduled for", "cancelled"),
    ]


def test_a_clause_or_a_piece_of_an_address_titles_no_topic() -> None:
    said = [
        ("user", "The deadline moved to Friday, and the staging api lives at https://x.io."),
        ("assistant", "Noted: the deadline moved, https://x.io is staging."),
        ("user", "So the deadline moved again? Check https://x.io please."),
    ]
    titles = [t.title for t in OfflineExtractor().extract_sync(_s(*said)).topics]
    assert not any(t.endswith("moved") or "https" in t.split() for t in titles)


def test_a_favourite_and_an_age_keep_one_current_value() -> None:
    assert _facts_of(
        "My favourite restaurant is Nopa.",
        "My new favourite restaurant is Zuni Cafe.",
        "My daughter Emma is 7.",
        "Emma turned 8 last week!",
        "I'm 34 and training for my first marathon.",
        "I'm 5 minutes away.",
        "Emma is 7 minutes late.",
    ) == [
        ("other", "ann", "favourite restaurant", "Nopa"),
        ("other", "ann", "favourite restaurant", "Zuni Cafe"),
        ("other", "emma", "age", "7"),
        ("other", "emma", "age", "8"),
        ("other", "ann", "age", "34"),
    ]


def test_what_a_turn_correcting_a_mistake_states_is_marked_as_a_correction() -> None:
    r = OfflineExtractor().extract_sync(
        _s(
            ("user", "I work at Initech."),
            ("user", "Sorry, I misspoke earlier: I work at Initrode, not Initech."),
            ("user", "That was a typo, I meant Postgres for the analytics database."),
            ("user", "I meant to call you."),  # no name: no decision
        )
    )
    got = [(f.object, f.corrects) for f in r.facts if f.kind != "observation"]
    assert got == [("Initech", False), ("Initrode", True), ("Postgres", True)]
