"""The MORL-Baselines algorithms paretoscope reads: each one's name (``--kind``), the
paretoscope kind its save becomes (`paretoscope.agents.morlb.agents`) and its label. Shared by
the torch-free importer and the readers of the save layouts (`convert`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Algorithm:
    """One MORL-Baselines algorithm: its name, what it becomes, what it is."""

    name: str
    kind: str  # the paretoscope kind (paretoscope.agents.morlb.agents)
    label: str


ALGORITHMS: dict[str, Algorithm] = {
    algorithm.name: algorithm
    for algorithm in (
        Algorithm("capql", "morlb_actor", "CAPQL"),
        Algorithm("gpi-pd-continuous", "morlb_actor", "GPI-PD (continuous actions)"),
        Algorithm("envelope", "morlb_envelope", "Envelope Q-learning"),
        Algorithm("gpi-ls", "morlb_gpi", "GPI-LS"),
        Algorithm("gpi-pd", "morlb_gpi", "GPI-PD (discrete actions)"),
        Algorithm("morld", "morlb_actor_set", "MORL/D"),
        Algorithm("pcn", "morlb_pcn", "PCN"),
        Algorithm("pgmorl", "morlb_actor_set", "PGMORL (archive saved as documented)"),
    )
}
