"""The demo recipe: every setting of the bundled demo, in typed dataclasses. Each trainer's
settings are its own settings object (`paretoscope.settings`), held as they are.

`FULL` is the bundled demo (`paretoscope demo build`); `QUICK` is a tiny version with the same
structure that builds in a minute or two, for tests. The full recipe's numbers all sit in
`full_recipe()` below, the one place to tune them.

Names of the artefacts follow from the recipe: ``<env short name>-behaviour``,
``<short name>-<quality>-<distribution>`` for datasets and ``<short name>-<kind>`` for the
offline agents.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from paretoscope.catalog import SweepPlan
from paretoscope.discount import check_gamma
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.settings import (
    ARSConfig,
    BehaviourTrainingSettings,
    MemberTraining,
    NetworkSettings,
    OfflineTrainingSettings,
)
from paretoscope.text import briefly


@dataclass(frozen=True)
class DatasetRecipe:
    """A dataset collected from the behaviour policies (`paretoscope.collect`), D4MORL
    style."""

    quality: str  # expert | amateur
    episodes: int
    distribution: str = "uniform"
    seed: int = 0
    horizon: int | None = None  # None: the env's horizon
    batch_size: int = 16  # episodes in lockstep; does not change the data
    action_noise: float = 0.0  # expert only: Gaussian noise, times half the action range

    @property
    def suffix(self) -> str:
        return f"{self.quality}-{self.distribution}"


@dataclass(frozen=True)
class OfflineRecipe:
    """An offline agent (`paretoscope.train.offline.train_offline`) trained on one of the
    datasets with `settings` (its `steps` may grow between builds: training resumes)."""

    kind: str  # morvs | bc | modt
    settings: OfflineTrainingSettings
    dataset: str = "expert-uniform"  # which of the env's datasets (quality-distribution)


@dataclass(frozen=True)
class RunRecipe:
    """A training run bundled for the Training page: an offline agent trained with
    `settings.snapshot_every` set, so its folder keeps the agent every N steps
    (``snapshots/step=N/``), each snapshot swept on the env's plan."""

    kind: str  # morvs | bc | modt
    settings: OfflineTrainingSettings  # with snapshot_every
    dataset: str = "expert-uniform"

    def __post_init__(self) -> None:
        if self.settings.snapshot_every is None:
            raise ParetoscopeError(f"the {self.kind} training run needs snapshot_every")

    @property
    def snapshots(self) -> int:
        """How many snapshots the run keeps (every N steps, and the last)."""
        every = self.settings.snapshot_every
        assert every is not None
        return -(-self.settings.steps // every)


@dataclass(frozen=True)
class EnvRecipe:
    """Everything built for one environment."""

    env_id: str
    short_name: str  # prefix of the artefact names, e.g. "halfcheetah"
    label: str
    # ARS behaviour policies (`paretoscope.train.train_behaviour`): its `iterations`, the
    # budget per member, may grow between builds (training resumes).
    behaviour: BehaviourTrainingSettings
    datasets: tuple[DatasetRecipe, ...]
    agents: tuple[OfflineRecipe, ...]
    sweep: SweepPlan
    # HalfCheetah-v2 only: report the run-most member's speed and the energy-most one's cost.
    motion_figures: bool = False
    runs: tuple[RunRecipe, ...] = ()  # training runs with snapshots (the Training page's)

    @property
    def behaviour_name(self) -> str:
        return f"{self.short_name}-behaviour"

    def dataset_name(self, dataset: DatasetRecipe | str) -> str:
        suffix = dataset if isinstance(dataset, str) else dataset.suffix
        return f"{self.short_name}-{suffix}"

    def agent_name(self, agent: OfflineRecipe) -> str:
        return f"{self.short_name}-{agent.kind}"

    def run_name(self, run: RunRecipe) -> str:
        return f"{self.short_name}-{run.kind}-run"


@dataclass(frozen=True)
class MorlbRecipe:
    """An MO-Gymnasium agent trained by MORL-Baselines' own code (a build-time extra of the
    demo: `paretoscope.demo.morlb_training`), then imported through paretoscope's importer.

    `options` go to the algorithm's constructor, `train_options` to its ``train`` (as
    (name, value) pairs, so the recipe stays hashable). The sweep is stored at the dashboard's
    default discount (the plan's, undiscounted) and again at `front_gamma`, where the agent's
    front is measured against the env's known front (None: the env has none, e.g. MuJoCo).
    Without `keep_saved_file`, the library's own file is deleted once imported (CAPQL's holds
    its critics and optimiser states: 3 MB against the actor's 0.3).
    """

    env_id: str
    name: str  # the artefact's name, e.g. "dst-gpi-ls"
    label: str
    algorithm: str  # a key of paretoscope.demo.morlb_training.ALGORITHMS
    timesteps: int
    sweep: SweepPlan
    options: tuple[tuple[str, Any], ...] = ()
    train_options: tuple[tuple[str, Any], ...] = ()
    seed: int = 0
    episode_limit: int | None = None  # a TimeLimit on the training envs (None: the env's own)
    front_gamma: float | None = 0.99
    keep_saved_file: bool = True


@dataclass(frozen=True)
class QualityTargets:
    """The quality bar (issues 9 and 21), checked on the sweeps and printed as met / NOT met."""

    # At most this many dominated behaviour members (at their own preferences), per env id,
    # and at least this many non-dominated ones (a set thinned by dropping still needs them).
    max_dominated_members: tuple[tuple[str, int], ...] = (
        ("MO-HalfCheetah-v2", 0),
        ("MO-Hopper-v3", 2),
    )
    min_non_dominated_members: tuple[tuple[str, int], ...] = (("MO-Hopper-v3", 13),)
    # The behaviour set's front over the sweep grid: largest normalised neighbour gap, per env.
    max_front_gap: tuple[tuple[str, float], ...] = (("MO-HalfCheetah-v2", 0.15),)
    run_most_min_speed: float = 3.0  # m/s, HalfCheetah run-most member
    # "the energy-most one moves little and spends little": our reading of it.
    energy_most_max_speed: float = 0.5  # m/s
    energy_most_max_action_cost: float = 0.5  # mean sum of squared actions per step
    # Offline agents' hypervolume over their behaviour set's (same grid, held-out seeds), per
    # kind (BC's fraction is reported, not checked).
    min_hypervolume_fraction: tuple[tuple[str, float], ...] = (("morvs", 0.9), ("modt", 0.85))
    # MORL-Baselines agents: their hypervolume over the known front's, at the recipe's gamma.
    min_known_front_fraction: float = 0.9


@dataclass(frozen=True)
class DemoRecipe:
    """The whole demo: envs, how many sweep worker processes, the quality targets."""

    name: str  # "full" or "quick"
    title: str
    description: str
    envs: tuple[EnvRecipe, ...]
    morlb: tuple[MorlbRecipe, ...] = ()  # MO-Gymnasium agents trained by MORL-Baselines
    # What the dashboard opens on (manifest defaults): an agent of the first env (None: its
    # MORvS) and a preference (None: the middle of the simplex).
    opening_agent: str | None = None
    opening_preference: tuple[float, ...] | None = None
    sweep_workers: int | None = None  # None: all cores; does not change the results
    # An offline agent's training/state.pt (weights plus AdamW moments, about 3x the agent) is
    # needed only to continue its training; without it a larger step budget retrains from
    # step 0 (to the same result, training being deterministic). Dropped once an agent is
    # finished unless kept, to stay within the size budget.
    keep_offline_training_state: bool = False
    targets: QualityTargets = field(default_factory=QualityTargets)

    def __post_init__(self) -> None:
        names = [imported.name for imported in self.morlb]
        if len(set(names)) != len(names):
            raise ParetoscopeError(f"recipe {self.name}: MORL-Baselines agent names repeat")
        for imported in self.morlb:
            get_spec(imported.env_id)
            if imported.front_gamma is not None:
                check_gamma(imported.front_gamma)
        for env in self.envs:
            spec = get_spec(env.env_id)
            suffixes = [dataset.suffix for dataset in env.datasets]
            if len(set(suffixes)) != len(suffixes):
                raise ParetoscopeError(f"recipe {self.name}: {env.env_id} repeats a dataset")
            trained: tuple[OfflineRecipe | RunRecipe, ...] = (*env.agents, *env.runs)
            for agent in trained:
                if agent.dataset not in suffixes:
                    raise ParetoscopeError(
                        f"recipe {self.name}: {env.env_id} agent {agent.kind} trains on "
                        f"{briefly(agent.dataset)}, which the recipe does not collect ({suffixes})"
                    )
            if env.behaviour.preferences is not None:
                for row in env.behaviour.preferences:
                    if len(row) != spec.n_obj:
                        raise ParetoscopeError(
                            f"recipe {self.name}: {env.env_id} preference {row} needs "
                            f"{spec.n_obj} entries"
                        )

    def env(self, env_id: str) -> EnvRecipe:
        for env in self.envs:
            if env.env_id == env_id:
                return env
        raise ParetoscopeError(f"recipe {self.name}: no env {briefly(env_id)}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --- the full demo: the one place to tune --------------------------------------------------------

# HalfCheetah's front between standing still and full speed is not convex: trained on w·r, every
# member with w_run >= 0.3 ran at 3.4-3.9 m/s and every one below stood still, so the slider
# showed one gait for 70% of its travel. And at full speed the members' energy returns scattered
# (1604 to 1872 for w_run 0.4 to 0.9 at 3.83-3.9 m/s), so runs a few points apart decided which
# of them were dominated. Here every member but the standing one trains on a target speed: its
# run reward min(4, v) + 1 capped at the target + 1, weighted 0.8 against 0.2 on energy, asks for
# that speed at the least energy. The targets fall from 3.9 m/s by 0.15-0.25 m/s per 0.05 of
# preference (closer near full speed, where energy climbs fastest), so neighbours on the front
# are about 0.1 of its range apart and each runs visibly slower than the last; (0, 1) stands.
HALFCHEETAH_TARGET_SPEEDS = (  # (w_run, target speed in m/s)
    (0.85, 3.9),
    (0.8, 3.75),
    (0.75, 3.6),
    (0.7, 3.4),
    (0.65, 3.2),
    (0.6, 3.0),
    (0.55, 2.75),
    (0.5, 2.5),
    (0.45, 2.25),
    (0.4, 2.0),
    (0.35, 1.75),
    (0.3, 1.5),
    (0.25, 1.25),
    (0.2, 1.0),
    (0.15, 0.75),
    (0.1, 0.5),
    (0.05, 0.25),
)
TARGET_WEIGHTS = (0.8, 0.2)


def _pair(w_run: float) -> tuple[float, float]:
    return (w_run, round(1.0 - w_run, 10))


def halfcheetah_behaviour() -> BehaviourTrainingSettings:
    """18 members: 17 target speeds, fastest first (each member starts from its faster
    neighbour's policy), then standing still. A preference above 0.85 picks the fastest."""
    targets = tuple(
        MemberTraining(_pair(w_run), weights=TARGET_WEIGHTS, caps=(speed + 1.0, None))
        for w_run, speed in HALFCHEETAH_TARGET_SPEEDS
    )
    return BehaviourTrainingSettings(
        preferences=(*(member.preference for member in targets), (0.0, 1.0)),
        iterations=150,
        workers=2,
        seed=0,
        train_on=targets,
        # The two fastest members ran alike (2431 on their evaluation, and on the sweep's
        # seeds the slower-meant one ran as fast at less cost): a run within 0.5% of the
        # range is a tie, so the one spending more is left out.
        drop_dominated=0.005,
    )


# MO-Swimmer-v2 (forward Δx/dt, energy 0.3 − 0.15·Σa²): in a probe (60 iterations) members on
# w·r swam at 0.50 m/s spending nearly all the energy there is (w = (1, 0): returns (250, 20)),
# at 0.48 m/s for half of it ((0.5, 0.5): (240, 50)), and hardly at all from w_forward 0.2 down
# ((56, 144), (45, 143)): HalfCheetah's hole again. A target-speed member trained from zero
# swam at 0.16 m/s, so (1, 0) trains on its own preference first and the targets, 0.48 down to
# 0.04 m/s, start from it; (0, 1) last.
SWIMMER_TARGET_SPEEDS = (  # (w_forward, target speed in m/s)
    (0.9, 0.48),
    (0.8, 0.44),
    (0.7, 0.4),
    (0.6, 0.35),
    (0.5, 0.3),
    (0.4, 0.25),
    (0.3, 0.2),
    (0.2, 0.14),
    (0.1, 0.08),
    (0.05, 0.04),
)


def _speeds_between(
    target_speeds: tuple[tuple[float, float], ...], cap_offset: float, **settings: Any
) -> BehaviourTrainingSettings:
    """(1, 0) on its own preference, one member per (w, target speed) whose first objective is
    capped at the speed + `cap_offset` (weights (0.8, 0.2)), each starting from the faster
    one, then (0, 1); members dominated on their own evaluation are dropped."""
    targets = tuple(
        MemberTraining(_pair(w), weights=TARGET_WEIGHTS, caps=(speed + cap_offset, None))
        for w, speed in target_speeds
    )
    return BehaviourTrainingSettings(
        preferences=((1.0, 0.0), *(member.preference for member in targets), (0.0, 1.0)),
        workers=2,
        seed=0,
        train_on=targets,
        drop_dominated=0.005,
        **settings,
    )


def swimmer_behaviour() -> BehaviourTrainingSettings:
    """12 members: (1, 0) on its own preference, 10 target speeds, then (0, 1)."""
    return _speeds_between(SWIMMER_TARGET_SPEEDS, 0.0, iterations=150)


# MO-Walker2d-v2 (speed Δx/dt + 1, energy 5 − Σa²): in a probe, the w = (1, 0) member (ARS with
# 32 directions, the best 16, noise 0.025, step 0.03; Mania et al.'s Walker2d settings but for
# the direction count) walked at about 2.6 m/s spending 3.5 of Σa² per step after 300
# iterations. The targets, 2.2 m/s down to 0.4 m/s, start from it as on Swimmer; only the speed
# objective's alive bonus is shifted away, so the (0, 1) member is still paid for standing.
WALKER_TARGET_SPEEDS = (  # (w_speed, target speed in m/s)
    (0.85, 2.2),
    (0.75, 1.9),
    (0.65, 1.6),
    (0.5, 1.3),
    (0.4, 1.0),
    (0.3, 0.7),
    (0.15, 0.4),
)


def walker_behaviour() -> BehaviourTrainingSettings:
    """9 members: (1, 0) on its own preference, 7 target speeds, then (0, 1)."""
    return _speeds_between(
        WALKER_TARGET_SPEEDS,
        1.0,  # the speed reward is Δx/dt + 1
        iterations=200,
        ars=ARSConfig(directions=32, top_directions=16, step_size=0.03, noise=0.025),
        survival_bonus=(1.0, 0.0),
    )


SWEEP_SEEDS = (0, 1, 2)

# Offline training in one torch thread: the weights then do not depend on the machine's core
# count, and a busy machine does not stall the threads waiting for each other (two threads on
# a loaded 2-core machine trained 20-100x slower).
TRAINING_THREADS = 1


def _mlp(steps: int) -> OfflineTrainingSettings:
    """MORvS's and BC's network: three hidden layers of 256, learning rate 5e-4."""
    return OfflineTrainingSettings(
        steps=steps, learning_rate=5e-4, network=NetworkSettings(hidden=256, layers=3)
    )


def _small_agents() -> tuple[OfflineRecipe, ...]:
    """MORvS, BC and a small MODT, each trained in about a minute on one CPU thread.

    They reach 99% (MORvS), 95% (BC) and 95% (MODT) of the HalfCheetah behaviour set's
    hypervolume (100%, 96% and 102% of the first demo's set), 97%, 97% and 102% of Swimmer's.
    PEDA's default MODT (512 wide, 3 layers) trains at 0.4 steps/s here; one 64-wide layer with
    a context of 5 is enough.
    """
    return (
        OfflineRecipe("morvs", _mlp(steps=5_000)),
        OfflineRecipe("bc", _mlp(steps=5_000)),
        OfflineRecipe(
            "modt",
            OfflineTrainingSettings(
                steps=3_000,
                learning_rate=1e-3,
                network=NetworkSettings(hidden=64, layers=1, heads=1, context=5, train_context=5),
            ),
        ),
    )


def halfcheetah_morvs_run() -> RunRecipe:
    """The Training page's run: a MORvS on the HalfCheetah expert set, kept every 250 steps
    up to 2,000 (8 snapshots). Its network is half the bundled MORvS's width (3x128, 150 KB a
    snapshot, 1.3 MB for the run) and it trains in seconds; its 8 sweeps take about 3 minutes
    on 2 busy cores. In a probe (3x128, seed 0) its hypervolume grew from 4.6e6 after 500 steps
    to 5.3e6 after 2,000 (98% of the behaviour set's), so the front visibly fills out."""
    return RunRecipe(
        "morvs",
        OfflineTrainingSettings(
            steps=2_000,
            learning_rate=5e-4,
            snapshot_every=250,
            network=NetworkSettings(hidden=128, layers=3),
        ),
    )


def _falling_robot_agents(
    imitation_steps: int, modt_dropout: float | None = None
) -> tuple[OfflineRecipe, ...]:
    """Hopper and Walker2d, whose episodes end when the robot falls, need a longer MODT context:
    with the HalfCheetah MODT (context 5) every Hopper episode falls at ~160 steps (Walker2d:
    21% of the behaviour set's hypervolume); with context 10 Hopper's swung between 28% and 90%
    across widths, depths and data sizes; context 20 (about one hop) gave 94% of the 15-member
    set (of the bundled 13-member set 76%, 37-84% over training seeds 0-5, and on its expert set
    with action noise 86%, 69-88%; Walker2d: 65%; without dropout 84%, and 88% on 70 expert
    episodes). MORvS and BC train longer: Hopper's MORvS on 100 expert episodes reached 91% of
    the 15-member set in 10,000 steps (85% on 50) and 95% of the 13-member set in 20,000;
    Walker2d's, on 70, 94% in 40,000 (docs/demo.md)."""
    return (
        OfflineRecipe("morvs", _mlp(steps=imitation_steps)),
        OfflineRecipe("bc", _mlp(steps=imitation_steps)),
        OfflineRecipe(
            "modt",
            OfflineTrainingSettings(
                steps=5_000,
                learning_rate=1e-3,
                network=NetworkSettings(
                    hidden=128,
                    layers=1,
                    heads=1,
                    context=20,
                    train_context=20,
                    dropout=modt_dropout,
                ),
            ),
        ),
    )


def dst_gpi_ls() -> MorlbRecipe:
    """GPI-LS (MORL-Baselines) on deep-sea-treasure-v0: 15,000 steps, about 5 minutes on one
    core; in the probe it reached 9 of the 10 treasures, 99.4% of the known front's hypervolume
    at gamma 0.99 (at 0.99 all ten treasures are on the convex hull, so a linear method can
    reach each). Small networks and 5 gradient updates per step (the library's default is 4
    layers of 256 and 20) keep it in minutes; Envelope with the same budget stayed below 50%."""
    return MorlbRecipe(
        env_id="deep-sea-treasure-v0",
        name="dst-gpi-ls",
        label="GPI-LS (MORL-Baselines)",
        algorithm="gpi-ls",
        timesteps=15_000,
        sweep=SweepPlan(granularity=20, seeds=(0,)),
        options=(
            ("net_arch", (128, 128)),
            ("learning_rate", 3e-4),
            ("initial_epsilon", 1.0),
            ("final_epsilon", 0.05),
            ("epsilon_decay_steps", 1_500),
            ("batch_size", 128),
            ("learning_starts", 100),
            ("buffer_size", 15_000),
            ("gamma", 0.99),
            ("gradient_updates", 5),
            ("target_net_update_freq", 200),
        ),
        train_options=(
            ("timesteps_per_iter", 1_500),
            ("eval_freq", 10**9),  # the library's own evaluations only feed its logs
            ("eval_mo_freq", 10**9),
            ("checkpoints", False),
            ("num_eval_weights_for_front", 20),
            ("num_eval_episodes_for_front", 1),
        ),
        seed=0,
        episode_limit=100,
    )


def _two_objective_env(
    env_id: str,
    short_name: str,
    first_objective: str,
    behaviour: BehaviourTrainingSettings,
    motion_figures: bool = False,
    expert_episodes: int = 50,
) -> EnvRecipe:
    """A (speed, energy) task: `expert_episodes` expert and 25 amateur episodes (the agents
    learn from the expert ones; 25 amateur ones, 1-2.5 MB, keep assets/ within its 40 MB), the
    small offline agents, the grid of 21 preferences on seeds 0-2."""
    return EnvRecipe(
        env_id=env_id,
        short_name=short_name,
        label=f"{env_id} ({first_objective}, energy)",
        behaviour=behaviour,
        datasets=(
            DatasetRecipe(quality="expert", episodes=expert_episodes, seed=0),
            DatasetRecipe(quality="amateur", episodes=25, seed=1),
        ),
        agents=_small_agents(),
        sweep=SweepPlan(granularity=20, seeds=SWEEP_SEEDS),
        motion_figures=motion_figures,
    )


def hopper_capql() -> MorlbRecipe:
    """CAPQL (MORL-Baselines) on MO-Gymnasium's mo-hopper-2obj-v5 (forward speed, jump height),
    a continuous MuJoCo task with no known front: its figures are reported, not checked. In a
    probe it trained at about 130 steps/s on one core (50,000 steps in 6 minutes). The recipe
    trains 100,000 steps with the library's defaults (2x256, batch 128); the bundled agent is
    weak (3 non-dominated points, most episodes falling after 150-250 steps; docs/demo.md).
    Its saved file holds the critics and optimiser states (3 MB), so only the imported actor
    (0.3 MB) is kept."""
    return MorlbRecipe(
        env_id="mo-hopper-2obj-v5",
        name="mo-hopper-capql",
        label="CAPQL (MORL-Baselines)",
        algorithm="capql",
        timesteps=100_000,
        sweep=SweepPlan(granularity=20, seeds=SWEEP_SEEDS),
        train_options=(("eval_freq", 10**9),),  # the library's own evaluations only feed logs
        front_gamma=None,
        keep_saved_file=False,
    )


def full_recipe() -> DemoRecipe:
    """The bundled demo. The lead tunes the numbers here (iterations, episodes, steps, sizes)."""
    halfcheetah = replace(
        _two_objective_env(
            "MO-HalfCheetah-v2", "halfcheetah", "run", halfcheetah_behaviour(), motion_figures=True
        ),
        runs=(halfcheetah_morvs_run(),),
    )
    hopper = EnvRecipe(
        env_id="MO-Hopper-v3",
        short_name="hopper",
        label="MO-Hopper-v3 (run, jump, energy)",
        # Policy transfer every 50 iterations (each member adopts whichever member does best on
        # its own objective) and no alive bonus shift on energy: 11 of 15 members (the simplex
        # grid of step 1/4) non-dominated after 200 iterations, where plain ARS left 3. The 21
        # of the grid of step 1/5, dropping those another member dominates, keep 13.
        behaviour=BehaviourTrainingSettings(
            members=21,
            iterations=200,
            ars=ARSConfig(directions=16, noise=0.025),
            survival_bonus=(1.0, 1.0, 0.0),
            transfer_every=50,
            drop_dominated=0.005,
            workers=2,
            seed=0,
        ),
        datasets=(
            # 100 expert episodes: MORvS reached 91% of the 15-member set's hypervolume (85% on
            # 50). The members fall under small perturbations (5% action noise: a third of the
            # episodes), and imitators of their noiseless paths fell too; with that noise in the
            # expert set, MORvS reaches 92-95% over training seeds 0-2 (86-90% without) and the
            # MODT 79% on average over seeds 0-5 (61% without; docs/demo.md).
            DatasetRecipe(quality="expert", episodes=100, seed=0, action_noise=0.05),
            DatasetRecipe(quality="amateur", episodes=50, seed=1),
        ),
        agents=_falling_robot_agents(imitation_steps=20_000),
        sweep=SweepPlan(granularity=6, seeds=SWEEP_SEEDS),
    )
    swimmer = _two_objective_env("MO-Swimmer-v2", "swimmer", "forward", swimmer_behaviour())
    walker = replace(
        # 70 expert episodes and a MODT without dropout: 88% of the behaviour hypervolume,
        # where 50 episodes gave 84% without dropout and 65% with PEDA's 0.1 (docs/demo.md).
        _two_objective_env(
            "MO-Walker2d-v2", "walker", "speed", walker_behaviour(), expert_episodes=70
        ),
        agents=_falling_robot_agents(imitation_steps=40_000, modt_dropout=0.0),
    )
    return DemoRecipe(
        name="full",
        title="paretoscope demo",
        description="ARS behaviour policies for MO-HalfCheetah-v2, MO-Hopper-v3, "
        "MO-Swimmer-v2 and MO-Walker2d-v2, expert and amateur datasets collected from them "
        "D4MORL style, offline MORvS, BC and MODT agents "
        "trained on the expert sets, a HalfCheetah MORvS training run with snapshots, "
        "a GPI-LS agent trained by MORL-Baselines on "
        "deep-sea-treasure-v0 with its known front, a CAPQL agent it trained on "
        "mo-hopper-2obj-v5, and precomputed sweeps of every agent; "
        "built by `paretoscope demo build`.",
        envs=(halfcheetah, hopper, swimmer, walker),
        morlb=(dst_gpi_ls(), hopper_capql()),
        # The offline MORvS at a middle preference: a trot at about 2.3 m/s, halfway along a
        # front that runs from standing still to full speed.
        opening_agent="halfcheetah-morvs",
        opening_preference=(0.45, 0.55),
    )


def quick_recipe() -> DemoRecipe:
    """A tiny demo with the full one's structure: builds in about a minute on 2 cores."""
    horizon = 40

    def tiny(steps: int, network: NetworkSettings) -> OfflineTrainingSettings:
        return OfflineTrainingSettings(steps=steps, checkpoint_every=25, network=network)

    def env(env_id: str, short: str, action_noise: float = 0.0, **behaviour: Any) -> EnvRecipe:
        """The env's artefacts, its behaviour set trained with `behaviour` on top of the tiny
        ARS settings."""
        return EnvRecipe(
            env_id=env_id,
            short_name=short,
            label=f"{env_id} (quick)",
            behaviour=BehaviourTrainingSettings(
                iterations=2,
                ars=ARSConfig(directions=4, top_directions=2),
                horizon=horizon,
                eval_episodes=1,
                workers=1,
                **behaviour,
            ),
            datasets=(
                DatasetRecipe(
                    quality="expert",
                    episodes=6,
                    horizon=horizon,
                    batch_size=6,
                    action_noise=action_noise,
                ),
                DatasetRecipe(quality="amateur", episodes=6, seed=1, horizon=horizon, batch_size=6),
            ),
            agents=(
                OfflineRecipe("morvs", tiny(60, NetworkSettings(hidden=32, layers=1))),
                OfflineRecipe("bc", tiny(60, NetworkSettings(hidden=32, layers=1, context=4))),
                OfflineRecipe(
                    "modt",
                    tiny(30, NetworkSettings(hidden=16, layers=1, context=3, train_context=4)),
                ),
            ),
            sweep=SweepPlan(
                granularity=2 if get_spec(env_id).n_obj == 2 else 1, seeds=(0, 1), horizon=horizon
            ),
            motion_figures=env_id == "MO-HalfCheetah-v2",
            runs=(
                RunRecipe(
                    "morvs",
                    OfflineTrainingSettings(
                        steps=60,
                        checkpoint_every=25,
                        snapshot_every=30,
                        network=NetworkSettings(hidden=16, layers=1),
                    ),
                ),
            )
            if env_id == "MO-HalfCheetah-v2"
            else (),
        )

    return DemoRecipe(
        name="quick",
        title="paretoscope demo (quick)",
        description="A tiny demo with the full demo's structure, for tests: few ARS iterations, "
        "few episodes of 40 steps, a few dozen training steps.",
        envs=(
            env(
                "MO-HalfCheetah-v2",
                "halfcheetah",
                preferences=((1.0, 0.0), (0.5, 0.5), (0.0, 1.0)),
                train_on=(MemberTraining((0.5, 0.5), weights=(0.5, 0.5), caps=(2.5, None)),),
                drop_dominated=0.005,
            ),
            env(
                "MO-Hopper-v3",
                "hopper",
                members=3,
                transfer_every=1,
                survival_bonus=(1.0, 1.0, 0.0),
                action_noise=0.05,
            ),
        ),
        morlb=(
            MorlbRecipe(
                env_id="deep-sea-treasure-v0",
                name="dst-envelope",
                label="Envelope (quick)",
                algorithm="envelope",
                timesteps=300,
                sweep=SweepPlan(granularity=2, seeds=(0,)),
                options=(("net_arch", (16, 16)), ("batch_size", 16), ("learning_starts", 50)),
                train_options=(("eval_freq", 10**9),),
                episode_limit=50,
            ),
        ),
        sweep_workers=1,
    )


FULL = full_recipe()
QUICK = quick_recipe()
RECIPES = {"full": FULL, "quick": QUICK}
