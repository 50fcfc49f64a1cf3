"""infersim Streamlit UI: Simulate, Explore and Co-design tabs.

Run with ``infersim ui`` (binds 127.0.0.1). Sweeps are cached with ``st.cache_data`` keyed on the
model, hardware and workload, so changing a view never re-runs a sweep. Bad input shows a
message in the tab and the app keeps running.
"""
from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import streamlit as st

from infersim import HardwareSpec, InferSimError, ModelSpec, Parallelism, Workload, simulate
from infersim.auto_explore import OBJECTIVES, auto_explore
from infersim.auto_hardware import DEPTHS, enumerate_hardware, joint_explore
from infersim.autosuggest import autosuggest
from infersim.codesign.answer import answer_lines
from infersim.hardware import KNOBS
from infersim.hardware_presets import DEFAULT_HW, HW_PRESETS
from infersim.model import from_hf_config_text
from infersim.model_presets import DEFAULT_MODEL, PRESETS
from infersim.runtime import DEFAULT_RUNTIME, RUNTIMES
from infersim.parallel import (CP_PLACEMENTS, CP_RING_VARIANTS, FFN_SHARD_SCOPES, KV_SHARD_MODES,
                               TP_PLACEMENTS)
from infersim import plots as charts

UPLOAD = "Upload config.json…"
KNOB_LABELS = {"pe_hbm_gb": "HBM per PE (GB)", "bw_hbm_gbs": "HBM bandwidth (GB/s)",
               "peak_tflops_f16": "Peak fp16 (TFLOPS)", "bw_intra_gbs": "Intra-cube link (GB/s)",
               "bw_inter_gbs": "Inter-cube link (GB/s)", "bw_intersip_gbs": "Inter-SiP link (GB/s)"}


# ----- cached computations (arguments are JSON strings: cheap, stable hashing) -------------------
@st.cache_data(show_spinner=False, max_entries=64)
def cached_explore(model_json: str, hw_json: str, wl_json: str, runtime: str, objective: str):
    model = ModelSpec(**json.loads(model_json))
    hw = HardwareSpec.from_dict(json.loads(hw_json))
    wl = Workload(**json.loads(wl_json))
    res = auto_explore(model, hw, wl, objective=objective, runtime=runtime)
    try:
        sug = autosuggest(model, hw, wl, runtime=runtime)
        pick = {"par": sug.par.to_dict(), "pes": sug.result.pes_used,
                "latency_ms": sug.result.total_latency_ns / 1e6, "reason": sug.reason,
                "fewest": sug.fewest_pes.describe(), "fewest_reason": sug.fewest_pes_reason}
    except InferSimError:
        pick = None
    df = pd.DataFrame(res.rows())
    return df, pick, {"enumerated": res.n_enumerated, "valid": res.n_valid, "fitting": res.n_fitting,
                      "ms": res.elapsed_s * 1e3}


@st.cache_data(show_spinner=False, max_entries=32)
def cached_codesign(model_json: str, hw_json: str, wl_json: str, runtime: str, depth: str, grid_json: str,
                    objective: str):
    model = ModelSpec(**json.loads(model_json))
    hw = HardwareSpec.from_dict(json.loads(hw_json))
    wl = json.loads(wl_json)
    grid = json.loads(grid_json) if depth == "custom" else None
    # the bar lives inside the cached function, so a cache hit replays it in its final state
    bar = st.progress(0.0, text="sweeping hardware candidates")
    res = joint_explore(model, s_kv=wl["s_kv"], mode=wl["mode"], batch=wl["batch"], s_q=wl["s_q"],
                        depth=depth, base_hw=hw, objective=objective, custom=grid, runtime=runtime,
                        progress=lambda done, total: bar.progress(done / total, f"{done}/{total} candidates"))
    bar.progress(1.0, text=f"{res.n_hardware} candidates × {res.n_parallel} configs, "
                           f"{res.total_joint:,} fitting pairs in {res.elapsed_s:.2f} s")
    return res


