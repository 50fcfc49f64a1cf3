"""One exception type for every bad input, so the CLI and the UI can show a one-line message,
and one warning type for legal but suspicious input (the CLI prints it as one ``warning:`` line)."""
import warnings


class InferSimError(ValueError):
    """Invalid user input: unknown preset, impossible parallelism, malformed config, bad sweep.

    The message is a single line naming the valid choices where there are some.
    """


class InferSimWarning(UserWarning):
    """Legal but suspicious input: an input infersim accepts but approximates or ignores (a
    config key that changes the cost and is not modelled, a context past the model's trained
    length). The result is computed; the CLI prints the message as one ``warning:`` line."""


def warn(message: str, stacklevel: int = 3) -> None:
    """Emit :class:`InferSimWarning`; ``stacklevel`` 3 points at the caller's caller (the user)."""
    warnings.warn(message, InferSimWarning, stacklevel=stacklevel)


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



def short_repr(value, limit: int = 40) -> str:
    """``repr(value)`` cut to one short line, so a 400-digit integer cannot flood a message
    (and one beyond Python's int-to-str digit limit cannot raise while formatting it)."""
    try:
        text = repr(value)
    except ValueError:
        return f"an integer of {value.bit_length()} bits"
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit - 3]}..."
