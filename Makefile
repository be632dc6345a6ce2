# balancer: `make report` (set up + the default study), `make test` (set up + tests), `make check`
# (set up + the balance regression check of configs/citywright/ci.yaml, appended to its history), `make lint` (ruff + mypy), `make bench`,
# `make bench-compile`, `make bench-cluster`, `make docs` (the documentation site, mkdocs build --strict, into site/), `make example` (the
# example game outside balancer, examples/pig, installed into .venv and tested).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
GAMES  ?= 10000

.PHONY: install dev lint format docs browser report test example check history baseline bench bench-compile bench-cluster clean

install: $(STAMP)

# (Re)install whenever pyproject.toml changes; the package is installed editable with test extras.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The dev tools (ruff, mypy and its stubs, pre-commit) beside the test extras, once per pyproject.toml change.
DEV_STAMP := $(VENV)/.dev-stamp
dev: $(DEV_STAMP)
$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(DEV_STAMP)

# Lint (ruff: pyflakes, pycodestyle, isort, bugbear, pyupgrade), the format check, and mypy on balancer/
# (configured in pyproject.toml; strict on balancer/core/).
lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The documentation site (mkdocs.yml, docs/; MkDocs with the Material theme, the `docs` extra) built into
# site/ with --strict: a broken link or anchor, or a page missing from the nav, fails the build.
DOCS_STAMP := $(VENV)/.docs-stamp
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet -d site

# Rewrite the code in ruff's format and fix what ruff can fix by itself.
format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The import structure read from the source: the floors (parts by the parts they import), circles (none),
# arrows that run back up (none); tests/test_architecture.py holds the code to it.
floors: $(STAMP)
	$(BIN)/python tests/import_graph.py

# The default analysis: 10,000 four-player games of greedy mirror tables under Citywright v1.1.
report: $(STAMP)
	$(BIN)/balancer run configs/citywright/v1.1.yaml --players 4 --agents greedy --games $(GAMES) \
		--seed 1 --jobs -1 --out results/citywright-v1.1 --force
	$(BIN)/balancer report results/citywright-v1.1 -o reports/citywright-v1.1.html

# Two worker processes (pytest-xdist): the suite, fuzzing, browser and Dask tests included, in a few minutes;
# the 15 slowest tests are listed at the end (where `make test`'s time goes, docs/ci.md).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --durations=15

# The example game outside balancer (examples/pig, docs/adding-a-game.md): installed beside balancer, where its
# entry point registers it, then its own tests (balancer's conformance suite, balancer.testing, its rule tests, and
# tests/test_cli.py: every command of the installed `balancer` playing the installed game, by subprocess). .ci/run runs it.
example: $(STAMP)
	$(BIN)/python -m pip install --quiet -e examples/pig
	$(BIN)/python -m pytest -p no:cacheprovider examples/pig/tests

# Debian's Chromium for the browser test of the reports (tests/report/test_browser.py), when missing;
# needs root (apt-get). Playwright drives it; no browser is downloaded.
browser:
	command -v chromium >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	chromium --version

# Balance regression: replay the CI study with a new seed and test it against the committed baseline
# (exit 1 when a tracked number changed, 2 when the study cannot find its tolerance; see docs/statistics.md),
# and append every number, with the commit, to the history file CI_HISTORY (docs/history.md; a CI keeps it
# between runs as a cache or an artifact, see docs/ci-example.yml). The CI study is powered (6,000 games a
# cell find a 5-point change with probability 0.9), so no --allow-underpowered. `make history` draws the
# history as a page. `make baseline` rewrites the baseline after an intended rule change (and records it in
# the history): review its diff before committing it.
CI_STUDY    ?= configs/citywright/ci.yaml
CI_BASELINE ?= baselines/citywright-ci.json
CI_HISTORY  ?= results/history/citywright-ci.duckdb

check: $(STAMP)
	$(BIN)/balancer check $(CI_STUDY) --baseline $(CI_BASELINE) --junit results/check/junit.xml \
		--markdown results/check/summary.md --history $(CI_HISTORY)

history: $(STAMP)
	$(BIN)/balancer history $(CI_HISTORY) -o results/check/history.html

baseline: $(STAMP)
	$(BIN)/balancer baseline save $(CI_STUDY) -o $(CI_BASELINE) --force --history $(CI_HISTORY)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_citywright.py
	$(BIN)/python benchmarks/bench_agueda.py
	$(BIN)/python benchmarks/bench_urgency.py
	$(BIN)/python benchmarks/bench_mcts.py
	$(BIN)/python benchmarks/bench_urban_sketchers.py --players 2 4

# What each game's first greedy and mcts runs compile, per function, from an empty numba cache (about 10 minutes).
bench-compile: $(STAMP)
	$(BIN)/python benchmarks/bench_compile.py

# Throughput of `balancer run --scheduler` on a local Dask cluster, 1 and 2 workers, >= 60 s each.
bench-cluster: $(STAMP)
	$(BIN)/python benchmarks/bench_cluster.py --seconds 60

clean:
	rm -rf results site .pytest_cache .hypothesis