# ----- sidebar: model, hardware, workload ----------------------------------------------------------
def sidebar_model() -> ModelSpec:
    st.sidebar.header("Model")
    names = list(PRESETS) + [UPLOAD]
    choice = st.sidebar.selectbox("Model preset", names, index=names.index(DEFAULT_MODEL), key="model")
    if choice == UPLOAD:
        up = st.sidebar.file_uploader("HuggingFace config.json", type=["json"], key="config_upload")
        if up is None:
            raise InferSimError("upload a HuggingFace config.json, or pick a preset")
        # content only, never a path: an upload must not open (or probe for) a server file
        model = from_hf_config_text(up.getvalue(), name=up.name.removesuffix(".json") or "custom")
    else:
        model = PRESETS[choice].model
    with st.sidebar.expander("Data types"):
        wdts = ["bf16", "fp16", "fp8", "int8", "int4"]
        wdt = st.selectbox("Weights", wdts, index=wdts.index(model.weight_dtype)
                           if model.weight_dtype in wdts else 0, key="wdtype")
        kdt = st.selectbox("KV cache", ["bf16", "fp16", "fp8", "int8"], key="kvdtype")
        adt = st.selectbox("Activations", ["bf16", "fp16", "fp8"], key="adtype")
    return model.with_dtypes(weight=wdt, act=adt, kv=kdt)


def sidebar_hardware() -> HardwareSpec:
    st.sidebar.header("Hardware")
    names = list(HW_PRESETS)
    hw = HW_PRESETS[st.sidebar.selectbox("Hardware preset", names, index=names.index(DEFAULT_HW),
                                         key="hw")]
    with st.sidebar.expander("Edit knobs and topology"):
        knobs = {k: st.number_input(KNOB_LABELS[k], value=float(getattr(hw, k)), min_value=0.0,
                                    key=f"knob_{k}_{hw.name}") for k in KNOBS}
        topo = {k: int(st.number_input(k, value=getattr(hw, k), min_value=0, step=1,
                                       key=f"topo_{k}_{hw.name}"))
                for k in ("pes_per_cube", "cubes_per_sip", "n_sips")}
    return replace(hw, **knobs, **topo)


def sidebar_runtime() -> str:
    names = list(RUNTIMES)
    return st.sidebar.selectbox(
        "Runtime", names, index=names.index(DEFAULT_RUNTIME), key="runtime",
        help="Software stack: cuda-graphs = graph-captured decode (TensorRT-LLM, vLLM, SGLang); "
             "eager = kernels launched one by one from Python; trtllm-2023 = TensorRT-LLM v0.5/0.6.")


def sidebar_workload() -> Workload:
    st.sidebar.header("Workload")
    mode = st.sidebar.radio("Mode", ["decode", "prefill"], horizontal=True, key="mode")
    s_kv = int(st.sidebar.number_input("Context s_kv (tokens)", value=131072 if mode == "decode" else 32768,
                                       min_value=1, step=1024, key=f"s_kv_{mode}"))
    batch = int(st.sidebar.number_input("Batch (sequences)", value=1, min_value=1, key="batch"))
    s_q = None
    if mode == "prefill":
        sq = int(st.sidebar.number_input("New tokens s_q (0 = all of s_kv)", value=0, min_value=0, key="s_q"))
        s_q = sq or None
    return Workload(mode=mode, s_kv=s_kv, batch=batch, s_q=s_q)


