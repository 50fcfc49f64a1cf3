"""Cost and power of a PE and of the system share it brings, from the six co-design knobs.

Per PE (vectorised over hardware candidates; GB = 1e9 bytes, GB/s per direction as everywhere):

    cogs_usd   = die_usd_per_tflops[node]·TFLOPS + hbm_usd_per_gb·GB + hbm_usd_per_gbs·GB/s
                 + package_usd
    pe_usd     = vendor_markup·cogs_usd + scaleup_usd_per_gbs·2·(intra + inter)   (the PE with
                 its share of the scale-up switches, like an HGX board's per-GPU price)
    pe_w       = (w_per_tflops[node]·TFLOPS + hbm_pj_per_bit·8e-3·GB/s
                  + link_pj_per_bit·8e-3·2·(intra + inter + intersip)
                  + tier_pj_per_bit·8e-3·tier GB/s) / (1 − idle_fraction)
    capex_usd  = pe_usd + scaleout_usd_per_gbs·2·intersip + host_usd_per_pe
                 + tier_usd_per_gb·tier GB + tier_usd_per_gbs·2·tier GB/s     (a memory tier, at cost)
    system_w   = pe_w · server_power_multiplier
    usd_per_h  = (capex_usd / (lifetime_years·8766) + system_w/1000 · avg_power_fraction · pue
                  · usd_per_kwh) / utilisation

A link level is provisioned only where the topology has it (intra-cube links when a cube has
more than one PE, inter-cube links with more than one cube per SiP, the scale-out fabric with
more than one SiP), so an 8-GPU node pays no InfiniBand. A pair's system cost and power are its
PEs times the per-PE figures (``JointScore.system_cost_usd``, ``system_power_w``).

Hardware whose name matches a part with a published price and TDP (:data:`PUBLISHED`) is
*anchored*: at its own knobs (and the default coefficients) the PE costs the published price and
draws the TDP, and a candidate adds the model's increments to them (:func:`_anchored`), so tokens
per dollar never rise when a price coefficient does. Other hardware (the generic SiP) uses the
parametric model at :attr:`Economics.node`.

Every coefficient's source or reasoning is in :data:`SOURCES` (mirrored in docs/codesign.md);
the numbers come from the collected research (Silicon Analysts cost bridge, Epoch AI
training-cost-trends, aiconfigurator power data, vendor datasheets). All prices are estimates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from infersim.errors import InferSimError, choice, require
from infersim.specs.hardware import KNOBS, HardwareSpec

HOURS_PER_YEAR = 8766.0


@dataclass(frozen=True)
class ComputeNode:
    """Cost and power of compute at one process generation, per dense bf16/fp16 TFLOPS."""

    name: str
    die_usd_per_tflops: float
    w_per_tflops: float
    source: str


#: W per TFLOPS: (TDP·(1 − idle_fraction) − HBM − link power) / peak, so that the model
#: reproduces the datasheet TDP of the reference part; $ per TFLOPS: the logic die cost.
NODES: dict[str, ComputeNode] = {n.name: n for n in (
    ComputeNode("4NP-blackwell", 0.289, 0.224,
                "B200 (TSMC 4NP): 1,000 W TDP, 2,250 TFLOPS, 8 TB/s, NVLink 900 GB/s/dir -> "
                "(800 - 224 - 72) W / 2,250; dies 2 x ~800 mm^2 x $0.40/mm^2 = $650 / 2,250"),
    ComputeNode("4N-hopper", 0.303, 0.394,
                "H200 (TSMC 4N): 700 W, 989 TFLOPS, 4.8 TB/s, NVLink 450 GB/s/dir -> "
                "(560 - 134 - 36) W / 989; H100 die ~$300 (Silicon Analysts) / 989"),
    ComputeNode("N5-cdna3", 0.459, 0.318,
                "MI300X (TSMC N5/N6): 750 W, 1,307 TFLOPS, 5.3 TB/s, IF 448 GB/s -> "
                "(600 - 148 - 36) W / 1,307; logic dies ~$600 (Silicon Analysts) / 1,307"),
    ComputeNode("N7-ampere", 0.66, 0.766,
                "A100 (TSMC N7): 400 W, 312 TFLOPS, 2,039 GB/s, NVLink 300 GB/s/dir -> "
                "(320 - 57 - 24) W / 312; 826 mm^2 x ~$0.25/mm^2 (N7 wafer $9,346) / 312"),
)}


@dataclass(frozen=True)
class PublishedPart:
    """Published price and TDP of one accelerator (prices are estimates: list/street)."""

    part: str
    price_usd: float
    tdp_w: float
    node: str
    source: str


#: (hardware-name prefix, part). Prices: Epoch AI "Hardware prices" dataset (HGX 8-GPU board
#: prices / 8), Morgan Stanley, Silicon Analysts; TDPs: vendor datasheets.
PUBLISHED: tuple[tuple[str, PublishedPart], ...] = (
    ("H100-SXM", PublishedPart("H100 SXM5", 33_800.0, 700.0, "4N-hopper",
                               "HGX H100 8-GPU $249k (2023-09) - $288k (2024-07) / 8 (Epoch AI); "
                               "TDP: NVIDIA H100 datasheet")),
    ("H200", PublishedPart("H200 SXM", 33_800.0, 700.0, "4N-hopper",
                           "HGX H200 8-GPU $270.6k (2024-03) / 8 (Epoch AI); TDP: H200 datasheet")),
    ("A100-SXM", PublishedPart("A100 SXM4 80GB", 17_500.0, 400.0, "N7-ampere",
                               "list price 2020 (Epoch AI, NextPlatform); TDP: A100 datasheet")),
    ("B200", PublishedPart("B200", 40_000.0, 1_000.0, "4NP-blackwell",
                           "$30-40k (Morgan Stanley 2024-09), Silicon Analysts ~$40k; "
                           "TDP: NVIDIA Blackwell datasheet")),
    ("MI300X", PublishedPart("MI300X", 15_000.0, 750.0, "N5-cdna3",
                             "estimated sell price (Silicon Analysts); TDP: AMD MI300X data sheet")),
)


def published_part(hw_name: str) -> PublishedPart | None:
    return next((p for prefix, p in PUBLISHED if hw_name.startswith(prefix)), None)


@dataclass(frozen=True)
class Economics:
    """Coefficients and assumptions of the cost and power model (sources: :data:`SOURCES`)."""

    node: str = "4NP-blackwell"
    hbm_usd_per_gb: float = 15.0
    hbm_usd_per_gbs: float = 0.045
    package_usd: float = 1_670.0
    vendor_markup: float = 3.0
    scaleup_usd_per_gbs: float = 2.6
    scaleout_usd_per_gbs: float = 42.5
    host_usd_per_pe: float = 4_950.0
    hbm_pj_per_bit: float = 3.5
    link_pj_per_bit: float = 5.0
    idle_fraction: float = 0.2
    server_power_multiplier: float = 1.82
    avg_power_fraction: float = 0.75
    pue: float = 1.2
    usd_per_kwh: float = 0.08
    tier_usd_per_gb: float = 4.0
    tier_usd_per_gbs: float = 1.0
    tier_pj_per_bit: float = 5.0
    lifetime_years: float = 5.0
    utilisation: float = 1.0
    anchor_published: bool = True

    def __post_init__(self) -> None:
        choice("economics node", self.node, tuple(NODES))
        for f in fields(self):
            if f.name in ("node", "anchor_published"):
                continue
            v = getattr(self, f.name)
            require(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    and v >= 0, f"economics {f.name} must be a finite number >= 0, got {v!r}")
        for f in ("lifetime_years", "utilisation", "vendor_markup", "server_power_multiplier", "pue"):
            require(getattr(self, f) > 0, f"economics {f} must be > 0, got {getattr(self, f)!r}")
        require(self.utilisation <= 1 and self.idle_fraction < 1 and self.avg_power_fraction <= 1,
                "economics utilisation and avg_power_fraction must be in (0, 1], idle_fraction in [0, 1)")
        require(isinstance(self.anchor_published, bool),
                f"economics anchor_published must be true or false, got {self.anchor_published!r}")

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


SOURCES: dict[str, str] = {
    "node": "compute die $ and W per TFLOPS of a process generation (NODES, each derived from a "
            "reference part's datasheet TDP and die cost)",
    "hbm_usd_per_gb": "HBM3/3E ~$15/GB (range 10-20): H100 $1.4k / 80 GB = $17.5, MI300X "
                      "$2.9k / 192 GB = $15.1 (Silicon Analysts cost bridge); HBM3E $15-18 (press)",
    "hbm_usd_per_gbs": "estimate: per-stack base die, PHY area and interposer share per GB/s; the "
                       "residual that makes the model give H100's $3,320 COGS (Raymond James via "
                       "Epoch) = ~$37 per 819 GB/s HBM3 stack",
    "package_usd": "CoWoS-S package $750 + test/assembly $920 per H100 (Silicon Analysts)",
    "vendor_markup": "estimate: price / manufacturing cost of a merchant accelerator, MI300X "
                     "~$15k / $5.3k = 2.8; NVIDIA H100 ~$33.8k / $3.3k = 10 (anchored presets "
                     "use their published prices instead)",
    "scaleup_usd_per_gbs": "$2.6 per GB/s of bidirectional scale-up bandwidth (range 2-5): GB200 "
                           "NVL72 BOM split, NVLink switch trays + copper ~$4.7k per 1.8 TB/s GPU "
                           "(weak: unsourced BOM + own split)",
    "scaleout_usd_per_gbs": "switches + cables/optics of a 2-tier 400G InfiniBand fat tree: "
                            "($3.456M + $5.243M) / 2,048 GPUs = $4,247 per 100 GB/s bidirectional "
                            "('H100 Freakonomics' spreadsheet, Aug 2024)",
    "host_usd_per_pe": "node $310k incl. 8x400G NICs (Thinkmate quote in 'H100 Freakonomics') minus "
                       "8 x $33.8k GPU = $4,950 per GPU: CPUs, DRAM, NICs, storage, chassis "
                       "(SemiAnalysis non-GPU BOM $32k / 8 = $4k at cost)",
    "hbm_pj_per_bit": "HBM3/3E device + PHY ~3.5 pJ/bit (HBM2 3.9, HBM3E 3.0; O'Connor et al. "
                      "MICRO'17 and vendor GB/s-per-W figures)",
    "link_pj_per_bit": "long-reach 112G PAM4 SerDes ~5-5.5 pJ/bit (NVLink-C2C 1.3 on package); "
                       "switch and optics power are in the server multiplier",
    "idle_fraction": "idle floor ~20% of TDP: H200 ~130 W of 700, B200 ~250 of 1,000, GB200 ~210 "
                     "of 1,200 (aiconfigurator's minimum sampled power)",
    "server_power_multiplier": "DGX H100 10.2 kW / (8 x 700 W) = 1.82 (Epoch AI chip_to_server_power; "
                               "DGX A100 2.03, DGX B200 1.79): CPUs, NICs, switches, fans, PSU losses",
    "avg_power_fraction": "average draw 0.75 x TDP for GPUs (Epoch AI server_TDP_fraction)",
    "pue": "1.2, a modern data centre (Epoch AI: 1.1 hyperscaler, 1.25 other; Uptime Institute)",
    "usd_per_kwh": "US industrial electricity $0.077-0.083/kWh 2024-25 (EIA via Epoch AI)",
    "tier_usd_per_gb": "second memory tier (LPDDR5X / DDR5 beside the HBM) ~$4/GB: DRAM contract "
                       "prices 2024 $3-5/GB (TrendForce); a Grace's 480 GB LPDDR5X ~ $2k (estimate)",
    "tier_usd_per_gbs": "estimate: the tier's link (NVLink-C2C, CXL x16 or PCIe PHY and controller) ~$1 "
                        "per GB/s of bidirectional bandwidth (short-reach, on or beside the package)",
    "tier_pj_per_bit": "LPDDR5X ~3.5-4 pJ/bit plus NVLink-C2C 1.3 pJ/bit (NVIDIA Grace Hopper "
                       "whitepaper) ~5 pJ/bit at full tier bandwidth",
    "lifetime_years": "5-year amortisation for hardware from 2023 on (Epoch AI get_server_lifetime)",
    "utilisation": "assumption: the modelled throughput is sustained every hour of the lifetime "
                   "(an upper bound); tokens per $ scale with it, rankings do not",
    "anchor_published": "presets with a public price and TDP (PUBLISHED) are priced from them",
}


@dataclass(frozen=True)
class PeEconomics:
    """Per-PE figures for H candidates (arrays of shape (H,))."""

    pe_usd: np.ndarray
    pe_w: np.ndarray
    capex_usd: np.ndarray
    system_w: np.ndarray
    usd_per_h: np.ndarray


def _links_bidir_gbs(k: dict, topo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bidirectional scale-up and scale-out GB/s per PE of the levels the topology has."""
    ppc, cps, sips = (topo[:, i] for i in range(3))
    up = 2.0 * (k["bw_intra_gbs"] * (ppc > 1) + k["bw_inter_gbs"] * (cps > 1))
    out = 2.0 * k["bw_intersip_gbs"] * (sips > 1)
    return up, out


