"""The REM cycle: periodic jobs that consolidate the knowledge graph.

Entry points: `consolidate.runner` (`run_job`, `due_jobs`, `rem_status`, `run_cycle`),
`consolidate.actions` (`review_finding`, `apply_recommended`), `consolidate.service.RemService`
(the `graph.ports.Consolidator` the API uses), `consolidate.worker.run_worker`, and the Typer
commands in `consolidate.cli` (`rem_app`, `worker`). Jobs live in `consolidate.jobs.JOBS`.
"""
