# Quick start:  make run   (co-design sweep on the default model)   |   make test
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# `make run` needs only the core package (numpy, rich, pyyaml); tests and the UI add the extras
FULL   := $(VENV)/.installed-full-stamp

.PHONY: run test bench ui browser clean lowest

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(STAMP)

$(FULL): $(STAMP)
	$(PY) -m pip install -q -e '.[ui,data,dask,test]'
	touch $(FULL)

run: $(STAMP)
	$(VENV)/bin/infersim codesign --model "Llama 3.1 70B" --mode decode --s-kv 131072 --depth balanced

# Debian's Chromium for the end-to-end UI test (Playwright's own browser download is not used).
# Best effort: without root or apt the browser test is skipped with its reason.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ; } \
	  || echo "chromium not installed: the browser test will be skipped"

test: $(FULL) browser
	$(PY) -m pytest -q

# the lowest versions pyproject.toml allows (numpy 2.0), once: the core tests on them
lowest:
	python3 -m venv .venv-lowest
	.venv-lowest/bin/python -m pip install -q 'numpy==2.0.*' 'rich==13.*' 'pyyaml==6.0.*' pytest hypothesis pytest-timeout
	.venv-lowest/bin/python -m pip install -q --no-deps -e .
	.venv-lowest/bin/python -m pytest -q -x tests/test_cost.py tests/test_moe_mla_dtypes.py tests/test_hardening.py

bench: $(FULL)
	$(PY) bench/bench_explore.py
	$(PY) bench/bench_codesign.py
	$(PY) bench/bench_sweep_scale.py

ui: $(FULL)
	$(VENV)/bin/infersim ui

clean:
	rm -rf $(VENV) .venv-lowest build *.egg-info src/*.egg-info .pytest_cache .hypothesis