def cogs_usd(k: dict, node: ComputeNode, e: Economics):
    """Manufacturing cost of one PE: compute die + HBM capacity + HBM bandwidth + package."""
    return (node.die_usd_per_tflops * k["peak_tflops_f16"] + e.hbm_usd_per_gb * k["pe_hbm_gb"]
            + e.hbm_usd_per_gbs * k["bw_hbm_gbs"] + e.package_usd)


def _tier(topo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(GB, GB/s per direction) of the memory tier per PE; zero without one (3-column rows)."""
    if topo.shape[1] < 5:
        z = np.zeros(len(topo))
        return z, z
    gb = topo[:, 3].astype(float)
    return gb, np.where(gb > 0, topo[:, 4], 0).astype(float)


def tier_usd(topo: np.ndarray, e: Economics) -> np.ndarray:
    """The memory tier per PE at cost: capacity + its link (bidirectional GB/s)."""
    gb, gbs = _tier(topo)
    return e.tier_usd_per_gb * gb + e.tier_usd_per_gbs * 2.0 * gbs


def _pe_model(k: dict, topo: np.ndarray, node: ComputeNode, e: Economics):
    """(pe_usd, pe_w) of the parametric model (see the module docstring)."""
    up, out = _links_bidir_gbs(k, topo)
    pe_usd = e.vendor_markup * cogs_usd(k, node, e) + e.scaleup_usd_per_gbs * up
    dyn_w = (node.w_per_tflops * k["peak_tflops_f16"] + e.hbm_pj_per_bit * 8e-3 * k["bw_hbm_gbs"]
             + e.link_pj_per_bit * 8e-3 * (up + out) + e.tier_pj_per_bit * 8e-3 * _tier(topo)[1])
    return pe_usd, dyn_w / (1.0 - e.idle_fraction)


def _anchored(pe_usd, pe_w, cogs, base_hw: HardwareSpec, part: PublishedPart, node: ComputeNode,
              e: Economics):
    """The published part's price and TDP at its own knobs, the model's increments elsewhere:

        pe_usd = max(model_usd(c; e) + (price − model_usd(base; e_ref)), cogs(c; e))
        pe_w   = max(model_w(c; e) + (TDP − model_w(base; e_ref)), model_w(c; e) / 4)

    with ``e_ref`` the default coefficients at ``e.node`` (the residual — the vendor's margin
    beyond the model, or its saving — is fixed by the published figures, not by the coefficients
    under study). Each term is non-decreasing in every price coefficient, so raising one never
    lowers a cost (a ratio price · model(c) / model(base) could: its denominator rises too). At
    the default coefficients and the part's own knobs it is the published price and TDP."""
    base_k = {name: np.array([v]) for name, v in base_hw.knobs().items()}
    base_topo = np.array([[base_hw.pes_per_cube, base_hw.cubes_per_sip, base_hw.n_sips]])
    usd0, w0 = _pe_model(base_k, base_topo, node, Economics(node=e.node))
    return (np.maximum(pe_usd + (part.price_usd - usd0[0]), cogs),
            np.maximum(pe_w + (part.tdp_w - w0[0]), pe_w / 4.0))


def pe_economics(knob_rows: np.ndarray, topo_rows: np.ndarray, base_hw: HardwareSpec,
                 econ: Economics | None = None) -> PeEconomics:
    """Per-PE cost and power of candidates: ``knob_rows`` (H, 6) in :data:`KNOBS` order,
    ``topo_rows`` (H, 3) = (pes_per_cube, cubes_per_sip, n_sips), or (H, 5) with the memory tier
    (unified_mem_gb, bw_unified_gbs); anchored on ``base_hw``'s
    published price and TDP when it has them."""
    e = econ or Economics()
    knob_rows = np.atleast_2d(np.asarray(knob_rows, dtype=float))
    topo_rows = np.atleast_2d(np.asarray(topo_rows))
    k = {name: knob_rows[:, j] for j, name in enumerate(KNOBS)}
    part = published_part(base_hw.name) if e.anchor_published else None
    node = NODES[part.node if part else e.node]
    pe_usd, pe_w = _pe_model(k, topo_rows, node, e)
    if part is not None:
        pe_usd, pe_w = _anchored(pe_usd, pe_w, cogs_usd(k, node, e), base_hw, part, node, e)
    _, out = _links_bidir_gbs(k, topo_rows)
    capex = pe_usd + e.scaleout_usd_per_gbs * out + e.host_usd_per_pe + tier_usd(topo_rows, e)
    system_w = pe_w * e.server_power_multiplier
    usd_per_h = (capex / (e.lifetime_years * HOURS_PER_YEAR)
                 + system_w / 1e3 * e.avg_power_fraction * e.pue * e.usd_per_kwh) / e.utilisation
    return PeEconomics(pe_usd, pe_w, capex, system_w, usd_per_h)


def hardware_economics(hw: HardwareSpec, base_hw: HardwareSpec | None = None,
                       econ: Economics | None = None) -> dict[str, float]:
    """The per-PE figures of one hardware as floats (for reports): ``base_hw`` anchors it."""
    if not isinstance(hw, HardwareSpec):
        raise InferSimError(f"hardware must be a HardwareSpec, got {type(hw).__name__}")
    rows = np.array([[hw.knobs()[k] for k in KNOBS]])
    topo = np.array([[hw.pes_per_cube, hw.cubes_per_sip, hw.n_sips]])
    pe = pe_economics(rows, topo, base_hw or hw, econ)
    return {f.name: float(getattr(pe, f.name)[0]) for f in fields(pe)}
