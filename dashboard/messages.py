"""What the page says when something goes wrong, and how it writes values: one place, so
every page shows errors the same way (a message, never a traceback) and no string from a user
(a link's values, a file's name, a config's fields) can put markup in the page.

Streamlit renders the text of messages, captions and labels as Markdown, with extensions that
backslash escapes do not stop (bare `https://` and `www.` links, `:material/…:` icons). So
`inert` shows a user's string as it is only when it is plain words, and otherwise in a code
span, the one form nothing inside can escape; control and bidirectional characters are
written as escapes and the length is capped. Error text is inert too: core's messages quote
file names and config values.
"""

from __future__ import annotations

import contextlib
import html
import re
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from paretoscope.dashboard.folders import hidden_folders
from paretoscope.dashboard.streamlit_internals import server_logger
from paretoscope.errors import ParetoscopeError
from paretoscope.text import number, printable

if TYPE_CHECKING:
    import numpy as np

log = server_logger("paretoscope")

# Longest user string shown whole, and longest message.
VALUE_LIMIT = 120
MESSAGE_LIMIT = 600


# Text that no Markdown rule of Streamlit's reads as markup: letters, digits, spaces and a few
# marks, starting with a letter or digit, without a `www.` (a bare link) or a leading `1.`/`1)`
# (a list). Such text is shown as it is; anything else goes in a code span.
_PLAIN = re.compile(r"[^\W_][^\W_ ,.'()?-]*(?:[ ,.'()?-]+[^\W_]+)*[.)?]?")
_NOT_PLAIN = re.compile(r"www\.|^\d+[.)]", re.IGNORECASE)


def inert(text: object, limit: int = VALUE_LIMIT) -> str:
    """Markdown that shows `text` literally, on one line, at most `limit` characters: the text
    itself when it is plain words, else a code span (fenced with more backticks than any run
    inside it)."""
    shown = printable(text, limit)
    if not shown:
        return ""
    if _PLAIN.fullmatch(shown) and not _NOT_PLAIN.search(shown):
        return shown
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    # Spaces inside the fence are dropped by the parser: only added where a backtick meets it.
    padding = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{padding}{shown}{padding}{fence}"


# A caption's look (Streamlit's own captions: smaller, fainter), for text written as HTML.
_CAPTION_STYLE = "font-size:0.875rem;opacity:0.7;margin:0 0 0.5rem 0;line-height:1.4"


def plain_caption(text: object, limit: int = MESSAGE_LIMIT) -> None:
    """`text` (a file's field: a manifest's description) as a caption of plain words wrapping
    over lines, whatever it holds: escaped as HTML, never read as Markdown. (`inert` would set
    any text that is not plain words in one code span: a long description became a tall code
    block.) A `backticked` part is shown as code."""
    shown = printable(text, limit)
    if not shown:
        return
    # Escaped first: the <code> tags are the only markup, around text that holds none.
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(shown, quote=True))
    st.html(f'<p style="{_CAPTION_STYLE}">{escaped}</p>')


def literal(text: object, limit: int = VALUE_LIMIT) -> str:
    """Markdown that shows `text` as plain words (no code span): every markdown character
    backslash-escaped, invisible characters written visibly, at most `limit` characters."""
    return re.sub(r"([\\`*_{}\[\]<>()#+\-.!|~:$&])", r"\\\1", printable(text, limit))


def as_viewer_sees(text: str, hidden_folders: Sequence[Path] = ()) -> str:
    """`text` with the server's own folders (upload folders, the assets folder) cut from the
    paths in it: a viewer sees `evil.pkl`, not `/tmp/paretoscope-uploads-…/…/datasets/evil.pkl`."""
    from paretoscope.dashboard.uploads import upload_root_if_made

    shown = str(text)
    root = upload_root_if_made()
    if root is not None:
        # <root>/session-<id>/(agents|datasets)/<name>: the name as the user gave it.
        pattern = re.escape(str(root)) + r"/session-[^/\s'\"]*/(?:(?:agents|datasets)/)?"
        shown = re.sub(pattern, "", shown)
    for folder in sorted(hidden_folders, key=lambda path: -len(str(path))):
        shown = shown.replace(str(folder).rstrip("/") + "/", "")
    return shown


def show_problem(kind: str, what: str, message: object) -> None:
    """A message about `what` (may hold a user's name) saying `message` (core's text, may hold
    paths and user values): both inert, server folders cut."""
    folders = hidden_folders()
    subject = as_viewer_sees(what, folders)
    # Cut before the folders are: a message of megabytes is never searched or copied whole.
    text = as_viewer_sees(str(message)[: 4 * MESSAGE_LIMIT], folders)
    # Core's message usually starts with the file it is about, which `what` names already.
    head, _, rest = text.partition(": ")
    if rest and (subject == head or subject.endswith(f" {head}")):
        text = rest
    getattr(st, kind)(inert(subject) + ": " + inert(text, MESSAGE_LIMIT))


@contextlib.contextmanager
def guard(what: str) -> Iterator[None]:
    """Show any error inside the block as a message in the page, never a traceback; the rest of
    the page goes on. (Streamlit's own rerun/stop signals are not exceptions and pass.)

    paretoscope's own errors say what is wrong in its words; anything else is a bug or an
    environment failure whose text may be long, internal or alarming: the page says so briefly
    with a reference, and the server log has the traceback under the same reference.
    """
    from paretoscope.render import RenderingUnavailable

    try:
        yield
    except RenderingUnavailable as error:
        show_problem("warning", what, f"video unavailable. {error}")
    except ParetoscopeError as error:
        show_problem("error", what, error)
    except Exception:  # noqa: BLE001 - the page must survive anything
        reference = uuid.uuid4().hex[:8]
        log.exception("unexpected error in %s (reference %s)", what, reference)
        st.error(
            f"{inert(what)}: something went wrong on the server. The rest of the page works; "
            f"the server's log has the details under reference {inert(reference)}.",
        )


def describe(names: Sequence[str], values: Sequence[float] | np.ndarray, digits: int = 4) -> str:
    """ "run 1.2, energy 3.4": objective names with values (to `digits` significant digits,
    by the one formatter)."""
    return ", ".join(f"{n} {number(v, digits)}" for n, v in zip(names, values, strict=True))
