"""One settings class for the whole service: every package's sections, one environment."""

from __future__ import annotations

from api.config import ApiSettings
from consolidate.config import ConsolidateSettings
from ingest.config import IngestSettings


class Settings(ApiSettings, IngestSettings, ConsolidateSettings):
    """All of remgraph's settings (`REMGRAPH_*`, nested with `__`, `.env` honoured).

    It is an `ApiSettings`, an `IngestSettings` and a `ConsolidateSettings` at once, so the
    composition root hands the same object to every package.
    """
