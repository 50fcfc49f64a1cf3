"""Helpers for the Streamlit AppTest UI tests (imported by tests/test_ui*.py)."""
from __future__ import annotations

import base64
import json
from importlib import resources

import numpy as np

APP = str(resources.files("infersim") / "ui" / "app.py")
TABS = ("Simulate", "Explore", "Co-design", "Serving", "Compare")
CARD = {"Simulate": "rec_simulate", "Explore": "rec_explore", "Co-design": "rec_codesign",
        "Serving": "rec_serving", "Compare": "rec_compare"}


def new_app(**sidebar):
    """A fresh app after its first run; ``sidebar`` sets widgets by key first (then reruns)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    if sidebar:
        for key, value in sidebar.items():
            widget = at.get_by_key(key)
            widget.set_value(value)
        at.run()
    return at


def small_app():
    """Llama 3.1 8B decode at 8K on one H100 node: every tab answers in well under a second."""
    return new_app(model="Llama 3.1 8B", hw="H100-SXM x8", s_kv_decode=8192, batch=16)


def open_tab(at, name: str):
    """Open a tab; Serving's search never runs on its own (seconds for a 70B model): press its Run."""
    at.session_state["tab"] = name
    at.run()
    if name == "Serving" and "_res_serving" not in at.session_state:
        at.get_by_key("btn_sv_run").click()
        at.run()
    return at


def tab_block(at, name: str):
    return at.tabs[TABS.index(name)]


def first_child(at, name: str):
    children = list(tab_block(at, name).children.values())
    return children[0] if children else None


def card_text(at, name: str) -> str:
    """All markdown, captions and alerts inside a tab's recommendation card."""
    card = at.get_by_key(CARD[name])
    parts = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success"):
        parts += [e.value for e in card.get(kind)]
    return "\n".join(parts)


def charts(at) -> dict:
    """Plotly specs by title."""
    out = {}
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        out[spec["layout"]["title"]["text"]] = spec
    return out


def values(arr):
    """Plotly 6 ships numeric arrays as base64 {'dtype', 'bdata'}; lists stay lists."""
    if isinstance(arr, dict) and "bdata" in arr:
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=arr["dtype"]).tolist()
    return list(arr)


def frame(at, column: str):
    """The first dataframe on the page with ``column`` (AppTest does not expose a dataframe's key)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def metric_values(at) -> dict:
    return {m.label: m.value for m in at.metric}


def errors(at) -> list[str]:
    return [e.value for e in at.error]
