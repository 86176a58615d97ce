"""The behaviour step: an env's ARS policy set (`paretoscope.train.train_behaviour`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paretoscope.demo.build import DemoBuild, Step
from paretoscope.demo.recipe import EnvRecipe


def behaviour_record(env: EnvRecipe) -> dict[str, Any]:
    """The run.json content `train_behaviour` writes for the env's settings (budget aside)."""
    from paretoscope.train.behaviour import behaviour_run

    return behaviour_run(env.env_id, env.behaviour).record()


def behaviour_step(build: DemoBuild, env: EnvRecipe) -> Step:
    folder = build.agent_dir(env.behaviour_name)
    settings = env.behaviour

    def step_settings() -> dict[str, Any]:
        record = behaviour_record(env)
        for key in ("format", "format_version"):
            record.pop(key)
        return {
            **record,
            "iterations": settings.iterations,
            **(
                {}
                if settings.drop_dominated is None
                else {"drop_dominated": settings.drop_dominated}
            ),
        }

    def run() -> dict[str, Any]:
        from paretoscope.train import train_behaviour

        agent = train_behaviour(env.env_id, folder, settings, progress=build.progress)
        return {"fingerprint": agent.fingerprint()}

    def adopt(_: dict[str, Any]) -> dict[str, Any] | None:
        return _adopt(build, env, folder)

    return Step(
        id=f"behaviour:{env.behaviour_name}",
        kind="behaviour",
        name=env.behaviour_name,
        outputs=(folder / "config.json",),
        settings=step_settings,
        run=run,
        growable=frozenset({"iterations"}),
        adopt=adopt,
        env_id=env.env_id,
    )


def _adopt(build: DemoBuild, env: EnvRecipe, folder: Path) -> dict[str, Any] | None:
    """A policy set trained earlier with the same settings, every member at the budget."""
    from paretoscope.train.behaviour import (
        RUN_FILE,
        TRAINING_DIR,
        kept_members,
        load_member,
        member_path,
    )

    run_path = folder / TRAINING_DIR / RUN_FILE
    budget = env.behaviour.iterations
    if budget is None or not (run_path.is_file() and (folder / "config.json").is_file()):
        return None
    previous = json.loads(run_path.read_text(encoding="utf-8"))
    record = json.loads(json.dumps(behaviour_record(env)))
    if previous != record:
        return None  # train_behaviour itself explains the difference when run
    states = []
    for index in range(len(record["preferences"])):
        path = member_path(folder, index)
        if not path.is_file():
            return None
        state = load_member(path)
        if state.iteration < budget or not state.evaluated:
            return None
        states.append(state)
    training = (
        json.loads((folder / "config.json").read_text(encoding="utf-8")).get("training") or {}
    )
    kept = kept_members(states, env.behaviour.drop_dominated)
    dropped = sorted({state.index for state in states} - {state.index for state in kept})
    if training.get("iterations") != [state.iteration for state in kept] or dropped != sorted(
        entry.get("index") for entry in training.get("dropped") or []
    ):
        return None  # the members went on after the set was saved, or others were kept
    return {"fingerprint": build.agent_fingerprint(env.behaviour_name, "adoption")}
