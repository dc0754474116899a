# remgraph developer commands. Everything runs inside .venv, created on first use.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export TOKENIZERS_PARALLELISM := false
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test test-unit test-integration lint lint-cypher format typecheck complexity schema check eval bench clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null || { echo "need $(PY) on PATH"; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build of torch first (a local wheel on these machines); anything newer pulls CUDA builds.
	$(BIN)/python -m pip install -q "torch==2.13.0"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP) ## create .venv and install remgraph with dev tools

run: install ## start the embedded engine, ingest the bundled samples, serve the API
	$(BIN)/remgraph up samples/

test: install ## the whole test suite: unit, then integration on the embedded engine
	$(BIN)/pytest -q -m "not integration" tests
	$(BIN)/pytest -q -m integration tests

test-unit: install
	$(BIN)/pytest -q -m "not integration" tests

test-integration: install
	$(BIN)/pytest -q -m integration tests

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports

CYPHER_LINT := tools/cypher-lint

$(CYPHER_LINT)/node_modules/.installed: $(CYPHER_LINT)/package-lock.json
	@command -v npm >/dev/null || { echo "lint-cypher needs node >= 20 and npm on PATH"; exit 1; }
	npm ci --prefix $(CYPHER_LINT) --no-audit --no-fund
	touch $@

lint-cypher: install $(CYPHER_LINT)/node_modules/.installed ## check Neo4j-dialect Cypher with Neo4j's own front end (no server)
	$(BIN)/pytest -q tests/unit/graph/test_neo4j_dialect_lint.py

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: install ## mypy --strict (pinned in the dev extra) over every package and tools/
	$(BIN)/mypy core graph ai knowledge recall api ingest consolidate remgraph tools tests/support

complexity: install ## share of functions over cyclomatic complexity 15 (radon), per package
	$(BIN)/python tools/complexity.py

schema: install ## refresh the committed GraphQL SDL
	$(BIN)/remgraph api export-schema > api/schema.graphql

check: lint typecheck test

eval: install ## LoCoMo retrieval evaluation on the full dev file
	$(BIN)/remgraph eval locomo ../shared/benchmarks/locomo/locomo-dev.json --out bench/results

.PHONY: eval-knowledge
eval-knowledge: install ## what offline synthesis knows, against LoCoMo's annotations (dev file)
	$(BIN)/remgraph eval knowledge ../shared/benchmarks/locomo/locomo-dev.json --out bench/results

bench: install
	$(BIN)/python bench/bench_graph.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
