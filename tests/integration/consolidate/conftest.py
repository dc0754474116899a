"""Fixtures of the REM-cycle integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from consolidate.config import ConsolidateSection, ConsolidateSettings
from graph.config import GraphSettings


@pytest.fixture
def rem_settings(graph_settings: GraphSettings, tmp_path: Path) -> ConsolidateSettings:
    """Consolidation settings on the test's graph, reports into the test's temp dir."""
    return ConsolidateSettings(
        **graph_settings.model_dump(exclude={"consolidate"}),
        consolidate=ConsolidateSection(report_dir=tmp_path / "reports", backoff_s=60),
        _env_file=None,
    )
