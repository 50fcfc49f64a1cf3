"""Layer 7, the parallelism search on one hardware: the full space of configurations
(:mod:`.space`), the ranked exploration (:mod:`.auto_explore`), the memory-minimum suggestion
(:mod:`.autosuggest`), the objectives that rank them (:mod:`.objectives`) and the Pareto filter
(:mod:`.pareto`).

May import: :mod:`infersim.simulate`, :mod:`infersim.report`, :mod:`infersim.cost` and the layers
below it. Serving, co-design and the front ends build on the search; it never imports them."""
