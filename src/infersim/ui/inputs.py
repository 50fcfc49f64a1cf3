"""The sidebar: model (preset or uploaded config.json), hardware (preset or uploaded hardware
file, knobs and system size editable), workload and runtime. Uploads are parsed as content,
never opened as server paths."""
from __future__ import annotations

import json
from dataclasses import dataclass, replace

import streamlit as st

from infersim import HardwareSpec, InferSimError, ModelSpec, Workload
from infersim.errors import MAX_NAME_CHARS
from infersim.loaders.hf_model import model_from_hf_config_text
from infersim.presets.hardware_presets import DEFAULT_HW, HW_PRESETS, spec_from_text
from infersim.presets.model_presets import DEFAULT_MODEL, PRESETS
from infersim.presets.runtime_presets import DEFAULT_RUNTIME, RUNTIMES
from infersim.specs.hardware import KNOB_RANGE, KNOBS
from infersim.ui import widgets as w

UPLOAD = "Upload config.json…"
UPLOAD_HW = "Upload hardware file…"
AS_MODEL = "as the model"
KNOB_LABELS = {"pe_hbm_gb": "HBM per PE (GB)", "bw_hbm_gbs": "HBM bandwidth (GB/s)",
               "peak_tflops_f16": "Peak fp16 (TFLOPS)", "bw_intra_gbs": "Intra-cube link (GB/s)",
               "bw_inter_gbs": "Inter-cube link (GB/s)", "bw_intersip_gbs": "Inter-SiP link (GB/s)"}
TOPO_LABELS = {"pes_per_cube": "PEs per cube", "cubes_per_sip": "Cubes per SiP", "n_sips": "SiPs (nodes)"}
#: the same fields in a name or a sentence, with their unit
SHORT_LABELS = {"pe_hbm_gb": ("HBM", "GB"), "bw_hbm_gbs": ("HBM", "GB/s"), "peak_tflops_f16": ("fp16", "TFLOPS"),
                "bw_intra_gbs": ("intra-cube links", "GB/s"), "bw_inter_gbs": ("inter-cube links", "GB/s"),
                "bw_intersip_gbs": ("inter-SiP links", "GB/s"), "pes_per_cube": ("PEs per cube", ""),
                "cubes_per_sip": ("cubes per SiP", ""), "n_sips": ("SiPs", "")}


def knob_text(k: str, v: float) -> str:
    """``HBM 6,700 GB/s``, ``PEs per cube 4``: a knob or size with its unit, in words."""
    label, unit = SHORT_LABELS[k]
    return f"{label} {v:,g} {unit}".rstrip()


EDITED = ", edited: "        #: between a preset's name and its edits in an edited spec's name


class SidebarError(InferSimError):
    """A sidebar value is invalid; its message is already shown beside the field."""


@dataclass(frozen=True)
class Inputs:
    """What the sidebar says: ``hw`` with the edits, ``base_hw`` as loaded (its name anchors the
    cost model; "× default" is relative to it); ``wl`` is None when the workload is invalid
    (``wl_error`` says why: the Serving tab does not need it)."""

    model: ModelSpec
    hw: HardwareSpec
    base_hw: HardwareSpec
    runtime: str
    wl: Workload | None
    wl_error: str | None

    def stamp(self, with_workload: bool = True, **extra) -> str:
        """A fingerprint of the inputs a result depends on (stale-result check)."""
        wl = None if self.wl is None or not with_workload else [self.wl.mode, self.wl.s_kv, self.wl.batch,
                                                               self.wl.s_q]
        return json.dumps({"model": self.model.to_dict(), "hw": self.hw.to_dict(), "wl": wl,
                           "runtime": self.runtime, **extra}, sort_keys=True, default=str)

    def workload_dict(self) -> dict:
        return {"mode": self.wl.mode, "s_kv": self.wl.s_kv, "batch": self.wl.batch, "s_q": self.wl.s_q}


def sidebar_model() -> ModelSpec:
    sb = st.sidebar
    sb.header("Model")
    choice = w.select(sb, "Model preset", list(PRESETS) + [UPLOAD], "model", DEFAULT_MODEL)
    if choice == UPLOAD:
        up = w.uploader(sb, "HuggingFace config.json", "config_upload", ["json"], "config_upload")
        if up is None:
            raise InferSimError("upload a HuggingFace config.json, or pick a preset")
        # content only, never a path: an upload must not open (or probe for) a server file
        model = model_from_hf_config_text(up.getvalue(), name=up.name.removesuffix(".json") or "custom")
    else:
        model = PRESETS[choice].model
    with sb.expander("Data types"):
        wdt = w.select(st, "Weights", [AS_MODEL, "bf16", "fp16", "fp8", "int8", "int4"], "wdtype")
        kdt = w.select(st, "KV cache", [AS_MODEL, "bf16", "fp16", "fp8", "int8"], "kvdtype")
        adt = w.select(st, "Activations", [AS_MODEL, "bf16", "fp16", "fp8"], "adtype")
        hdt = w.select(st, "Embedding and LM head", [AS_MODEL, "bf16", "fp16", "fp8", "int8", "int4"], "hdtype")
    pick = lambda v: None if v == AS_MODEL else v  # noqa: E731
    return model.with_dtypes(weight=pick(wdt), act=pick(adt), kv=pick(kdt), head=pick(hdt))


