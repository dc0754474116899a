"""`loading_progress` reads the replay progress the engine reports in `INFO persistence`."""

from graph.embedded import BUSY, loading_progress


def test_loading_progress_while_loading() -> None:
    info = b"# Persistence\r\nloading:1\r\nloading_loaded_perc:41.27\r\nloading_eta_seconds:12\r\n"
    assert loading_progress(info) == "41% (eta 12 s)"


def test_not_loading_and_errors_are_none() -> None:
    assert loading_progress(b"# Persistence\r\nloading:0\r\n") is None
    assert loading_progress(b"-NOAUTH Authentication required.\r\n") is None
    assert loading_progress(b"") is None


def test_a_server_that_accepts_but_does_not_answer_is_busy_loading() -> None:
    assert (loading_progress(BUSY) or "").startswith("busy")
