"""Settings of knowledge extraction (the `extract` section of `IngestSettings`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ExtractSettings"]


class ExtractSettings(BaseModel):
    """Thresholds and switches of topic, lesson, correction and fact extraction.

    Environment variables read `REMGRAPH_EXTRACT__<FIELD>`, e.g. `REMGRAPH_EXTRACT__USE_LLM=true`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    enabled: bool = True
    """Run extraction after ingest (`remgraph ingest --no-extract` turns it off per run)."""
    use_llm: bool = False
    """Use the LLM extractor (needs `REMGRAPH_LLM__BASE_URL`); the offline one is the default."""
    offline_model: Literal["acts", "patterns"] = "patterns"
    """How the offline extractor reads an agent session's rules, decisions and project facts:
    `acts`, the sentence-act model over each typed sentence, items in the user's own words, and
    the clause patterns' items only where the model reads a statement (`ingest/extract/distil.py`);
    `patterns`, the clause patterns alone (`offline.py`). Chat between people is read the same
    either way. Figures of both: `bench/results/extraction.md`."""
    topic_match_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    """Cosine similarity at or above which new material joins an existing topic."""
    max_topics_per_session: int = Field(default=6, ge=0, le=50)
    """Most topic candidates taken from one session."""
    max_keywords_per_topic: int = Field(default=12, ge=1, le=100)
    """Keywords kept on a topic."""
    max_message_ids_per_topic: int = Field(default=500, ge=1)
    """Turn ids kept on a topic node (MENTIONS edges keep them all)."""
    correction_similarity: float = Field(default=0.85, ge=0.0, le=1.0)
    """AUDN: cosine above which a candidate is the same correction as a stored one."""
    correction_related_similarity: float = Field(default=0.7, ge=0.0, le=1.0)
    """Cosine above which two corrections are linked `RELATED_TO`."""
    correction_support_similarity: float = Field(default=0.6, ge=0.0, le=1.0)
    """Cosine at or above which a stored correction of another session says the same as a new
    candidate in other words, so the candidate counts that session too (said again: it graduates
    and is served). Chosen on the tuning history (minsky) by a sweep of 0.6, 0.7 and 0.8 over
    its instruction sentences (bench/results/extraction.md)."""
    lesson_similarity: float = Field(default=0.85, ge=0.0, le=1.0)
    """Cosine above which a new lesson refines a stored one instead of being added."""
    llm_whole_session_tokens: int = Field(default=100_000, ge=1000)
    """LLM routing: sessions up to this size go in one request."""
    llm_chunk_tokens: int = Field(default=24_000, ge=500)
    """LLM routing: chunk size for longer sessions."""
    llm_chunk_overlap: float = Field(default=0.15, ge=0.0, lt=0.5)
    """LLM routing: overlap between chunks (on message boundaries)."""
    llm_map_reduce_tokens: int = Field(default=400_000, ge=1000)
    """LLM routing: beyond this size, chunks are summarised (map) before extraction (reduce)."""
