"""Session state: widget values that survive hidden tabs, sweep results kept until the next
Run, the pins of the Compare tab, and the "open in Simulate" hand-off.

Only the open tab runs (``st.tabs(..., on_change="rerun")``), and Streamlit forgets the value of
a widget that is not drawn in a run; :func:`persist_widgets` re-assigns every kept key to
itself at the top of each run, which turns it into user state that Streamlit keeps.
"""
from __future__ import annotations

import streamlit as st

TAB_KEY = "tab"
TABS = ("Simulate", "Explore", "Co-design", "Serving", "Compare")
# keys Streamlit does not let a script assign (buttons, downloads, uploads) or that are ours
_SKIP_PREFIXES = ("btn_", "dl_", "fig_", "tbl_", "rec_", "_")
_SKIP = {"config_upload", "hw_upload", "export_upload"}


def persist_widgets() -> None:
    ss = st.session_state
    for k in list(ss.keys()):
        if isinstance(k, str) and k not in _SKIP and not k.startswith(_SKIP_PREFIXES):
            ss[k] = ss[k]


# ----- results: written by a Run button, shown until the next Run --------------------------------
def put_result(tab: str, stamp: str, **payload) -> None:
    st.session_state[f"_res_{tab}"] = {"stamp": stamp, **payload}


def get_result(tab: str) -> dict | None:
    return st.session_state.get(f"_res_{tab}")


def clear_result(tab: str) -> None:
    st.session_state.pop(f"_res_{tab}", None)


def run_and_store(tab: str, stamp: str, fn) -> None:
    """Run a sweep (``fn`` returns the payload dict) and keep its result, or its error, until
    the next Run: a failed run replaces the old result (never shown as if it were current) and
    is not retried on every rerun."""
    try:
        put_result(tab, stamp, **fn())
    except Exception as exc:         # noqa: BLE001 — shown as one line by the tab
        put_result(tab, stamp, error=exc)


#: A sweep the user did not ask for (a tab's first visit) may run this long; past it, it stops
#: and the card asks for Run (issue 27: no surprise runs of 24–40 s at defaults nobody chose).
AUTO_RUN_BUDGET_S = 1.0


class OverBudget(Exception):
    """Raised from a progress callback to stop a first-visit sweep that runs past its budget."""


def budget_progress(budget_s: float | None, report=None):
    """A ``progress(done, total)`` callback for a sweep: ``report`` shows it; with ``budget_s``,
    it raises :class:`OverBudget` once the sweep has run that long (checked between candidates)."""
    import time

    t0 = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if report is not None:
            report(done, total)
        if budget_s is not None and done < total and time.perf_counter() - t0 > budget_s:
            raise OverBudget(f"{done:,} of {total:,} candidates in {time.perf_counter() - t0:.1f} s")
    return progress


def first_visit(tab: str, stamp: str, fn) -> None:
    """A tab's first visit: run ``fn(budget_s)`` once, within :data:`AUTO_RUN_BUDGET_S`; a sweep that
    would take longer stops and leaves no result (the card then asks for Run). Tried once per
    session and tab, so a slow default is not re-tried on every rerun."""
    if get_result(tab) is not None or st.session_state.get(f"_auto_{tab}"):
        return
    st.session_state[f"_auto_{tab}"] = True
    try:
        put_result(tab, stamp, **fn(AUTO_RUN_BUDGET_S))
    except OverBudget as exc:
        st.session_state[f"_auto_{tab}"] = str(exc)
    except Exception as exc:         # noqa: BLE001 — shown as one line by the tab
        put_result(tab, stamp, error=exc)


def auto_stopped(tab: str) -> str | None:
    """Why the first visit's sweep stopped (e.g. "3 of 64 candidates in 1.1 s"), or None."""
    v = st.session_state.get(f"_auto_{tab}")
    return v if isinstance(v, str) and get_result(tab) is None else None


def ran(tab: str) -> None:
    """Mark that the user pressed Run on ``tab`` in this script run: the card scrolls into view."""
    st.session_state["_scroll_to"] = tab


# ----- pins --------------------------------------------------------------------------------------
def pins() -> list[dict]:
    return list(st.session_state.get("_pins", []))


def add_pin(pin: dict) -> None:
    """Pin a configuration (a dict of plain values, see ``pins.py``); the same configuration
    pinned twice (same label and numbers) is kept once."""
    current = pins()
    sig = lambda p: (p["label"], f"{p['latency_ms']:.9g}", f"{p.get('tok_s')!r}")   # noqa: E731 (NaN-safe)
    if any(sig(p) == sig(pin) for p in current):
        st.session_state["_flash"] = f"already pinned: {pin['label']}"
        return
    # numbered per browser session (a module-level counter ran on across sessions)
    pin_id = st.session_state.get("_pin_next", 1)
    st.session_state["_pin_next"] = pin_id + 1
    st.session_state["_pins"] = current + [{**pin, "id": pin_id}]
    st.session_state["_flash"] = f"pinned to Compare: {pin['label']}"


def remove_pin(pin_id: int) -> None:
    st.session_state["_pins"] = [p for p in pins() if p["id"] != pin_id]


def clear_pins() -> None:
    st.session_state["_pins"] = []


def flash() -> str | None:
    """The one-off message of the last pin / open action (shown once, then forgotten)."""
    return st.session_state.pop("_flash", None)


# ----- open in Simulate: fill the Simulate tab's controls and switch to it -----------------------
SIM_INT_KEYS = {"tp": "sim_tp", "cp": "sim_cp", "pp": "sim_pp", "dp": "sim_dp", "ep": "sim_ep"}
SIM_CHOICE_KEYS = {"kv_shard_mode": "sim_kv", "ffn_shard_scope": "sim_scope", "tp_placement": "sim_tpl",
                   "cp_placement": "sim_cpl"}


def open_in_simulate(par: dict, hw_name: str | None = None, knobs: dict | None = None,
                     topology: dict | None = None, workload: dict | None = None, note: str = "") -> None:
    """A button callback (it runs before the script, so it may set widget values): the
    parallelism ``par`` (a ``Parallelism.to_dict()``), and optionally the hardware preset with
    edited knobs / system size and the workload, go into the controls; the Simulate tab opens."""
    ss = st.session_state
    for f, key in SIM_INT_KEYS.items():
        ss[key] = int(par.get(f, 1) or 1)
    for f, key in SIM_CHOICE_KEYS.items():
        ss[key] = par[f]
    ss["sim_ring"] = par.get("cp_ring_variant") or "default"
    ss["sim_mb"] = int(par.get("microbatches") or 0)
    if hw_name is not None:
        if hw_name in _preset_names():      # an uploaded hardware stays selected as it is
            ss["hw"] = hw_name
        for k, v in (knobs or {}).items():
            ss[f"knob_{k}_{hw_name}"] = float(v)
        for k, v in (topology or {}).items():
            ss[f"topo_{k}_{hw_name}"] = int(v)
    if workload is not None:
        mode = workload["mode"]
        ss["mode"] = mode
        ss[f"s_kv_{mode}"] = int(workload["s_kv"])
        ss["batch"] = int(workload["batch"])
        if mode == "prefill":
            ss["s_q"] = int(workload.get("s_q") or 0)
    ss[TAB_KEY] = "Simulate"
    ss["_flash"] = f"opened in Simulate{': ' + note if note else ''}"


def _preset_names() -> list[str]:
    from infersim.presets.hardware_presets import HW_PRESETS

    return list(HW_PRESETS)
