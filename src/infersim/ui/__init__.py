"""The Streamlit UI (``infersim ui``), a front end: tabs, inputs, pins and the shared widgets.

May import: anything of infersim except :mod:`infersim.cli` (the two front ends are siblings).
Nothing imports the UI."""
