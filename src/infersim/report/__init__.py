"""Layer 5, the presentation: number formatting (:mod:`.fmt`), tables as pandas frames
(:mod:`.frames`) and Plotly figures (:mod:`.plots`). Pure presentation: it computes nothing of
the model.

May import: :mod:`infersim.cost` (the names of the breakdown's components), the specs and
:mod:`infersim.errors`. The result types above it call it to draw and tabulate themselves."""
