"""infersim Streamlit UI: Simulate, Explore, Co-design, Serving and Compare tabs.

Run with ``infersim ui`` (binds 127.0.0.1). Every tab opens on a recommendation card (the
answer, what limits it, the next lever), then the controls, charts and full tables. Only the
open tab runs; sweeps run on their button (and once on a tab's first visit) and their result is
kept until the next Run. Bad input anywhere is a one-line message and the app keeps running.
"""
from __future__ import annotations

import warnings

import streamlit as st

from infersim.errors import InferSimWarning
from infersim.ui import inputs, state, tabs_codesign, tabs_compare, tabs_explore, tabs_serving, tabs_simulate
from infersim.ui import widgets as w

RENDER = {"Simulate": tabs_simulate.render, "Explore": tabs_explore.render, "Co-design": tabs_codesign.render,
          "Serving": tabs_serving.render, "Compare": tabs_compare.render}


def _read_sidebar():
    """The sidebar's inputs (None after a one-line message) and its warnings as lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InferSimWarning)
        try:
            inp = inputs.read_inputs()
        except Exception as exc:    # noqa: BLE001 — a message, never a traceback
            w.show_error(st, exc)
            inp = None
    return inp, [w.one_line(c.message) for c in caught if issubclass(c.category, InferSimWarning)]


def main() -> None:
    st.set_page_config(page_title="infersim", layout="wide")
    state.persist_widgets()
    # a compact header: the answer cards, not the title, should fill a 1440×900 screen
    st.markdown("<style>[data-testid='stMainBlockContainer']{padding-top:2.2rem}</style>",
                unsafe_allow_html=True)
    st.markdown("#### infersim — LLM inference simulator and hardware co-design")
    inp, notes = _read_sidebar()
    for note in notes:
        st.warning(note, icon=":material/warning:")
    if inp is None:
        return
    wl = "workload invalid" if inp.wl is None else f"{inp.wl.mode} s_kv={inp.wl.s_kv:,} batch={inp.wl.batch}"
    st.caption(f"{inp.model.name}: {inp.model.param_count() / 1e9:.2f} B params · {inp.hw.name}: "
               f"{inp.hw.n_pes} PEs ({inp.hw.pes_per_cube}×{inp.hw.cubes_per_sip}×{inp.hw.n_sips}) · {wl} · "
               f"runtime {inp.runtime}")
    tabs = st.tabs(list(state.TABS), key=state.TAB_KEY, on_change="rerun")
    for name, tab in zip(state.TABS, tabs):
        if tab.open:
            with tab:
                w.guarded(st, RENDER[name], inp)


main()
