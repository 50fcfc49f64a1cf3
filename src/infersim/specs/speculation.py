"""Speculative decoding: a drafter proposes ``k`` tokens per sequence, the target verifies them in
one step of k+1 query tokens (:class:`~infersim.specs.workload.Workload` ``s_q = k + 1``), and the
accepted prefix plus one corrected token is kept.

With a per-token acceptance rate α (each drafted token is accepted with probability α, given the
ones before it were), the expected tokens a sequence gains per step is (Leviathan et al. 2023,
"Fast Inference from Transformers via Speculative Decoding", eq. 1)

    E = (1 − α^(k+1)) / (1 − α)          (k + 1 when α = 1; 1 when k = 0 or α = 0)

Drafters (``method``):

* ``mtp``   — a multi-token-prediction module shipped with the model (DeepSeek-V3): one more
  transformer layer of the target's shape, sharing its embedding and LM head.
* ``eagle`` — an EAGLE-style head (Li et al. 2024): one dense decoder layer at the target's
  width on its hidden states, sharing its embedding and LM head.
* ``draft`` — a separate, smaller model (``draft_model``, its own ModelSpec) drafting token by
  token (Leviathan et al. 2023; Chen et al. 2023).

``alpha=None`` takes the method's published default (:data:`DEFAULT_ALPHA`, sources there); give
the α you measured on your traffic when you have it: it dominates the answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from infersim.errors import choice, require, short_repr

METHODS = ("mtp", "eagle", "draft")
#: Most tokens a drafter may propose per step (engines cap chains well below this).
MAX_K = 16
#: k values the SLA search tries when ``k`` is None ("auto"): 0 (no speculation) included.
AUTO_KS = (0, 1, 2, 3, 4, 5, 6, 7)

#: Published per-token acceptance rates, per method:
#: ``mtp``   0.85 — DeepSeek-V3 Technical Report (arXiv 2412.19437, §5.4.3): "the acceptance rate
#:           of the second token prediction ranges between 85% and 90%" (k = 1); lower end taken.
#: ``eagle`` 0.75 — EAGLE (Li et al., ICML 2024, arXiv 2401.15077): per-position acceptance of
#:           chain drafts on MT-bench of about 0.7-0.8 across Vicuna / LLaMA2-Chat targets.
#: ``draft`` 0.70 — Leviathan et al. 2023 (arXiv 2211.17192), Table 3: α of 0.6-0.8 for drafts two
#:           orders of magnitude smaller than the target (T5-small for T5-XXL, LaMDA 100M-8B
#:           for LaMDA 137B).
DEFAULT_ALPHA = {"mtp": 0.85, "eagle": 0.75, "draft": 0.70}


def tokens_per_step(alpha: float, k: int) -> float:
    """Expected tokens per sequence per speculative step, E = (1 − α^(k+1)) / (1 − α)
    (Leviathan et al. 2023, eq. 1); k + 1 at α = 1, exactly 1.0 at k = 0."""
    if k == 0:
        return 1.0
    if alpha >= 1.0:
        return float(k + 1)
    return (1.0 - alpha ** (k + 1)) / (1.0 - alpha)


@dataclass(frozen=True)
class Speculation:
    """A drafter proposing ``k`` tokens per step, accepted at rate ``alpha`` (None: the method's
    default). ``k=None`` lets the SLA search choose k from :data:`AUTO_KS`; ``k=0`` is plain
    decode (no drafter loaded)."""

    method: str = "eagle"
    k: int | None = 3
    alpha: float | None = None
    draft_model: object | None = None     # a ModelSpec, required for method "draft"

    def __post_init__(self) -> None:
        choice("speculative method", self.method, METHODS)
        require(self.k is None or (isinstance(self.k, int) and not isinstance(self.k, bool)
                                   and 0 <= self.k <= MAX_K),
                f"speculative k (tokens drafted per step) must be an integer in 0..{MAX_K}, "
                f"got {short_repr(self.k)}")
        require(self.alpha is None or (isinstance(self.alpha, (int, float)) and not isinstance(self.alpha, bool)
                                       and 0.0 <= self.alpha <= 1.0),
                f"speculative alpha (acceptance rate) must be a number in [0, 1], got {short_repr(self.alpha)}")
        if self.method == "draft":
            require(self.draft_model is not None and hasattr(self.draft_model, "n_layers"),
                    "speculative method 'draft' needs draft_model (a ModelSpec, e.g. PRESETS['Llama 3.1 8B'].model)")
        else:
            require(self.draft_model is None,
                    f"draft_model is only used by method 'draft', not {self.method!r}")

    @property
    def acceptance(self) -> float:
        """α: the given one or the method's published default."""
        return float(DEFAULT_ALPHA[self.method] if self.alpha is None else self.alpha)

    @property
    def tokens_per_step(self) -> float:
        """E for this k and α (``k`` must be set)."""
        require(self.k is not None, "k is 'auto': the SLA search chooses it")
        return tokens_per_step(self.acceptance, self.k)

    def with_k(self, k: int) -> "Speculation":
        return Speculation(self.method, k, self.alpha, self.draft_model)

    def describe(self) -> str:
        draft = f" ({self.draft_model.name})" if self.method == "draft" else ""
        k = "auto" if self.k is None else str(self.k)
        e = "" if self.k is None else f", {self.tokens_per_step:.2f} tokens/step"
        return f"{self.method}{draft} k={k} α={self.acceptance:g}{e}"

    def to_dict(self) -> dict:
        out = {"method": self.method, "k": self.k, "alpha": self.acceptance,
               "draft_model": self.draft_model.name if self.draft_model is not None else None}
        if self.k is not None:
            out["tokens_per_step"] = self.tokens_per_step
        return out
