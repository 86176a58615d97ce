"""Short entries for the sidebar's select boxes, which cut long ones ("MORvS (halfcheetah,
expert-unif"): a label too long for the box is cut to its head before its parenthesised
details, when no other entry of the list has the same head; the details go in a caption under
the box."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping


def split_label(label: str) -> tuple[str, str]:
    """("MORvS", "halfcheetah, expert-uniform") from "MORvS (halfcheetah, expert-uniform)";
    (label, "") when it has no parenthesised tail."""
    head, bracket, tail = label.partition(" (")
    if not bracket or not tail.endswith(")") or not head.strip():
        return label, ""
    return head, tail[:-1]


# About the most characters a sidebar's select box shows whole (it cut "MO-HalfCheetah-v2 (2
# objectives" after 31).
FITS = 28


def short_labels(labels: Mapping[str, str]) -> dict[str, str]:
    """Each name's entry in the list: a label that fits as it is; a longer one cut to its head
    where that head is the only one of its kind in `labels` (two "MORvS" would be told apart by
    nothing), else whole."""
    heads = {name: split_label(label)[0] for name, label in labels.items()}
    counts = Counter(heads.values())

    def entry(name: str) -> str:
        label = labels[name]
        return heads[name] if len(label) > FITS and counts[heads[name]] == 1 else label

    return {name: entry(name) for name in labels}


def label_details(labels: Mapping[str, str], name: str) -> str:
    """What the short entry of `name` leaves out ("" when nothing)."""
    label = labels.get(name)
    if label is None:
        return ""
    short = short_labels(labels)[name]
    return "" if short == label else split_label(label)[1]
