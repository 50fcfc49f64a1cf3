"""The sourced cost and power model and the dollars / watts of co-design pairs."""
import math
from dataclasses import fields, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infersim import InferSimError
from infersim.auto_hardware import joint_explore
from infersim.codesign.economics import (
    HOURS_PER_YEAR,
    NODES,
    PUBLISHED,
    SOURCES,
    Economics,
    cogs_usd,
    hardware_economics,
    pe_economics,
    published_part,
)
from infersim.hardware_presets import GENERIC_SIP, HW_PRESETS
from infersim.specs.hardware import KNOBS

#: Silicon Analysts / Raymond James manufacturing-cost estimates (research, cost_model).
COGS_USD = {"H100-SXM x8": 3320, "H200 x8": 4250, "B200 x8": 6400, "MI300X x8": 5300}
TDP_W = {"H100-SXM x8": 700, "H200 x8": 700, "B200 x8": 1000, "MI300X x8": 750}


def test_every_coefficient_states_its_source():
    for f in fields(Economics):
        assert len(SOURCES.get(f.name, "")) > 20, f.name
    for node in NODES.values():
        assert node.source and node.die_usd_per_tflops > 0 and node.w_per_tflops > 0
    for _, part in PUBLISHED:
        assert part.source and part.node in NODES


@pytest.mark.parametrize("name", ["H100-SXM x8", "H100-SXM 4x8 (IB)", "H200 x8", "A100-SXM x8",
                                  "B200 x8", "MI300X x8"])
def test_presets_are_priced_at_their_published_price_and_tdp(name):
    hw = HW_PRESETS[name]
    part = published_part(name)
    e = hardware_economics(hw)
    assert e["pe_usd"] == pytest.approx(part.price_usd) and e["pe_w"] == pytest.approx(part.tdp_w)
    assert e["system_w"] == pytest.approx(part.tdp_w * Economics().server_power_multiplier)


@pytest.mark.parametrize("name", list(COGS_USD))
def test_parametric_model_is_near_published_cost_and_tdp(name):
    """Unanchored, at each part's own node: manufacturing cost within 20% of the analysts'
    estimates, TDP within 25% of the datasheet."""
    hw = HW_PRESETS[name]
    e = Economics(anchor_published=False, node=published_part(name).node)
    cogs = cogs_usd(hw.knobs(), NODES[e.node], e)
    assert cogs == pytest.approx(COGS_USD[name], rel=0.20)
    assert hardware_economics(hw, econ=e)["pe_w"] == pytest.approx(TDP_W[name], rel=0.25)


def test_link_levels_are_paid_only_where_the_topology_has_them():
    one, four = HW_PRESETS["H100-SXM x8"], HW_PRESETS["H100-SXM 4x8 (IB)"]
    e = Economics()
    a, b = hardware_economics(one), hardware_economics(four)
    assert a["pe_usd"] == pytest.approx(b["pe_usd"])                  # same GPU
    assert b["capex_usd"] - a["capex_usd"] == pytest.approx(e.scaleout_usd_per_gbs * 2 * one.bw_intersip_gbs)
    assert a["capex_usd"] == pytest.approx(a["pe_usd"] + e.host_usd_per_pe)


def test_tco_formula_and_utilisation():
    e = Economics()
    g = hardware_economics(GENERIC_SIP)
    expect = (g["capex_usd"] / (e.lifetime_years * HOURS_PER_YEAR)
              + g["system_w"] / 1e3 * e.avg_power_fraction * e.pue * e.usd_per_kwh)
    assert g["usd_per_h"] == pytest.approx(expect)
    half = hardware_economics(GENERIC_SIP, econ=replace(e, utilisation=0.5))
    assert half["usd_per_h"] == pytest.approx(2 * g["usd_per_h"])


def test_doubling_a_knob_never_makes_a_pe_cheaper_or_cooler():
    base = np.array([[GENERIC_SIP.knobs()[k] for k in KNOBS]])
    topo = np.array([[4, 4, 4]])
    b = pe_economics(base, topo, GENERIC_SIP)
    for j in range(len(KNOBS)):
        up = base.copy()
        up[0, j] *= 2
        d = pe_economics(up, topo, GENERIC_SIP)
        assert d.capex_usd[0] > b.capex_usd[0]
        assert d.pe_w[0] >= b.pe_w[0]


@pytest.mark.parametrize("field, value, needle", [
    ("hbm_usd_per_gb", -1.0, "hbm_usd_per_gb must be a finite number >= 0"),
    ("lifetime_years", 0.0, "lifetime_years must be > 0"),
    ("utilisation", 1.5, "utilisation"),
    ("node", "3nm-dreams", "valid choices: 4NP-blackwell"),
])
def test_bad_economics_is_one_line(field, value, needle):
    with pytest.raises(InferSimError, match=needle) as e:
        Economics(**{field: value})
    assert "\n" not in str(e.value)


@pytest.fixture(scope="module")
def all_pairs(llama70b):
    grid = {"bw_hbm_gbs": [2000, 4000], "pe_hbm_gb": [48, 96], "bw_intersip_gbs": [50, 100]}
    return joint_explore(llama70b, s_kv=32768, depth="custom", custom=grid, keep="all",
                         objective="tok_s_per_usd", sensitivity=False)


