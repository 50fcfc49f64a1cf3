"""``infersim presets``."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from infersim.cli.common import console, emit_json
from infersim.presets.hardware_presets import HW_PRESETS
from infersim.presets.model_presets import PRESETS


def add_parser(sub) -> None:
    p = sub.add_parser("presets", help="list model and hardware presets")
    p.add_argument("--hw", help="show how a hardware file (or preset) is read: every field, its value "
                                "and where it came from (file, eff_max_*, base preset, default)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _fmt(value) -> str:
    if isinstance(value, tuple):
        return ", ".join(f"{x:g}:{e:.3g}" for x, e in value) or "(empty)"
    return f"{value:g}" if isinstance(value, float) else str(value)


def show_hardware(ref: str, as_json: bool) -> int:
    """Every HardwareSpec field of ``ref`` with its value and origin."""
    from infersim.presets.hardware_presets import get_hardware, is_hardware_file, read_hardware_file

    if is_hardware_file(ref):
        spec, origin = read_hardware_file(ref)
    else:
        spec = get_hardware(ref)
        origin = {k: "preset" for k in spec.to_dict()}
    rows = {k: {"value": v, "from": origin[k]} for k, v in spec.to_dict().items()}
    if as_json:
        emit_json({"hardware": rows, "n_pes": spec.n_pes})
        return 0
    t = Table(title=f"{spec.name}: {spec.n_pes} PEs ({spec.pes_per_cube} x {spec.cubes_per_sip} x {spec.n_sips}) "
                    f"read from {ref}")
    for col in ("field", "value", "from"):
        t.add_column(col, overflow="fold")
    for k, r in rows.items():
        t.add_row(k, _fmt(r["value"]), r["from"] if r["from"] != "default" else Text("default", style="dim"))
    console.print(t)
    return 0


def run(args) -> int:
    if args.hw:
        return show_hardware(args.hw, args.json)
    models = {n: {"params": p.model.param_count(), "published_params": p.published_params,
                  "source": p.source} for n, p in PRESETS.items()}
    hws = {n: {**h.knobs(), "n_pes": h.n_pes, "source": h.source} for n, h in HW_PRESETS.items()}
    if args.json:
        emit_json({"models": models, "hardware": hws})
        return 0
    t = Table(title="Model presets")
    for col in ("name", "params", "layers", "hidden", "heads/kv", "ffn", "vocab"):
        t.add_column(col)
    for n, p in PRESETS.items():
        m = p.model
        t.add_row(n, f"{m.param_count() / 1e9:.2f} B", str(m.n_layers), str(m.hidden),
                  f"{m.n_heads}/{m.n_kv_heads}", str(m.ffn_hidden or m.moe_ffn_hidden), str(m.vocab))
    console.print(t)
    t = Table(title="Hardware presets")
    for col in ("name", "PEs", "HBM GB", "HBM GB/s", "TFLOPS", "intra/inter/SiP GB/s"):
        t.add_column(col)
    for n, h in HW_PRESETS.items():
        t.add_row(n, f"{h.n_pes} ({h.pes_per_cube}x{h.cubes_per_sip}x{h.n_sips})", f"{h.pe_hbm_gb:g}",
                  f"{h.bw_hbm_gbs:g}", f"{h.peak_tflops_f16:g}",
                  f"{h.bw_intra_gbs:g}/{h.bw_inter_gbs:g}/{h.bw_intersip_gbs:g}")
    console.print(t)
    return 0
