"""Controls with their tooltip and a session-state default, the recommendation card, error
messages and the download buttons every tab shares.

A control's initial value goes into ``st.session_state`` once and the widget is created
without ``value=``/``index=``: a value set by "open in Simulate" or kept for a hidden tab then
never fights a default. A stored value that is no longer a valid option (another hardware,
another model) falls back to the default.
"""
from __future__ import annotations

from typing import Callable, Sequence

import streamlit as st

from infersim.errors import InferSimError
from infersim.ui import state
from infersim.ui.help import HELP


def _init(key: str, default, options: Sequence | None = None) -> None:
    ss = st.session_state
    if key not in ss or (options is not None and ss[key] not in options):
        ss[key] = default if options is None or default in options else options[0]


def select(where, label: str, options: Sequence, key: str, default=None, help_key: str | None = None,
           **kw):
    _init(key, options[0] if default is None else default, list(options))
    return where.selectbox(label, list(options), key=key, help=HELP[help_key or key], **kw)


def number(where, label: str, key: str, default, help_key: str | None = None, **kw):
    _init(key, default)
    return where.number_input(label, key=key, help=HELP[help_key or key], **kw)


def text(where, label: str, key: str, default: str, help_key: str | None = None, **kw) -> str:
    _init(key, default)
    return where.text_input(label, key=key, help=HELP[help_key or key], **kw)


def radio(where, label: str, options: Sequence, key: str, default=None, help_key: str | None = None, **kw):
    _init(key, options[0] if default is None else default, list(options))
    return where.radio(label, list(options), key=key, help=HELP[help_key or key], **kw)


def checkbox(where, label: str, key: str, default: bool, help_key: str | None = None) -> bool:
    _init(key, default)
    return where.checkbox(label, key=key, help=HELP[help_key or key])


# ----- the recommendation card -----------------------------------------------------------------
def card(tab: str):
    """The bordered container that opens every tab (key ``rec_<tab>``): the answer first."""
    return st.container(border=True, key=f"rec_{tab}")


def progress(where, text: str):
    """A progress bar in ``where`` (the card: progress shows where the answer will appear) and the
    ``report(done, total)`` that moves it."""
    bar = where.progress(0.0, text=text)
    return bar, lambda done, total: bar.progress(done / total, f"{text}: {done:,}/{total:,} candidates")


def ask_to_run(where, tab: str, button: str, what: str) -> None:
    """The card before any result: what Run does, and why it did not run on its own."""
    why = state.auto_stopped(tab)
    reason = (f"it takes more than {state.AUTO_RUN_BUDGET_S:g} s here (stopped at {why}), so it runs only when "
              "you ask" if why else "it runs only when you ask")
    headline(where, f"Press {button}", f"for the answer: {what}; {reason}.")


def scroll_into_view(tab: str) -> None:
    """After a Run the answer is at the top of the tab, often above the fold (a tall custom grid,
    the Run button below it): scroll the card into view, once."""
    if st.session_state.get("_scroll_to") != tab:
        return
    st.session_state.pop("_scroll_to")
    n = st.session_state["_scroll_n"] = st.session_state.get("_scroll_n", 0) + 1
    # our own fixed script (no user text); a new text per Run (the counter) makes the iframe run again
    html = (f"<script>/* {n} */ const c = window.parent.document.querySelector('.st-key-rec_{tab}');"
            "if (c) c.scrollIntoView({block: 'start', behavior: 'instant'});</script>")
    if hasattr(st, "iframe"):
        st.iframe(html, height=1)
    else:                                       # Streamlit before st.iframe
        import streamlit.components.v1 as components

        components.html(html, height=0)


def headline(where, title: str, text: str) -> None:
    where.markdown(f"**{title}** {text}")


def metrics(where, items: Sequence[tuple]) -> None:
    """One row of ``st.metric``; items are (label, value) or (label, value, delta, colour)."""
    cols = where.columns(len(items))
    for col, item in zip(cols, items):
        label, value, *rest = item
        delta, colour = (rest + [None, "normal"])[:2]
        col.metric(label, value, delta, delta_color=colour or "normal",
                   delta_arrow="off" if isinstance(delta, str) else "auto")


def stale_note(where, stored_stamp: str, current_stamp: str | None, what: str = "Run"):
    """A callable that says, where the card calls it (under its headline), that the inputs
    changed since the shown result was computed; a no-op when they did not."""
    if stored_stamp == current_stamp:
        return lambda: None
    return lambda: where.warning(f"The inputs changed since this result was computed: it is shown until you "
                                 f"press **{what}**.", icon=":material/pause_circle:")


