"""The figures paretoscope draws, one module per kind: pure functions from numbers to
`plotly.graph_objects.Figure`, shared by the dashboard and the notebook API
(`paretoscope.plot`).

Nothing here imports Streamlit or the dashboard, or touches files or agents; every function
takes arrays and returns a figure, so each can be tested on its own, and the dashboard, the
notebook API and the report share them. Kinds: `front` (the Pareto front and the target
grid), `hypervolume` (the region each front dominates), `rtg` (RTG following), `dataset` (a
dataset's returns and preference coverage), `episode` (one episode's rewards), `preference`
(the ternary preference picker), `training` (a training run's fronts and metrics over its
steps), `attainment` (the spread across seeds), `behaviour` (the behaviour embedding, where two
episodes' returns part) and `objectives` (linked views of a front with any number of
objectives). `style` and `labels` hold what they share (colours, hover texts,
the notebook's size and template); `selection` reads a Streamlit selection's clicked points
back.
"""
