# Quick start:  make run   (co-design sweep on the default model)   |   make test
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test bench ui browser clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[ui,data,dask,test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/infersim codesign --model "Llama 3.1 70B" --mode decode --s-kv 131072 --depth balanced

# Debian's Chromium for the end-to-end UI test (Playwright's own browser download is not used).
# Best effort: without root or apt the browser test is skipped with its reason.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ; } \
	  || echo "chromium not installed: the browser test will be skipped"

test: $(STAMP) browser
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/bench_explore.py
	$(PY) bench/bench_codesign.py
	$(PY) bench/bench_sweep_scale.py

ui: $(STAMP)
	$(VENV)/bin/infersim ui

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .hypothesis
