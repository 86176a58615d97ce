"""The page's own few style rules, added to every page once per run: what Streamlit's theme
leaves hard to see or to reach.

- The slider's thumb, when its (hidden) range input has the keyboard's focus, gets a ring no
  one can miss (the theme's is a faint halo).
- On a narrow screen (a phone), where Streamlit stacks a row's columns, the Explore page shows
  its front first, right under the preference slider, and the video after it (side by side on
  a wide screen the video is on the left)."""

from __future__ import annotations

import streamlit as st

# The container that holds the Explore page's video and front columns (`st.container(key=)`
# gives it this class).
EXPLORE_COLUMNS_KEY = "explore_columns"
FOCUS_COLOUR = "#1f77b4"
# Streamlit stacks columns below this width.
NARROW = 640

PAGE_STYLE = f"""<style>
[data-testid="stSlider"] div:has(> div > input[type="range"]:focus-visible) {{
  outline: 3px solid {FOCUS_COLOUR};
  outline-offset: 3px;
}}
@media (max-width: {NARROW}px) {{
  .st-key-{EXPLORE_COLUMNS_KEY} [data-testid="stHorizontalBlock"]
    > [data-testid="stColumn"]:nth-child(2) {{
    order: -1;
  }}
}}
</style>"""


def apply_page_style() -> None:
    """Add the rules to this run's page (a style element takes no room)."""
    st.html(PAGE_STYLE)
