"""``infersim presets``."""
from __future__ import annotations

from rich.table import Table

from ..hardware_presets import HW_PRESETS
from ..model_presets import PRESETS
from .common import console, emit_json


def add_parser(sub) -> None:
    p = sub.add_parser("presets", help="list model and hardware presets")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def run(args) -> int:
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
