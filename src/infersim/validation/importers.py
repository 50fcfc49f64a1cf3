"""Importers for the result files engines' own benchmark tools write (filled in below)."""
from __future__ import annotations


def detect(text: str, suffix: str, where: str) -> list[dict] | None:
    """The rows of an engine's benchmark result file, or None when ``text`` is not one."""
    return None
