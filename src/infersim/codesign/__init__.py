"""Layer 9, hardware co-design: candidate grids (:mod:`.grid`, :mod:`.types`), the exact pruned
per-candidate parallelism search (:mod:`.search`), result tables and frontiers (:mod:`.results`),
sensitivity and "what it takes" (:mod:`.sensitivity`), the answer in words (:mod:`.answer`), the
sourced cost and power model (:mod:`.economics`), the sweep's front door
(:mod:`.auto_hardware`, public as ``infersim.auto_hardware``) and co-design at a serving SLA
(:mod:`.sla`).

May import: :mod:`infersim.serving`, :mod:`infersim.search` and every layer below them."""
