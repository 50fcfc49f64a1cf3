"""Hardware co-design internals: candidate grids (``grid``), the exact pruned per-candidate search
(``search``), result tables and frontiers (``results``), sensitivity and "what it takes"
(``sensitivity``). The public API is :mod:`infersim.auto_hardware`."""
