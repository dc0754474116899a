from ingest.cli import extraction_lines


def test_summary_says_when_extraction_is_still_queued() -> None:
    # `ingest --no-wait-embeddings`: the run queued two sessions, the drain has not run yet.
    queued = {"extractor": "offline", "sessions": 0, "queued": 2}
    assert extraction_lines(queued) == [
        "extraction: offline, 0 sessions (2 queued for the backlog drain)"
    ]
    # Waited: every queued session was extracted by the drain, nothing more to say.
    done = {"extractor": "offline", "sessions": 2, "queued": 2}
    assert extraction_lines(done) == ["extraction: offline, 2 sessions"]
