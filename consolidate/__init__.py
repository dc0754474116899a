"""The REM cycle: periodic jobs that consolidate the knowledge graph.

Entry points: `consolidate.runner` (`run_job`, `due_jobs`, `rem_status`, `run_cycle`),
`consolidate.actions` (`review_finding`, `apply_recommended`), `consolidate.service.RemService`
(what the API's `Consolidator` port needs), `consolidate.worker.run_worker`, and the Typer
commands in `consolidate.cli` (`rem_app`, `worker`). Jobs live in `consolidate.jobs.JOBS`.
"""