# ----- tabs ---------------------------------------------------------------------------------------
def tab_simulate(model: ModelSpec, hw: HardwareSpec, wl: Workload, runtime: str) -> None:
    pow2 = [p for p in (1, 2, 4, 8, 16, 32, 64, 128, 256) if p <= hw.n_pes]
    c = st.columns(5)
    tp = c[0].selectbox("TP", pow2, index=min(3, len(pow2) - 1), key="sim_tp")
    cp = c[1].selectbox("CP", pow2, key="sim_cp")
    pp = c[2].number_input("PP", value=1, min_value=1, key="sim_pp")
    dp = c[3].number_input("DP", value=1, min_value=1, key="sim_dp")
    ep = c[4].number_input("EP", value=1, min_value=1, key="sim_ep")
    c = st.columns(5)
    kv = c[0].selectbox("KV shard mode", KV_SHARD_MODES, key="sim_kv")
    scope = c[1].selectbox("FFN shard scope", FFN_SHARD_SCOPES, key="sim_scope")
    tpl = c[2].selectbox("TP placement", TP_PLACEMENTS, key="sim_tpl")
    cpl = c[3].selectbox("CP placement", CP_PLACEMENTS, key="sim_cpl")
    ring = c[4].selectbox("CP ring variant", ("default",) + CP_RING_VARIANTS, key="sim_ring")
    par = Parallelism(tp=int(tp), cp=int(cp), pp=int(pp), dp=int(dp), ep=int(ep), kv_shard_mode=kv,
                      ffn_shard_scope=scope, tp_placement=tpl, cp_placement=cpl,
                      cp_ring_variant=None if ring == "default" else ring)
    r = simulate(model, hw, par, wl, runtime=runtime)
    m = st.columns(4)
    m[0].metric("Latency", f"{r.total_latency_ns / 1e6:.3f} ms")
    m[1].metric("Bound", r.bound)
    m[2].metric("Memory per PE", f"{r.mem_per_pe_bytes / 1e9:.2f} GB",
                "fits" if r.fits else "does not fit", delta_color="normal" if r.fits else "inverse")
    m[3].metric(f"Throughput ({r.pes_used} PEs)", f"{r.tokens_per_s:,.1f} tok/s")
    st.plotly_chart(charts.breakdown_bar(r.breakdown_ns, f"{r.par.describe()} — {r.total_latency_ns / 1e6:.3f} ms"),
                    key="sim_breakdown")
    st.plotly_chart(charts.memory_bar(r.mem_breakdown_bytes, r.mem_capacity_bytes, hw.pe_hbm_gb * 1e9),
                    key="sim_memory")
    table = pd.DataFrame([{"component": k, "ms": v / 1e6, "share %": 100 * v / r.total_latency_ns}
                          for k, v in r.breakdown_ns.items() if v > 0]).sort_values("ms", ascending=False)
    st.dataframe(table, hide_index=True, key="sim_table")


def tab_explore(model: ModelSpec, hw: HardwareSpec, wl: Workload, keys: tuple[str, ...]) -> None:
    objective = st.selectbox("Objective", OBJECTIVES, key="ex_objective")
    top = int(st.number_input("Rows shown", value=25, min_value=1, key="ex_top"))
    df, pick, counts = cached_explore(*keys, objective)
    if df.empty:
        raise InferSimError(f"no parallelism fits {hw.name} for this workload "
                            f"({counts['valid']} valid configs tried)")
    st.caption(f"{counts['enumerated']:,} enumerated → {counts['valid']:,} valid → {counts['fitting']:,} fit; "
               f"full space searched in {counts['ms']:.1f} ms")
    st.dataframe(df.head(top), hide_index=True, key="explore_table")
    picks = {"autosuggest (least memory)": pick} if pick else None
    st.plotly_chart(charts.explore_scatter(df, picks), key="explore_scatter")
    if pick:
        st.info(f"autosuggest: {Parallelism(**pick['par']).describe()} "
                f"({pick['par']['kv_shard_mode']}) — {pick['reason']}. Fewest PEs: {pick['fewest']} — "
                f"{pick['fewest_reason']}.")