def shown_result(where, tab: str, current_stamp: str | None, what: str):
    """The tab's kept result and its stale-note callback, or None when there is nothing to show
    (no run yet, or the run failed: its one-line error is shown, with the stale note)."""
    res = state.get_result(tab)
    if res is None:
        return None
    note = stale_note(where, res["stamp"], current_stamp, what)
    if "error" in res:
        show_error(where, res["error"])
        note()
        return None
    return res, note


def words(text: str) -> str:
    """A library sentence with its field identifiers (``bw_hbm_gbs``) turned into words ("HBM
    bandwidth"): the UI never shows a raw identifier."""
    import re

    from infersim.report.labels import label

    def one(m):
        return label(m.group(0)).split(" (")[0]
    return re.sub(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", one, text)


def wall(seconds: float) -> str:
    """The wall time the user waited: ``0.04 s``, ``2.3 s``, ``41 s``."""
    return f"{seconds:.2f} s" if seconds < 1 else f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def plural(n: int, word: str) -> str:
    """``1 PE``, ``8 PEs``."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def relax_text(ttft_limit_ms, tpot_limit_ms, miss_ttft_ms: float, miss_tpot_ms: float) -> str:
    """What the nearest miss needs to meet the SLA: ``relax TPOT to ≥ 6.9 ms`` (and TTFT where it
    misses that too); the nearest miss is the least violating deployment, so these limits admit it.
    Values are rounded up to one decimal, so the stated limit really admits it."""
    import math

    parts = []
    for name, limit, got in (("TTFT", ttft_limit_ms, miss_ttft_ms), ("TPOT", tpot_limit_ms, miss_tpot_ms)):
        if limit and got > limit:
            parts.append(f"{name} to ≥ {math.ceil(got * 10) / 10:,g} ms")
    return "relax " + " and ".join(parts) if parts else "relax the limits"


# ----- messages -----------------------------------------------------------------------------------
def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def show_error(where, exc: BaseException) -> None:
    """A one-line message; a bug (not an InferSimError) says so instead of a traceback."""
    if isinstance(exc, InferSimError):
        where.error(one_line(exc))
    else:
        msg = one_line(exc)
        where.error(f"internal error: {type(exc).__name__}: {msg[:300]} (please report it)")


def guarded(where, fn: Callable, *args, **kwargs):
    """Call ``fn``; bad input becomes a one-line message in ``where`` and None is returned."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:       # noqa: BLE001 — the UI must keep running whatever happens
        show_error(where, exc)
        return None


# ----- downloads ----------------------------------------------------------------------------------
def download_json(where, make: Callable[[], str], file_name: str, key: str) -> None:
    where.download_button("Download result (JSON)", make, file_name, "application/json", key=key,
                          on_click="ignore",
                          help="Everything this result depends on (model and hardware specs, workload, "
                               "runtime, objective, infersim version) and its answer. "
                               "`infersim rerun FILE` or Compare's upload re-runs it.")


def download_csv(where, label: str, make: Callable[[], str], file_name: str, key: str, help: str) -> None:
    where.download_button(label, make, file_name, "text/csv", key=key, on_click="ignore", help=help)


#: Largest upload (MB) any uploader takes: config.json, hardware files and exports are a few KB.
#: ``infersim ui`` also passes it as ``--server.maxUploadSize``; this holds under a plain
#: ``streamlit run app.py`` too (Streamlit's default is 200 MB).
MAX_UPLOAD_MB = 1


def uploader(where, label: str, key: str, types: Sequence[str], help_key: str):
    """``file_uploader`` capped at :data:`MAX_UPLOAD_MB` in the app itself: the browser refuses a
    larger file where Streamlit supports a per-widget cap, and a larger upload is an error here
    either way."""
    import inspect

    kw = {"max_upload_size": MAX_UPLOAD_MB} if "max_upload_size" in inspect.signature(
        where.file_uploader).parameters else {}
    # the limit in the label: Streamlit's own hint names its 200 MB default (hidden by the app's CSS)
    up = where.file_uploader(f"{label} (at most {MAX_UPLOAD_MB} MB)", type=list(types), key=key,
                             help=HELP[help_key], **kw)
    if up is not None and up.size > MAX_UPLOAD_MB * 2**20:
        raise InferSimError(f"{up.name} is too large ({up.size / 2**20:.1f} MB); uploads are at most "
                            f"{MAX_UPLOAD_MB} MB (a config.json, hardware file or export is a few KB)")
    return up
