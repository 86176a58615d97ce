"""Widgets the pages share: the preference control, chart controls, the add-assets panel."""
