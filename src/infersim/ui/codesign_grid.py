"""The hardware grid controls both Co-design modes share (one step and serving SLA): the
custom grid's value lists and the grid size, computed from the axes without enumerating."""
from __future__ import annotations

import streamlit as st

from infersim.codesign.grid import GRID_KNOBS, check_cap, grid_axes, grid_size, parse_values
from infersim.codesign.types import TOPOLOGY_KNOBS
from infersim.ui import widgets as w
from infersim.ui.inputs import KNOB_LABELS, TOPO_LABELS, Inputs

#: The second memory tier's axes (0 GB = none; see infersim.codesign.tier).
TIER_LABELS = {"unified_mem_gb": "Memory tier GB per PE (0 = none)",
               "bw_unified_gbs": "Memory tier GB/s per PE per direction"}


def grid_inputs(hw) -> dict[str, list[float]]:
    """One text field per knob; the default grid varies HBM bandwidth and peak FLOPs (×½, ×1, ×2)."""
    st.caption("Custom grid: comma-separated values per knob (empty = the base value); no thousands "
               "separators.")
    grid, cols = {}, st.columns(3)
    for i, k in enumerate(GRID_KNOBS):
        base = getattr(hw, k)
        default = f"{base / 2:g}, {base:g}, {2 * base:g}" if k in ("bw_hbm_gbs", "peak_tflops_f16") else ""
        label = KNOB_LABELS.get(k) or TOPO_LABELS.get(k) or TIER_LABELS[k]
        txt = w.text(cols[i % 3], label, f"grid_{k}", default, help_key="grid")
        if txt.strip():
            vals = parse_values(txt.replace(";", ","), k, option="grid")
            grid[k] = vals
            cols[i % 3].caption(f"→ {len(vals)} value{'s' if len(vals) != 1 else ''}: "
                                + ", ".join(f"{v:,g}" for v in vals[:8]) + (" …" if len(vals) > 8 else ""))
    return grid


def candidates(inp: Inputs, depth: str, grid: dict) -> int:
    """Grid size from the axes (never enumerated); above the cap is an error before any run."""
    axes = grid_axes(depth, grid if depth == "custom" else None, inp.hw.knobs(),
                     tuple(getattr(inp.hw, k) for k in TOPOLOGY_KNOBS))
    n = grid_size(axes)
    check_cap(n, None)
    return n


#: A knob at the grid's edge whose ×2 (or ×0.5) still gains more than this gets a "widen the grid"
#: note: below it the gain is inside the model's error.
EDGE_MIN_GAIN = 0.03


def edge_notes(grid: dict | None, design: dict, gains: dict) -> list[str]:
    """Lines for the knobs where the answer sits at the edge of a custom grid and the step past it
    still pays: ``design`` = {knob: the answer's value}, ``gains`` = {knob: (gain ×2, gain ×0.5)}
    (fractions of the objective, better > 0; from the tab's sensitivity)."""
    out = []
    for k, vals in (grid or {}).items():
        if len(vals) < 2 or k not in design or k not in gains:
            continue
        v, (g2, g05) = design[k], gains[k]
        name = KNOB_LABELS.get(k) or TOPO_LABELS.get(k, k)
        if v >= max(vals) and g2 is not None and g2 > EDGE_MIN_GAIN:
            out.append(f"{name}: the answer sits at the grid's largest value ({v:,g}) and ×2 still gains "
                       f"{g2:.0%}: widen the grid upward.")
        elif v <= min(vals) and g05 is not None and g05 > EDGE_MIN_GAIN:
            out.append(f"{name}: the answer sits at the grid's smallest value ({v:,g}) and ×0.5 still gains "
                       f"{g05:.0%}: widen the grid downward.")
    return out
