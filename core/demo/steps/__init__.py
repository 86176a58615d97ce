"""The steps of a demo build, one module per kind of artefact: behaviour sets, datasets, offline
agents, MORL-Baselines agents, sweeps and the manifest. Each makes a `Step` (its settings, how
to run or adopt it) for `paretoscope.demo.pipeline` to skip, continue or run."""
