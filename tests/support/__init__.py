"""Reusable scenario code for the tests and the benchmarks (`bench/` imports it, never the reverse).

- `engine`: a private embedded engine, subprocesses, ports, a uvicorn server;
- `corpus`, `generate`: deterministic synthetic transcripts;
- `crash`: graph snapshots and comparison, SIGKILL scenarios (engine during ingest, worker
  mid-consolidation); `worker` is the subprocess they kill;
- `api`: two projects with keys and the queries the API scenarios send, the engine-down scenario;
- `load`: concurrent GraphQL clients during an ingest; `fuzz`: the GraphQL fuzzer and its oracle.
"""
