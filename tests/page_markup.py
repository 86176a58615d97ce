"""What markup a page's text holds, read the way Streamlit's front end reads it: the Markdown of
every message, caption, heading and label of an AppTest run, parsed by a CommonMark parser
(markdown-it), plus the extensions Streamlit adds on top (bare links, `:material/…:` icons,
emoji shortcodes, `:color[…]` directives, `$…$` maths), and the tags in plotly figures' text.

The page's own raw HTML (`st.html`: the episode player) is read as HTML: its tags and their
attribute names, not the values (a string from a link may fill a value, escaped, never add a
tag or an attribute).

Used to check that strings from links and files stay inert: a hostile page may hold no markup
that the same page without them does not hold.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# Streamlit's extensions that CommonMark reads as plain text (outside code spans).
EXTENSIONS = re.compile(
    r"https?://|www\.|[\w.+-]@[\w-]+\.\w|:material/|:[a-z0-9_+-]+:|:[a-z-]+\[|\$"
    r"|[\u202a-\u202e\u2066-\u2069]",
    re.IGNORECASE,
)
MARKUP = {"link_open", "image", "html_inline", "html_block", "strong_open", "em_open", "s_open"}
BLOCKS = {
    "heading_open",
    "bullet_list_open",
    "ordered_list_open",
    "blockquote_open",
    "table_open",
    "hr",
    "fence",
    "code_block",
}
_TAG = re.compile(r"<\s*/?\s*([a-z][a-z0-9]*)", re.IGNORECASE)


def markup_of(markdown: str) -> set[tuple[str, str]]:
    """The markup in one Markdown text: (kind, what) pairs: block elements, links and their
    targets, emphasis with its text, raw HTML, and Streamlit's extensions in plain text."""
    found: set[tuple[str, str]] = set()
    for token in _PARSER.parse(markdown):
        if token.type in BLOCKS:
            found.add((token.type, token.markup))
        children = token.children or []
        for index, child in enumerate(children):
            if child.type in MARKUP:
                # A link by its target, emphasis by the text it holds.
                inner = children[index + 1].content if index + 1 < len(children) else ""
                found.add((child.type, str(child.attrs.get("href") or child.content or inner)))
            if child.type == "text":
                found.update(("extension", m.group(0)) for m in EXTENSIONS.finditer(child.content))
    return found


def texts(at: Any) -> Iterator[str]:
    """Every Markdown-rendered string of an AppTest run: element bodies and widget labels."""
    for node in walk(at._tree):
        kind = getattr(node, "type", "")
        value = getattr(node, "value", None)
        shown = ("markdown", "caption", "title", "header", "subheader", "toast")
        if kind in (*shown, "error", "warning", "info", "success") and isinstance(value, str):
            yield value
        proto = getattr(node, "proto", None)
        body = getattr(proto, "body", None)
        if isinstance(body, str) and body and kind != "html":
            yield body
        label = getattr(node, "label", None)
        if isinstance(label, str):
            yield label
        text = getattr(proto, "text", None)
        if isinstance(text, str) and text:
            yield text  # spinners and progress bars


def page_markup(at: Any) -> set[tuple[str, str]]:
    """The markup of the whole page, and the tags in its plotly figures' strings."""
    found: set[tuple[str, str]] = set()
    for text in texts(at):
        found |= markup_of(text)
    for node in walk(at._tree):
        proto = getattr(node, "proto", None)
        spec = getattr(proto, "spec", None)
        kind = getattr(node, "type", "")
        if kind == "html":
            found |= html_tags(proto.body)
        figures = []
        if kind == "plotly_chart" and isinstance(spec, str):
            figures.append(json.loads(spec))
        elif kind == "component_instance":
            # Custom components that draw plotly figures (the front chart) pass them as
            # arguments, some as JSON strings of their own.
            arguments = json.loads(proto.json_args)
            figures.append(arguments)
            figures.extend(
                json.loads(value)
                for value in arguments.values()
                if isinstance(value, str) and value.startswith("{")
            )
        for figure in figures:
            for string in _strings(figure):
                found.update(("plotly tag", tag.lower()) for tag in _TAG.findall(string))
    return found


def html_tags(body: str) -> set[tuple[str, str]]:
    """The tags of raw HTML, each with its attributes' names: ("html tag", "video autoplay …")."""
    found: set[tuple[str, str]] = set()

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.add(("html tag", " ".join([tag, *sorted(name for name, _ in attrs)])))

    Tags().feed(body)
    return found


def walk(node: Any) -> Iterator[Any]:
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from walk(child)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
