"""infersim Streamlit UI: Simulate, Explore, Co-design, Serving and Compare tabs.

Run with ``infersim ui`` (binds 127.0.0.1). Every tab opens on a recommendation card (the
answer, what limits it, the next lever), then the controls, charts and full tables. Only the
open tab runs; sweeps run on their button (and once on a tab's first visit) and their result is
kept until the next Run. Bad input anywhere is a one-line message and the app keeps running.
"""
from __future__ import annotations

import importlib
import warnings

import streamlit as st

from infersim.errors import InferSimWarning
from infersim.ui import inputs, state
from infersim.ui import widgets as w

#: tab → its module, imported when the tab first opens (a fresh open imports Simulate's only: the
#: first answer comes sooner)
RENDER = {"Simulate": "tabs_simulate", "Explore": "tabs_explore", "Co-design": "tabs_codesign",
          "Serving": "tabs_serving", "Compare": "tabs_compare"}


def _render(name: str, inp) -> None:
    importlib.import_module(f"infersim.ui.{RENDER[name]}").render(inp)


#: tabs whose answer uses the sidebar's workload (Serving and the SLA co-design take a request)
USES_WORKLOAD = ("Simulate", "Explore", "Co-design")
#: a local tool: no "Deploy" button; tiles and labels that wrap rather than cut; the card clear of
#: the sticky header when scrolled to; a compact header so the cards fill the screen
CSS = """<style>
[data-testid='stMainBlockContainer']{padding-top:2.2rem}
[data-testid='stAppDeployButton'],.stAppDeployButton{display:none}
[data-testid='stMetricValue']>div{white-space:normal;overflow-wrap:anywhere}
[data-testid='stMetricLabel'] p{white-space:normal}
[class*='st-key-rec_']{scroll-margin-top:4.5rem}
[data-testid='stWidgetLabel'] p{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
</style>"""


def _read_sidebar():
    """The sidebar's inputs and its warnings as lines. A bad value is a one-line message beside
    its field (or at the sidebar's foot) and the tabs keep the last good inputs' results: one bad
    value never blanks the app. None only when no input was ever valid."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferSimWarning)
        stale = False
        try:
            inp = inputs.read_inputs()
            st.session_state["_last_inputs"] = inp
        except Exception as exc:    # noqa: BLE001 — a message, never a traceback
            if not isinstance(exc, inputs.SidebarError):
                w.show_error(st.sidebar, exc)
            inp, stale = st.session_state.get("_last_inputs"), True
            if inp is None:
                w.show_error(st, exc)
    notes = [w.one_line(c.message) for c in caught if issubclass(c.category, InferSimWarning)]
    return inp, stale, notes


def _header(inp) -> str:
    """Model · hardware (its edited name) · workload (on the tabs that use it) · runtime."""
    hw = inp.hw
    parts = [f"{inp.model.name}: {inp.model.param_count() / 1e9:.2f} B params",
             f"{hw.name}: {w.plural(hw.n_pes, 'PE')} ({hw.pes_per_cube}×{hw.cubes_per_sip}×{hw.n_sips})"]
    tab = st.session_state.get(state.TAB_KEY, state.TABS[0])
    sla = tab == "Co-design" and st.session_state.get("cd_mode", "").startswith("serving")
    if tab in USES_WORKLOAD and not sla:
        parts.append("workload invalid" if inp.wl is None else
                     f"{inp.wl.mode} s_kv={inp.wl.s_kv:,} batch={inp.wl.batch}")
    return " · ".join(parts + [f"runtime {inp.runtime}"])


def main() -> None:
    st.set_page_config(page_title="infersim", layout="wide")
    state.persist_widgets()
    # a compact header: the answer cards, not the title, should fill a 1440×900 screen
    st.markdown(CSS, unsafe_allow_html=True)
    st.markdown("#### infersim — LLM inference simulator and hardware co-design")
    inp, stale, notes = _read_sidebar()
    for note in notes:
        st.warning(note, icon=":material/warning:")
    if inp is None:
        return
    if stale:
        st.warning("A sidebar value is invalid (its message is in the sidebar): the tabs show the last valid "
                   "inputs' results until it is fixed.", icon=":material/error:")
    st.caption(_header(inp))
    tabs = st.tabs(list(state.TABS), key=state.TAB_KEY, on_change="rerun")
    for name, tab in zip(state.TABS, tabs):
        if tab.open:
            with tab:
                w.guarded(st, _render, name, inp)


main()
