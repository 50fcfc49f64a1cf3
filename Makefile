# Quick start:  make run   (co-design sweep on the default model)   |   make test
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test bench ui clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[ui,dask,test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/infersim simulate --model "Llama 3.1 70B" --tp 8 --cp 8 --ffn-shard-scope TP+CP --mode decode --s-kv 131072

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/bench_explore.py

ui: $(STAMP)
	$(VENV)/bin/infersim ui

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .hypothesis
