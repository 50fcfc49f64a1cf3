"""Published measurements, each row with its source and exact setup: single steps
(:mod:`.measurements`) and request-level serving (:mod:`.serving_measurements`)."""
