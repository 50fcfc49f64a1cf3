"""Layer 3, the presets: the shipped models (``models/*.json``, HuggingFace configs, read by
:mod:`.model_presets`) and hardware (``hardware/*.toml``, sourced data files, read by
:mod:`.hardware_presets`, which also resolves a ``--hw`` name or file).

May import: :mod:`infersim.loaders`, :mod:`infersim.specs`, :mod:`infersim.errors`."""
