"""`rules(project)`: the rules and preferences in force, scoped by the key, in ranking order."""

from __future__ import annotations

from datetime import timedelta

from graph.models import Correction, Fact, utc_now
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from tests.integration.api.conftest import gql

RULES = """
query($p: String, $limit: Int! = 50) {
  rules(project: $p, limit: $limit) {
    __typename
    ... on RulesPayload { asOf items { id project status confirmed text effectiveWeight } }
    ... on Forbidden { project }
    ... on InvalidInput { field }
  }
}
"""


async def _seed_rules(db) -> None:
    now = utc_now()
    day = timedelta(days=1)

    def c(id: str, project: str, **kw) -> Correction:
        kw.setdefault("valid_from", now - 10 * day)
        kw.setdefault("recorded_at", now - 10 * day)
        kw.setdefault("last_seen", now - day)
        # an instruction, as a rule handed to a session must read (`recall.rules.is_instruction`)
        return Correction(id=id, project=project, rule_text=f"Always check {id} first.", **kw)

    await CorrectionRepository(db).upsert_many(
        [
            c("cor_rule_light", "alpha", status="rule", confidence=0.3),
            c("cor_rule_heavy", "alpha", status="rule", confidence=0.9, reinforcement=4),
            c("cor_pref", "alpha", status="preference", confidence=1.0, reinforcement=9),
            c("cor_confirmed", "alpha", status="correction", confirmed=True, confidence=0.5),
            c("cor_pattern", "alpha", status="pattern", confidence=1.0),
            c("cor_closed", "alpha", status="rule", valid_to=now - day, expired_at=now - day),
            c("cor_beta_rule", "beta", status="rule", confidence=0.8),
        ]
    )


async def test_rules_are_the_open_graduated_or_confirmed_corrections_in_order(
    client, keys, graph_db
):
    await _seed_rules(graph_db)
    r = await gql(client, RULES, keys["alpha"], p="alpha")
    data = r.json()["data"]["rules"]
    assert data["__typename"] == "RulesPayload"
    assert [i["id"] for i in data["items"]] == [
        "cor_rule_heavy",
        "cor_confirmed",
        "cor_rule_light",
        "cor_pref",
    ]
    assert [i["status"] for i in data["items"]] == ["rule", "rule", "rule", "preference"]
    assert data["items"][1]["confirmed"] is True
    assert data["items"][0]["text"] == "Always check cor_rule_heavy first."
    weights = [i["effectiveWeight"] for i in data["items"][:3]]
    assert weights == sorted(weights, reverse=True)


async def test_rules_are_scoped_by_the_key(client, keys, graph_db):
    await _seed_rules(graph_db)
    # no project: every project of the key, and only those
    mine = (await gql(client, RULES, keys["alpha"])).json()["data"]["rules"]["items"]
    assert {i["project"] for i in mine} == {"alpha"}
    denied = (await gql(client, RULES, keys["alpha"], p="beta")).json()["data"]["rules"]
    assert denied == {"__typename": "Forbidden", "project": "beta"}
    both = (await gql(client, RULES, keys["all"])).json()["data"]["rules"]["items"]
    assert {i["id"] for i in both} >= {"cor_beta_rule", "cor_rule_heavy"}
    limited = (await gql(client, RULES, keys["all"], limit=2)).json()["data"]["rules"]["items"]
    assert len(limited) == 2
    bad = (await gql(client, RULES, keys["alpha"], limit=0)).json()["data"]["rules"]
    assert bad == {"__typename": "InvalidInput", "field": "limit"}


async def test_a_new_project_has_no_rules_yet(client, keys):
    r = await gql(client, RULES, keys["beta"], p="beta")
    assert r.json()["data"]["rules"]["items"] == []  # the seeded correction is not graduated


async def test_standing_preferences_are_listed_while_they_hold_and_only_for_their_project(
    client, keys, graph_db
):
    await _seed_rules(graph_db)
    now = utc_now()
    day = timedelta(days=1)

    def f(id: str, project: str, obj: str, start: int, end: int | None = None) -> Fact:
        return Fact(
            id=id,
            project=project,
            subject="ann",
            predicate="diet",
            object=obj,
            kind="preference",
            statement=f"Ann is {obj} (diet)",
            confidence=0.7,
            valid_from=now - start * day,
            valid_to=None if end is None else now - end * day,
            recorded_at=now - start * day,
        )

    await FactRepository(graph_db).upsert_many(
        [
            f("fct_veg", "alpha", "vegetarian", 20, end=5),  # ended: no longer in force
            f("fct_pesc", "alpha", "pescatarian", 5),
            f("fct_beta", "beta", "vegan", 5),
        ]
    )
    items = (await gql(client, RULES, keys["alpha"], p="alpha")).json()["data"]["rules"]["items"]
    ids = [i["id"] for i in items]
    assert "fct_pesc" in ids
    assert "fct_veg" not in ids
    assert "fct_beta" not in ids  # another project's, whatever the key may not read
    pesc = items[ids.index("fct_pesc")]
    assert (pesc["status"], pesc["text"]) == ("preference", "Ann is pescatarian (diet)")
    assert ids.index("fct_pesc") > ids.index("cor_rule_light")  # rules before preferences
