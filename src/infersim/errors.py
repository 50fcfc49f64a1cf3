"""One exception type for every bad input, so the CLI and the UI can show a one-line message."""


class InferSimError(ValueError):
    """Invalid user input: unknown preset, impossible parallelism, malformed config, bad sweep.

    The message is a single line naming the valid choices where there are some.
    """


def require(cond: bool, message: str) -> None:
    """Raise :class:`InferSimError` with ``message`` unless ``cond`` holds."""
    if not cond:
        raise InferSimError(message)


def choice(name: str, value, valid) -> None:
    """Reject ``value`` unless it is one of ``valid``, naming the valid choices."""
    if value not in valid:
        raise InferSimError(
            f"unknown {name} {value!r}; valid choices: {', '.join(map(str, valid))}")


def positive(name: str, value, *, allow_zero: bool = False) -> None:
    """Reject negative (or zero, unless allowed) numeric fields."""
    ok = value >= 0 if allow_zero else value > 0
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise InferSimError(f"{name} must be {bound}, got {value!r}")


class InferSimWarning(UserWarning):
    """Legal but suspicious input: an input infersim accepts but approximates or ignores (a
    config key that changes the cost and is not modelled, a context past the model's trained
    length). The message names the keys; the CLI prints it as one ``warning:`` line."""


def warn(message: str) -> None:
    """Emit an :class:`InferSimWarning` attributed to the caller's caller."""
    import warnings

    warnings.warn(message, InferSimWarning, stacklevel=3)
