"""Tables for notebooks: results as pandas DataFrames (units in the column names) and Parquet.

pandas is part of the ``ui`` extra and pyarrow of the ``data`` extra; both are imported only
when a table is asked for, with a one-line error naming the extra when missing.
"""
from __future__ import annotations

import os

from infersim.errors import InferSimError


def _pd():
    try:
        import pandas as pd
    except ImportError:
        raise InferSimError("tables need pandas: pip install 'infersim[data]' (or 'infersim[ui]')") from None
    return pd


def frame(records: list[dict], columns: list[str] | None = None):
    """A DataFrame from records (an empty one keeps ``columns``)."""
    pd = _pd()
    return pd.DataFrame.from_records(records, columns=columns)


def columns_frame(columns: dict):
    """A DataFrame from named columns (arrays of one length)."""
    return _pd().DataFrame(columns)


def to_parquet(df, path: str | os.PathLike) -> str:
    """Write ``df`` as Parquet (pyarrow), one-line errors for a missing engine or a bad path."""
    try:
        import pyarrow
    except ImportError:
        raise InferSimError("Parquet output needs pyarrow: pip install 'infersim[data]'") from None
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise InferSimError(f"to_parquet needs a file path (str or os.PathLike), got {type(path).__name__}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InferSimError(f"cannot write {path}: folder {folder} does not exist")
    try:
        df.to_parquet(path, index=False)
    except OSError as exc:
        raise InferSimError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path
