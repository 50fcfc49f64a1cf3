"""One exception type for every bad input, so the CLI and the UI can show a one-line message,
and one warning type for legal but suspicious input (the CLI prints it as one ``warning:`` line)."""
import re
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


def require(cond: bool, message) -> None:
    """Raise :class:`InferSimError` with ``message`` unless ``cond`` holds. ``message`` may be a
    callable returning it, for a message that is costly to format (a spec's ``__post_init__``
    runs for every candidate of a sweep: only a failing check should pay for its text)."""
    if not cond:
        raise InferSimError(message() if callable(message) else message)


def choice(name: str, value, valid) -> None:
    """Reject ``value`` unless it is one of ``valid``, naming the valid choices."""
    if value not in valid:
        shown = ", ".join('"" (default)' if v == "" else str(v) for v in valid)
        raise InferSimError(f"unknown {name} {value!r}; valid choices: {shown}")


def positive(name: str, value, *, allow_zero: bool = False) -> None:
    """Reject negative (or zero, unless allowed) numeric fields."""
    ok = value >= 0 if allow_zero else value > 0
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise InferSimError(f"{name} must be {bound}, got {value!r}")



#: C0 and C1 control characters and DEL: a name with ESC in it would repaint the user's terminal.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Whole terminal escape sequences (CSI ``ESC [ ... letter``, OSC ``ESC ] ... BEL``): removed,
#: not just their ESC, so that no "[31m" debris is left in the name.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
#: Longest user-supplied name kept (a name is printed in every answer line).
MAX_NAME_CHARS = 200


def printable(text: str) -> str:
    """``text`` with control characters (ESC sequences, BEL, newlines, ...) replaced by spaces:
    user strings (names from hardware files, exports, configs) reach the terminal safely."""
    return _CONTROL.sub(" ", _ESCAPES.sub("", text))


def check_name(kind: str, value) -> None:
    """A spec's display name: a non-empty string of printable characters, at most
    :data:`MAX_NAME_CHARS` long (loaders clean file names with :func:`printable` first)."""
    require(isinstance(value, str) and bool(value.strip()),
            lambda: f"{kind} name must be a non-empty string, got {short_repr(value)}")
    require(not _CONTROL.search(value), lambda: f"{kind} name must not contain control characters, "
                                                f"got {short_repr(value)}")
    require(len(value) <= MAX_NAME_CHARS, f"{kind} name is longer than {MAX_NAME_CHARS} characters")


def short_repr(value, limit: int = 40) -> str:
    """``repr(value)`` cut to one short line, so a 400-digit integer cannot flood a message
    (and one beyond Python's int-to-str digit limit cannot raise while formatting it)."""
    try:
        text = repr(value)
    except ValueError:
        return f"an integer of {value.bit_length()} bits"
    text = " ".join(text.split())
    return text if len(text) <= limit else f"{text[:limit - 3]}..."