def test_system_cost_and_power_are_proportional_to_pes(all_pairs):
    per_hw, econ = {}, {}
    for s in all_pairs.all_scores:
        per_hw.setdefault(s.hw, set()).add(s.pes)
        if s.hw not in econ:
            econ[s.hw] = hardware_economics(s.hw.to_hardware(GENERIC_SIP), GENERIC_SIP)
        e = econ[s.hw]
        assert s.system_cost_usd == pytest.approx(s.pes * e["capex_usd"], rel=1e-12)
        assert s.system_power_w == pytest.approx(s.pes * e["system_w"], rel=1e-12)
        assert s.tco_usd_per_h == pytest.approx(s.pes * e["usd_per_h"], rel=1e-12)
    assert all(len(p) > 3 for p in per_hw.values())          # several PE counts per hardware


def test_tokens_per_dollar_objective(all_pairs):
    r = all_pairs
    s = r.best
    assert s.objective_value == pytest.approx(s.tokens_per_usd, rel=1e-12)
    assert s.tokens_per_usd == pytest.approx(s.tokens_per_s * 3600 / s.tco_usd_per_h)
    assert s.tokens_per_usd == max(x.tokens_per_usd for x in r.all_scores)
    d = s.to_dict()
    for key in ("system_cost_usd", "system_power_w", "tco_usd_per_h", "tokens_per_usd", "tokens_per_j",
                "cost_score", "objective_value"):
        assert key in d and math.isfinite(d[key])
    # the $ frontier holds the cheapest pair and the best tokens per dollar
    front = r.pareto_usd_scores
    assert front[0] is s
    assert min(p.system_cost_usd for p in front) == min(x.system_cost_usd for x in r.all_scores)


def test_cost_score_stays_the_seed_capability_score(all_pairs):
    for s in all_pairs.all_scores[:50]:
        assert s.cost_score == sum(getattr(s.hw, k) / GENERIC_SIP.knobs()[k] for k in KNOBS)
        assert s.cost_score == s.hw.cost_score


def test_custom_economics_flow_into_the_sweep(llama70b):
    cheap_power = joint_explore(llama70b, s_kv=32768, depth="two_stage", sensitivity=False,
                                economics=Economics(usd_per_kwh=0.0))
    normal = joint_explore(llama70b, s_kv=32768, depth="two_stage", sensitivity=False)
    assert cheap_power.best.tco_usd_per_h < normal.best.tco_usd_per_h
    assert cheap_power.best.system_cost_usd == normal.best.system_cost_usd
    with pytest.raises(InferSimError, match="economics must be"):
        joint_explore(llama70b, depth="two_stage", economics={"usd_per_kwh": 0.1})


#: Coefficients that are prices (of parts, energy or overheads): raising one may never make a token
#: cheaper. ``lifetime_years`` and ``utilisation`` spread the cost over more tokens: not prices.
PRICE_COEFFICIENTS = tuple(f.name for f in fields(Economics)
                           if f.name not in ("node", "anchor_published", "lifetime_years", "utilisation"))
PRICED = ("Generic SiP (default)", "H100-SXM x8", "H200 2x8 (IB)", "B200 x8", "A100-SXM x8", "MI300X x8")


@settings(max_examples=200, deadline=None)
@given(hw=st.sampled_from(PRICED), coef=st.sampled_from(PRICE_COEFFICIENTS),
       rise=st.floats(1.01, 3.0), mults=st.lists(st.sampled_from((0.25, 0.5, 1.0, 2.0, 4.0)),
                                                min_size=len(KNOBS), max_size=len(KNOBS)))
def test_tokens_per_dollar_never_rise_with_a_price(hw, coef, rise, mults):
    """At fixed performance, tokens per dollar ∝ 1 / TCO per PE-hour: raising any price
    coefficient (on presets with a published price too, which the model anchors) never lowers
    the TCO, the capex or the power of any candidate."""
    base = HW_PRESETS[hw]
    e0 = Economics()
    v = getattr(e0, coef)
    bounded = {"idle_fraction": 0.95, "avg_power_fraction": 1.0}
    e1 = replace(e0, **{coef: min(v * rise if v else rise - 1.0, bounded.get(coef, math.inf))})
    knobs = np.array([[m * base.knobs()[k] for m, k in zip(mults, KNOBS)]])
    topo = np.array([[base.pes_per_cube, base.cubes_per_sip, base.n_sips]])
    a, b = pe_economics(knobs, topo, base, e0), pe_economics(knobs, topo, base, e1)
    for part in ("usd_per_h", "capex_usd", "system_w"):
        assert getattr(b, part)[0] >= getattr(a, part)[0] * (1 - 1e-12), (hw, coef, part)


def test_anchored_presets_keep_their_published_price_at_their_own_knobs():
    for name in ("H100-SXM x8", "MI300X x8", "B200 x8"):
        hw = HW_PRESETS[name]
        part = published_part(name)
        knobs = np.array([[hw.knobs()[k] for k in KNOBS]])
        topo = np.array([[hw.pes_per_cube, hw.cubes_per_sip, hw.n_sips]])
        pe = pe_economics(knobs, topo, hw)
        assert pe.pe_usd[0] == pytest.approx(part.price_usd) and pe.pe_w[0] == pytest.approx(part.tdp_w)
