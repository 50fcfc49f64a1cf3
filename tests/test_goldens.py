"""Pinned cost-model outputs (goldens) and a guard that the comparison can fail."""
import copy
import json

import numpy as np
import pytest

from golden_cases import CASES
from pin_goldens import PATH, record

GOLDENS = json.loads(PATH.read_text())
RTOL = 1e-12


def mismatches(expected: dict, got: dict, prefix: str = "") -> list[str]:
    """Every key whose value differs beyond RTOL (nested dicts walked, missing keys reported)."""
    out = []
    for k in sorted(set(expected) | set(got)):
        if k not in expected or k not in got:
            out.append(f"{prefix}{k}: missing")
        elif isinstance(expected[k], dict):
            out += mismatches(expected[k], got[k], f"{prefix}{k}.")
        elif isinstance(expected[k], (bool, str)):
            if expected[k] != got[k]:
                out.append(f"{prefix}{k}: {expected[k]!r} != {got[k]!r}")
        elif not np.isclose(got[k], expected[k], rtol=RTOL, atol=0.0):
            out.append(f"{prefix}{k}: {expected[k]!r} != {got[k]!r}")
    return out


def test_every_case_has_a_golden():
    assert set(GOLDENS) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    assert mismatches(GOLDENS[name], record(name)) == []


def test_doctored_golden_fails():
    name = sorted(CASES)[0]
    got = record(name)
    bad = copy.deepcopy(GOLDENS[name])
    bad["total_latency_ns"] *= 1.05
    assert mismatches(bad, got) == ["total_latency_ns: " + f"{bad['total_latency_ns']!r} != {got['total_latency_ns']!r}"]
    part = next(iter(bad["op_times_ns"]))
    bad = copy.deepcopy(GOLDENS[name])
    bad["op_times_ns"][part] *= 0.95
    assert len(mismatches(bad, got)) == 1
