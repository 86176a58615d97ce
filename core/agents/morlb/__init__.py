"""MORL-Baselines checkpoints: the importer (`importer`, torch-free sniffing), the algorithms it
knows (`algorithms`), the readers of its save layouts (`convert`), its MLPs read from state_dicts
(`layers`) and the agents (`agents`)."""
