"""Layer 1, the specs: frozen, validated descriptions of what is simulated — the model
(:mod:`.model`), the hardware (:mod:`.hardware`, its efficiency curves :mod:`.efficiency`), the
parallelism (:mod:`.parallel`), the workload (:mod:`.workload`), the runtime's software overheads
(:mod:`.runtime`), the size limits (:mod:`.limits`) and the named registries (:mod:`.registry`).

May import: :mod:`infersim.errors` only. Everything else imports the specs; they import nothing
above them (reading a ``config.json`` or a hardware file is the loaders' job)."""
