"""Calibration against published measurements (TensorRT-LLM performance tables)."""
import json

import pytest

from infersim.cli import main
from infersim.hardware_presets import BASE_GPU_SPECS, CALIBRATION, HW_PRESETS, calibrate
from infersim.validate import MEASUREMENTS, fit_family, predict, run_validation

# Held-out median |error| bound: the published rows themselves carry run-to-run and
# software-version spread of ~10% (TensorRT-LLM reported 7 ms for both GPT-J 6B and Llama 7B
# TTFT, which have 6.05 B and 6.74 B parameters), so 15% is the tightest bound that is not
# fitting noise; today's figure is ~6%.
HELD_OUT_BOUND = 0.15


@pytest.fixture(scope="module")
def report():
    return run_validation()


def test_rows_are_sourced_and_split():
    assert len(MEASUREMENTS) >= 25
    assert all(r.source and r.measured > 0 for r in MEASUREMENTS)
    splits = {r.split for r in MEASUREMENTS}
    assert splits == {"train", "test", "excluded"}
    for fam in ("hopper", "ampere"):
        rows = [r for r in MEASUREMENTS if r.family == fam]
        assert sum(r.split == "test" for r in rows) >= 4
        assert {r.kind for r in rows if r.split == "test"} == {"ttft", "throughput"}
    assert all(r.note for r in MEASUREMENTS if r.split == "excluded")


def test_held_out_error_within_bound(report):
    assert report.median_abs_error("test") <= HELD_OUT_BOUND
    assert report.median_abs_error("train") <= HELD_OUT_BOUND
    # calibration must earn its keep on data it did not see
    assert report.median_abs_error("test") < report.median_abs_error("test", calibrated=False)


@pytest.mark.parametrize("family", ["hopper", "ampere"])
def test_stored_calibration_is_the_fit(family):
    f = fit_family(family)
    assert (f.compute_scale, f.memory_scale, f.kernel_overhead_ns) == pytest.approx(CALIBRATION[family])


def test_grid_fit_matches_scalar_simulate():
    """The fit's vectorized grid evaluation equals simulate() on the calibrated spec."""
    from infersim.validate import S_COMPUTE, S_MEMORY, OVERHEAD_NS, _grid_predictions

    row = next(r for r in MEASUREMENTS if r.kind == "throughput" and r.family == "hopper")
    grid = _grid_predictions(row, BASE_GPU_SPECS["hopper"]).reshape(len(S_COMPUTE), len(S_MEMORY),
                                                                   len(OVERHEAD_NS))
    for ic, im, io in [(0, 0, 0), (6, 25, 13), (len(S_COMPUTE) - 1, 3, 5)]:
        hw = calibrate(BASE_GPU_SPECS["hopper"], S_COMPUTE[ic], S_MEMORY[im], OVERHEAD_NS[io])
        assert predict(row, hw) == pytest.approx(grid[ic, im, io], rel=1e-9)


def test_presets_carry_the_calibration():
    h200 = HW_PRESETS["H200 x8"]
    assert h200.kernel_overhead_ns == CALIBRATION["hopper"][2]
    assert HW_PRESETS["A100-SXM x8"].kernel_overhead_ns == CALIBRATION["ampere"][2]
    assert max(e for _, e in h200.memory_eff) <= 1.0


def test_cli_validate_json(capsys):
    assert main(["validate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["median_abs_error"]["test"] <= HELD_OUT_BOUND
    assert len(doc["rows"]) == len(MEASUREMENTS)
