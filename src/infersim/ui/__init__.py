"""Streamlit UI (``infersim ui``)."""
