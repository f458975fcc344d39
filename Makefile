# The README's two commands: `make run` and `make test`. Both bootstrap .venv on a
# fresh machine from pyproject.toml; nothing else needs to be installed first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
EVAL ?= ../shared/eval

.PHONY: run test lint typecheck unit browser install uninstall docs-coverage perf eval eval-es eval-fr eval-ar eval-coded taxonomy-forms screenshots clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The analyst workbench on the embedded SQLite default (the user data directory).
run: $(STAMP)
	$(BIN)/harmwatch tui

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

# Two worker processes (pytest-xdist), one file per worker at a time so module-scoped servers
# start once: the suite's end-to-end tests spend most of their time waiting on subprocesses.
# The modules that classify in every language are one group on one worker (tests/conftest.py,
# ALL_LANGUAGE_MODULES): each worker that runs them compiles nearly the whole taxonomy; a 32 MB
# RE2 budget per program (engine/text/re2x.py) keeps two such workers inside 24 GB.
# The 25 slowest tests are listed at the end, so a CI log shows where the 15-minute budget goes.
PYTEST_WORKERS ?= 2
unit: $(STAMP) browser
	HARMWATCH_REGEX_MAX_MEM_MB=32 $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=25

# Headless Chromium (Debian package) for tests/test_api_browser.py, installed when running as
# root with apt-get; without it that test skips with the reason (and fails under CI=true).
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || \
		  { apt-get update -qq >/dev/null 2>&1 && \
		    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; }; }; } || \
		echo "chromium not installed: the browser test of /docs skips (fails under CI=true)"

# `harmwatch` on the user's PATH without activating .venv: a symlink in BINDIR to the venv's
# console script (its interpreter is the venv's, so it runs from anywhere). `make uninstall`
# removes the link only if it is this checkout's.
BINDIR ?= $(HOME)/.local/bin
install: $(STAMP)
	@mkdir -p "$(BINDIR)"
	@ln -sfn "$(abspath $(BIN))/harmwatch" "$(BINDIR)/harmwatch"
	@echo "installed $(BINDIR)/harmwatch -> $(abspath $(BIN))/harmwatch"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; \
		*) echo "$(BINDIR) is not on your PATH: add  export PATH=\"$(BINDIR):\$$PATH\"  to ~/.profile";; esac

uninstall:
	@if [ "$$(readlink "$(BINDIR)/harmwatch")" = "$(abspath $(BIN))/harmwatch" ]; then \
		rm "$(BINDIR)/harmwatch" && echo "removed $(BINDIR)/harmwatch"; \
	else echo "$(BINDIR)/harmwatch is not this checkout's link; left alone"; fi

test: lint typecheck unit

# The API section's load generator is wrk (Debian package) when it can be installed;
# without it the section falls back to an async httpx client and says so in the report.
perf: $(STAMP)
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
		{ apt-get install -y -qq wrk >/dev/null 2>&1 || \
		  { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq wrk >/dev/null 2>&1; }; }; } || \
		echo "wrk not installed: the API figures use the httpx load generator"
	$(BIN)/python -m tests.perf.run --output perf-report.json

eval: $(STAMP)
	$(BIN)/harmwatch validate custom $(EVAL)/hatecheck/hatecheck_scoped.csv \
		--text-col test_case --label-col eval_label --positive positive --negative negative \
		--group-col functionality --markdown

eval-es: $(STAMP)
	$(BIN)/harmwatch validate custom $(EVAL)/mhc_es/mhc_spanish_scoped.csv \
		--text-col test_case --label-col eval_label --positive positive --negative negative \
		--group-col functionality --default-language es --markdown

eval-fr: $(STAMP)
	$(BIN)/harmwatch validate custom $(EVAL)/mhc_fr_dev/mhc_french_dev.csv \
		--text-col test_case --label-col eval_label --positive positive --negative negative \
		--group-col functionality --default-language fr --markdown

eval-ar: $(STAMP)
	$(BIN)/harmwatch validate custom $(EVAL)/mhc_ar_dev/mhc_arabic_dev.csv \
		--text-col test_case --label-col eval_label --positive positive --negative negative \
		--group-col functionality --default-language ar --markdown

# Coded-language recall: every group-naming glossary term substituted for the group
# word of the English HateCheck positives, and the flag rate on benign uses of the terms.
eval-coded: $(STAMP)
	$(BIN)/python -m tests.eval.coded --glossary $(EVAL)/dogwhistles/glossary.tsv

# The morphology layer's generated forms (taxonomy/forms/<code>.yaml) from each pack's
# `words:`; loading refuses a stale or hand-edited file (docs/taxonomy-format.md).
taxonomy-forms: $(STAMP)
	$(BIN)/python -m engine.rules.formgen

# docs/coverage.md, the language-coverage matrix, from the taxonomy (tests/test_docs_pages.py
# fails when the committed page and the taxonomy disagree).
docs-coverage: $(STAMP)
	$(BIN)/python -m engine.coverage --write docs/coverage.md

# SVG pictures of every workbench screen, rendered headless by the app factory the tests use.
screenshots: $(STAMP)
	$(BIN)/python -m tests.tui.screenshots --output screenshots

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache perf-report.json
