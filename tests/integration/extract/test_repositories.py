"""Knowledge repositories on the real engine: vector search scores are cosine similarities."""

from __future__ import annotations

from ai.embed import Embedder
from graph.db import GraphDB
from graph.models import Correction, Topic
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.topics import TopicRepository


async def test_topic_search_similarity_is_cosine(graph_db: GraphDB, embedder: Embedder) -> None:
    texts = ["vector index performance", "baking sourdough bread", "indexing vectors quickly"]
    v = await embedder.embed(texts)
    repo = TopicRepository(graph_db)
    await repo.upsert_many(
        [
            Topic(id="top_a", project="p", title=texts[0], embedding=tuple(map(float, v[0]))),
            Topic(id="top_b", project="p", title=texts[1], embedding=tuple(map(float, v[1]))),
            # another project's topic on the same subject: never a match for "p"
            Topic(id="top_q", project="q", title=texts[0], embedding=tuple(map(float, v[0]))),
        ]
    )
    hits = await repo.search_similar(v[0].tolist(), "p", k=2)
    assert [t.id for t, _ in hits] == ["top_a", "top_b"]
    assert abs(hits[0][1] - 1.0) < 1e-3
    expected = float(v[0] @ v[1])
    assert abs(hits[1][1] - expected) < 1e-3
    near = await repo.search_similar(v[2].tolist(), "p", k=1)
    assert near[0][0].id == "top_a"
    assert abs(near[0][1] - float(v[2] @ v[0])) < 1e-3
    assert near[0][0].embedding is None  # reads never ship vectors back
    many = await repo.search_similar_many([v[0].tolist(), v[1].tolist()], "p", k=1)
    assert [[t.id for t, _ in hits] for hits in many] == [["top_a"], ["top_b"]]
    assert abs(many[1][0][1] - 1.0) < 1e-3
    assert await repo.search_similar_many([], "p") == []


async def test_correction_search_is_scoped_to_project_and_live(
    graph_db: GraphDB, embedder: Embedder
) -> None:
    [v] = await embedder.embed(["Use pytest instead of unittest."])
    emb = tuple(map(float, v))
    repo = CorrectionRepository(graph_db)
    await repo.upsert_many(
        [
            Correction(id="cor_p", project="p", rule_text="Use pytest.", embedding=emb),
            Correction(id="cor_q", project="q", rule_text="Use pytest.", embedding=emb),
            Correction(id="cor_old", project="p", rule_text="Use pytest.", embedding=emb),
        ]
    )
    await repo.close_many([("cor_old", 0)], now=1)
    hits = await repo.search_similar("p", v.tolist(), k=10)
    assert [c.id for c, _ in hits] == ["cor_p"]
    await repo.link("RELATED_TO", [("cor_p", "cor_q", 0.9)])
    assert await repo.links("cor_p") == [("RELATED_TO", "cor_p", "cor_q")]