def parse_values(text: str, knob: str) -> list[float]:
    try:
        vals = [float(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError:
        raise InferSimError(f"{knob}: values must be numbers separated by commas, got {text!r}") from None
    return vals


def tab_codesign(hw: HardwareSpec, keys: tuple[str, ...]) -> None:
    c = st.columns(3)
    depth = c[0].selectbox("Depth", DEPTHS, index=DEPTHS.index("balanced"), key="cd_depth")
    objective = c[1].selectbox("Objective", OBJECTIVES, key="cd_objective")
    grid: dict[str, list[float]] = {}
    if depth == "custom":
        st.caption("Custom grid: comma-separated values per knob (empty = base value).")
        cols = st.columns(3)
        for i, k in enumerate(KNOBS):
            text = cols[i % 3].text_input(KNOB_LABELS[k], value="" if i else
                                          f"{hw.bw_hbm_gbs / 2:g},{hw.bw_hbm_gbs:g},{2 * hw.bw_hbm_gbs:g}"
                                          if k == "bw_hbm_gbs" else "", key=f"grid_{k}")
            if text.strip():
                grid[k] = parse_values(text, k)
        if not grid:
            raise InferSimError("the custom grid is empty: give values for at least one knob")
    n = len(enumerate_hardware(depth, grid or None, base=hw.knobs()))
    c[2].metric("Hardware candidates", f"{n:,}")
    if st.button("Run co-design sweep", key="cd_run", type="primary"):
        st.session_state["cd_requested"] = True
    if not st.session_state.get("cd_requested"):
        st.info("Press **Run co-design sweep**: every candidate searches the full parallelism space.")
        return
    res = cached_codesign(*keys, depth, json.dumps(grid, sort_keys=True), objective)
    first, second = answer_lines(res.answer())
    st.success(first.replace("Answer:", "**Answer:**", 1))
    st.caption(second)
    all_df = pd.DataFrame([s.to_dict() for s in res.all_scores])
    pareto_df = pd.DataFrame([s.to_dict() for s in res.pareto_scores])
    left, right = st.columns([3, 2])
    left.plotly_chart(charts.codesign_pareto(all_df, pareto_df), key="pareto_chart")
    right.plotly_chart(charts.sensitivity_bar(res.sensitivity), key="sensitivity_chart")
    st.subheader("Pareto frontier")
    st.dataframe(pareto_df, hide_index=True, key="pareto_table")
    b = res.best
    st.subheader(f"Best hardware — {b.total_latency_ns / 1e6:.3f} ms with {b.par.describe()}")
    st.dataframe(pd.DataFrame([{"knob": k, "value": v, "× default": v / hw.knobs()[k]}
                               for k, v in b.hw.knobs().items()]), hide_index=True, key="best_hw_table")
    st.dataframe(pd.DataFrame([vars(r) for r in res.sensitivity]), hide_index=True, key="sensitivity_table")
    d1, d2 = st.columns(2)
    d1.download_button("Download pairs (CSV)", all_df.to_csv(index=False), "codesign_pairs.csv",
                       "text/csv", key="dl_csv")
    d2.download_button("Download result (JSON)", json.dumps({
        "pareto": pareto_df.to_dict("records"), "sensitivity": [vars(r) for r in res.sensitivity],
        "best": b.to_dict(), "total_joint": res.total_joint}, indent=2, default=str),
        "codesign.json", "application/json", key="dl_json")


def guarded(fn, *args) -> None:
    """Run one tab; bad input becomes a message, the rest of the app keeps working."""
    try:
        fn(*args)
    except InferSimError as exc:
        st.error(str(exc))


def main() -> None:
    st.set_page_config(page_title="infersim", layout="wide")
    st.title("infersim — LLM inference simulator and hardware co-design")
    try:
        model = sidebar_model()
        hw = sidebar_hardware()
        wl = sidebar_workload()
        runtime = sidebar_runtime()
    except InferSimError as exc:
        st.error(str(exc))
        st.stop()
        return
    st.caption(f"{model.name}: {model.param_count() / 1e9:.2f} B params · {hw.name}: {hw.n_pes} PEs "
               f"({hw.pes_per_cube}×{hw.cubes_per_sip}×{hw.n_sips}) · {wl.mode} s_kv={wl.s_kv} batch={wl.batch}")
    keys = (json.dumps(model.to_dict(), sort_keys=True), json.dumps(hw.to_dict(), sort_keys=True),
            json.dumps({"mode": wl.mode, "s_kv": wl.s_kv, "batch": wl.batch, "s_q": wl.s_q}), runtime)
    t_sim, t_exp, t_cd = st.tabs(["Simulate", "Explore", "Co-design"])
    with t_sim:
        guarded(tab_simulate, model, hw, wl, runtime)
    with t_exp:
        guarded(tab_explore, model, hw, wl, keys)
    with t_cd:
        guarded(tab_codesign, hw, keys)


main()
