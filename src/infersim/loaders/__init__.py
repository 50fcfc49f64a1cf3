"""Layer 2, the loaders: files and text → specs. HuggingFace ``config.json`` (:mod:`.hf_read`
parses safely, :mod:`.hf_families` and :mod:`.hf_quant` hold each family's defaults and
quantisation schemes, :mod:`.hf_config` maps the fields, :mod:`.hf_model` builds the
:class:`~infersim.specs.model.ModelSpec`), hardware files (:mod:`.hardware_files`) and the bounded
file reading they share (:mod:`.files`).

May import: :mod:`infersim.specs` and :mod:`infersim.errors`. The specs never import the loaders."""
