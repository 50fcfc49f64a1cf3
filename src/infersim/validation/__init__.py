"""Layer 10, the validation: predictions against published measurements (:mod:`.validate`, the
bounded calibration fit scored on sources it never saw; :mod:`.serving`, request-level serving
rows) and the measurements themselves with their sources (:mod:`.data`).

May import: every computing layer (specs to co-design). Only the front ends import it."""
