# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint clean

$(BIN)/aliaslog: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

demo: $(BIN)/aliaslog
	$(BIN)/aliaslog demo tests/data/seed_issue_program.relay

test: $(BIN)/aliaslog
	$(BIN)/ruff check aliaslog extractor tests benchmarks
	$(BIN)/python -m pytest -q

lint: $(BIN)/aliaslog
	$(BIN)/ruff check aliaslog extractor tests benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
