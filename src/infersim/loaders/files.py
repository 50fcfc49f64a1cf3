"""Bounded reading of small input files (model configs, hardware files): a size cap so that
``/dev/zero`` or a weights file stops at once, UTF-8 text, one-line errors."""
from __future__ import annotations

import os

from infersim.errors import InferSimError


def read_text_capped(path: str | os.PathLike, cap: int, kind: str) -> str:
    """The UTF-8 text of ``path``; ``kind`` ("config.json", "hardware file") names it in errors."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(cap + 1)
    except OSError as exc:
        raise InferSimError(f"cannot read {kind} {path!s}: {exc.strerror or exc}") from None
    return decode_capped(data, cap, f"{path!s}", kind)


def decode_capped(data: bytes, cap: int, where: str, kind: str) -> str:
    if len(data) > cap:
        raise InferSimError(f"{where} is larger than {cap // 2**20} MiB; a {kind} is a few KB "
                            "(is it the right file?)")
    try:     # a UTF-8 byte-order mark (Windows editors write one) is not content
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise InferSimError(f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                            f"{exc.start}); is it a binary file?") from None
