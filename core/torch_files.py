"""Reading torch files that may come from anyone: tensors and plain containers only
(``weights_only=True``), and refusals in paretoscope's words.

torch's own refusal tells the reader how to load the file anyway (``weights_only=False``,
``add_safe_globals([exec])``): advice to run the very code that was refused. So its message is
never passed on; what is kept is the name of the global the file asked for, or, for a damaged
file, a short reason that holds no such advice.
"""

from __future__ import annotations

import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import torch

from core.errors import ParetoscopeError

_GLOBAL = re.compile(r"GLOBAL ([\w.]+)")
# Lines of torch's text that give advice on loading the file anyway.
_ADVICE = re.compile(r"weights_only|safe_globals|allowlist|trust|torch\.load|pytorch\.org", re.I)


def load_tensors(path: Path, what: str = "torch checkpoint") -> Any:
    """The content of the torch file at `path`, built without running any code from it.

    Raises `ParetoscopeError` naming the global a file with a code payload asked for (nothing
    from it ran), or saying that the file is not a readable `what`.
    """
    try:
        with warnings.catch_warnings():
            # torch warns about pickle protocols it was not written with; the error says more.
            warnings.simplefilter("ignore", UserWarning)
            return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        asked = _GLOBAL.search(str(error))
        if asked is not None:
            raise ParetoscopeError(
                f"{path}: refused: the file asks to build Python objects other than tensors "
                f"(the global {asked.group(1)!r}); nothing from the file was run. paretoscope "
                "reads tensors only from a torch file."
            ) from None
        raise ParetoscopeError(f"{path}: not a readable {what} ({_reason(error)})") from None
    except (RuntimeError, EOFError, KeyError, ValueError, OSError, AttributeError) as error:
        raise ParetoscopeError(
            f"{path}: not a readable {what} (truncated or another format: "
            f"{type(error).__name__}: {_reason(error)})"
        ) from None


def _reason(error: BaseException) -> str:
    """The lines of `error` that describe the damage, without torch's loading advice."""
    text = str(error).replace("WeightsUnpickler error:", "\n")
    lines = [line.strip() for line in text.splitlines()]
    kept = [line for line in lines if line and not _ADVICE.search(line)]
    return ("; ".join(kept) or "unreadable content")[:200]
