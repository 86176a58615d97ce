"""Training runs: a folder of checkpoints ordered by training step, read as one object."""
