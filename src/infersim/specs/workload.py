"""Workload: one inference step.

* ``decode``: each of ``batch`` sequences produces one new token attending to ``s_kv`` cached tokens.
  With ``s_q`` = q > 1 it is a speculative-decoding *verify* step: q query tokens per sequence
  (the last accepted token and q − 1 drafted ones) attend to the ``s_kv`` cached tokens and
  causally to each other, through the decode kernels (one pass over the KV cache, the MLA
  absorbed path). ``s_q`` None or 1 is plain decode.
* ``prefill``: each sequence processes ``s_q`` new tokens (default ``s_kv``) that attend causally
  to themselves and to ``s_kv - s_q`` already-cached prefix tokens; ``s_kv`` is the context
  length after the step.
"""
from __future__ import annotations

from dataclasses import dataclass

from infersim.errors import choice, require, short_repr

MODES = ("decode", "prefill")
#: Largest context and batch accepted: far above any real deployment, and small enough that every
#: derived quantity (tokens, attention pairs, bytes) stays a finite float.
MAX_TOKENS = 2**31
#: Most query tokens per sequence in one verify step (tree drafts of EAGLE-2/3 verify up to ~64).
MAX_VERIFY_TOKENS = 256


@dataclass(frozen=True)
class Workload:
    mode: str = "decode"
    s_kv: int = 131072
    batch: int = 1
    s_q: int | None = None

    def __post_init__(self) -> None:
        choice("mode", self.mode, MODES)
        for f in ("s_kv", "batch"):
            v = getattr(self, f)
            require(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_TOKENS,
                    lambda: f"{f} must be an integer in 1..{MAX_TOKENS}, got {short_repr(v)}")
        if self.mode == "decode":
            require(self.s_q is None or (isinstance(self.s_q, int) and not isinstance(self.s_q, bool)
                                         and 1 <= self.s_q <= MAX_VERIFY_TOKENS),
                    lambda: f"decode s_q (query tokens per sequence: 1, or k+1 for a speculative verify step) "
                    f"must be an integer in 1..{MAX_VERIFY_TOKENS}, got {short_repr(self.s_q)}")
        else:
            sq = self.s_kv if self.s_q is None else self.s_q
            require(isinstance(sq, int) and 1 <= sq <= self.s_kv,
                    lambda: f"prefill s_q must be an integer in 1..s_kv ({self.s_kv}), got {short_repr(self.s_q)}")

    @property
    def is_prefill(self) -> bool:
        return self.mode == "prefill"

    @property
    def new_tokens(self) -> int:
        """New (query) tokens per sequence in this step (T): 1 in plain decode, k+1 in a verify step."""
        if self.mode == "decode":
            return 1 if self.s_q is None else self.s_q
        return self.s_kv if self.s_q is None else self.s_q

    @property
    def prefix_tokens(self) -> int:
        """Tokens already cached before the step (P)."""
        return self.s_kv if self.mode == "decode" else self.s_kv - self.new_tokens

    @property
    def attn_pairs(self) -> float:
        """(query, key) pairs per sequence per head: decode T·P with T = 1 (the new token also
        attends to itself, ignored at long context), prefill and verify (T > 1) causal
        T·P + T(T+1)/2."""
        t, p = self.new_tokens, self.prefix_tokens
        if t == 1 and self.mode == "decode":
            return float(p)
        return t * p + t * (t + 1) / 2.0

    @property
    def tokens(self) -> int:
        """Tokens produced (decode) or processed (prefill) by the whole step; a verify step counts
        its query tokens (the accepted ones are the serving layer's, :mod:`infersim.serving.speculative`)."""
        return self.batch * self.new_tokens

