# Two commands do all set-up on a fresh machine: `make demo` and `make test`
# (the venv gets apache-tvm for the Relax side; `make fixtures` adds torch + transformers).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint clean fixtures fuzz fuzz-relax

$(BIN)/aliaslog: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,relax,dask]'
	touch $@

demo: $(BIN)/aliaslog
	$(BIN)/aliaslog demo tests/data/seed_issue_program.relay

test: $(BIN)/aliaslog
	$(BIN)/ruff check aliaslog extractor tests benchmarks conformance
	ALIASLOG_REQUIRE_TVM=1 $(BIN)/python -m pytest -q

lint: $(BIN)/aliaslog
	$(BIN)/ruff check aliaslog extractor tests benchmarks conformance

# Random programs through the analysis property checks (tests/support/fuzz_main.py); failures
# are saved under tests/data/regressions/, which `make test` replays.
N ?= 1000
JOBS ?= 1
fuzz: $(BIN)/aliaslog
	$(BIN)/python -m tests.support.fuzz_main --n $(N) --jobs $(JOBS)

# Random Relax modules built and run on TVM's VM against their reference semantics, each
# checked by `aliaslog check` (tests/support/fuzz_relax.py); counterexamples are shrunk and
# saved under tests/data/relax/regressions/, which `make test` replays. START: the first seed.
START ?= 0
fuzz-relax: $(BIN)/aliaslog
	$(BIN)/python -m tests.support.fuzz_relax --n $(N) --start $(START) --jobs $(JOBS)

fixtures: $(BIN)/aliaslog
	$(BIN)/pip install -q -e '.[zoo]'
	$(BIN)/python -m aliaslog.relax.export -o tests/data/relax

clean:
	rm -rf $(VENV) build *.egg-info
