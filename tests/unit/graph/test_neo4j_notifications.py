"""The driver's server notifications stay out of a terminal at the default level."""

from __future__ import annotations

import io
import logging

import graph.engines.neo4j  # noqa: F401  (installs the filter on the driver's logger)


def _emitted(root_level: int) -> str:
    out = io.StringIO()
    handler = logging.StreamHandler(out)  # level NOTSET, as logging.basicConfig makes it
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(root_level)
    try:
        logging.getLogger("neo4j.notifications").warning("UnknownLabelWarning: SchemaMigration")
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
    return out.getvalue()


def test_a_notification_is_not_shown_at_the_default_level() -> None:
    assert _emitted(logging.WARNING) == ""


def test_a_notification_is_a_debug_record_when_debug_is_on() -> None:
    assert "UnknownLabelWarning" in _emitted(logging.DEBUG)