def sidebar_hardware() -> tuple[HardwareSpec, HardwareSpec]:
    """(edited hardware, hardware as loaded)."""
    sb = st.sidebar
    sb.header("Hardware")
    choice = w.select(sb, "Hardware preset", list(HW_PRESETS) + [UPLOAD_HW], "hw", DEFAULT_HW)
    if choice == UPLOAD_HW:
        up = w.uploader(sb, "Hardware file (.toml, .json, .yaml)", "hw_upload", ["toml", "json", "yaml", "yml"],
                        "hw_upload")
        if up is None:
            raise InferSimError("upload a hardware file (.toml/.json/.yaml, see docs/hardware.md), "
                                "or pick a preset")
        base = spec_from_text(up.getvalue(), up.name)     # content only, never a server path
    else:
        base = HW_PRESETS[choice]
    lo, hi = KNOB_RANGE
    edits = edited(base, {k: st.session_state.get(f"knob_{k}_{base.name}", getattr(base, k)) for k in KNOBS},
                   {k: st.session_state.get(f"topo_{k}_{base.name}", getattr(base, k)) for k in TOPO_LABELS})
    # expanded while edited: the edits feed every run, so they must not hide in a closed expander
    with sb.expander("Edit knobs and system size" + (" (edited)" if edits else ""), expanded=bool(edits)):
        knobs = {k: float(w.number(st, KNOB_LABELS[k], f"knob_{k}_{base.name}", float(getattr(base, k)),
                                   help_key=k, step=None, format="%g", min_value=lo, max_value=hi))
                 for k in KNOBS}
        topo = {k: int(w.number(st, TOPO_LABELS[k], f"topo_{k}_{base.name}", int(getattr(base, k)),
                                help_key=k, step=1, min_value=1, max_value=1 << 16)) for k in TOPO_LABELS}
        if edits:
            st.button("Reset to the preset", key="btn_hw_reset", on_click=reset_hardware, args=(base,),
                      icon=":material/restart_alt:", help=f"Put every knob and the system size back to {base.name}'s.")
    edits = edited(base, knobs, topo)
    if not edits:
        return base, base
    try:
        hw = replace(base, **knobs, **topo, name=edited_name(base.name, edits))
    except InferSimError as exc:        # beside the fields; the caller keeps the last good results
        sb.error(w.one_line(exc))
        raise SidebarError(str(exc)) from None
    sb.caption(f"**{hw.name}**")
    return hw, base


def edited(base: HardwareSpec, knobs: dict, topo: dict) -> dict[str, tuple]:
    """{field: (base value, edited value)} for the knobs and system sizes that differ from ``base``."""
    out = {k: (float(getattr(base, k)), float(v)) for k, v in knobs.items() if float(v) != float(getattr(base, k))}
    out.update({k: (int(getattr(base, k)), int(v)) for k, v in topo.items() if int(v) != int(getattr(base, k))})
    return out


def edited_name(base_name: str, edits: dict) -> str:
    """``H100-SXM x8, edited: HBM 6,700 GB/s``: an edited spec never carries the preset's
    bare name (into the header, the cards, Compare and the exports). It keeps the preset's name as a
    prefix, which is what the price anchor matches (``codesign.economics.published_part``)."""
    parts = [knob_text(k, v) for k, (_, v) in edits.items()]
    name = f"{base_name}{EDITED}" + ", ".join(parts)
    while len(name) > MAX_NAME_CHARS and len(parts) > 1:       # a spec name's limit
        parts.pop()
        name = f"{base_name}{EDITED}" + ", ".join(parts) + f" (+{len(edits) - len(parts)} more)"
    return name[:MAX_NAME_CHARS]


def renamed(hw: HardwareSpec, preset: HardwareSpec) -> HardwareSpec:
    """``hw`` named for what it is relative to ``preset`` (a co-design's design, a pin): the preset's
    name when nothing differs, else the edited name."""
    e = edited(preset, hw.knobs(), {k: getattr(hw, k) for k in TOPO_LABELS})
    return replace(hw, name=edited_name(preset.name, e) if e else preset.name)


def reset_hardware(base: HardwareSpec) -> None:
    """Button callback: the knobs and system size back to the preset's."""
    for k in KNOBS:
        st.session_state[f"knob_{k}_{base.name}"] = float(getattr(base, k))
    for k in TOPO_LABELS:
        st.session_state[f"topo_{k}_{base.name}"] = int(getattr(base, k))


def sidebar_workload() -> tuple[Workload | None, str | None]:
    sb = st.sidebar
    sb.header("Workload")
    mode = w.radio(sb, "Mode", ["decode", "prefill"], "mode", horizontal=True)
    s_kv = w.number(sb, "Context s_kv (tokens)", f"s_kv_{mode}", 131072 if mode == "decode" else 32768,
                    help_key="s_kv", step=1024, min_value=1)
    batch = w.number(sb, "Batch (sequences)", "batch", 1, step=1, min_value=1)
    s_q = None
    if mode == "prefill":
        sq = w.number(sb, "New tokens s_q (0 = all of s_kv)", "s_q", 0, step=1, min_value=0)
        s_q = int(sq) or None
    try:    # a bad workload is a message on the tabs that use it, not the end of the app
        return Workload(mode=mode, s_kv=int(s_kv), batch=int(batch), s_q=s_q), None
    except InferSimError as exc:
        sb.error(w.one_line(exc))           # beside the fields, as well as on the tabs that need it
        return None, f"workload: {w.one_line(exc)}"


def sidebar_runtime() -> str:
    st.sidebar.header("Runtime")
    return w.select(st.sidebar, "Runtime", list(RUNTIMES), "runtime", DEFAULT_RUNTIME)


def read_inputs() -> Inputs:
    """The sidebar, top to bottom; a bad model or hardware raises InferSimError."""
    model = sidebar_model()
    hw, base = sidebar_hardware()
    wl, wl_error = sidebar_workload()
    runtime = sidebar_runtime()
    if wl is not None:
        model.check_context(wl.s_kv)          # a warning (shown by the caller), not an error
    return Inputs(model, hw, base, runtime, wl, wl_error)
