"""Data files shipped with infersim (published measurements)."""
