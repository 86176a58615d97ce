"""The one registry type (`paretoscope.registry.Registry`) and the same rules in every registry
built on it: a duplicate name refused unless replace=True, lazy values, entry points once."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.registry import Registry, with_members
from tests.registry_support import install_distribution, private_registries

GROUP = "paretoscope.test_registry"


def test_entries_keep_their_registration_order_and_refuse_a_second_name() -> None:
    registry: Registry[int] = Registry("number", {"one": 1})
    registry.register("three", 3)
    registry.register("two", 2)
    assert registry.names() == ["one", "three", "two"] and list(registry) == registry.names()
    assert list(registry.values()) == [1, 3, 2] and len(registry) == 3 and "two" in registry
    with pytest.raises(ParetoscopeError, match=r"number 'two' is already registered \(pass "):
        registry.register("two", 22)
    assert registry.get("two") == 2
    registry.register("two", 22, replace=True)
    assert registry.get("two") == 22 and registry.names() == ["one", "three", "two"]
    with pytest.raises(ParetoscopeError, match="expected a non-empty name"):
        registry.register("", 0)


def test_an_unknown_name_lists_the_known_ones_or_says_it_its_own_way() -> None:
    registry: Registry[int] = Registry("number", {"one": 1, "two": 2})
    with pytest.raises(ParetoscopeError, match=r"no number 'three' \(known: one, two\)"):
        registry.get("three")
    worded: Registry[int] = Registry(
        "number", {"one": 1}, unknown=lambda name, known: f"{name!r}? only {known}"
    )
    with pytest.raises(ParetoscopeError, match=r"'three'\? only \['one'\]"):
        worded.get("three")


def test_a_string_value_is_imported_on_first_use_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "registry_lazy_target.py").write_text("VALUE = object()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "registry_lazy_target", raising=False)
    registry: Registry[object] = Registry("thing", {"lazy": "registry_lazy_target:VALUE"})
    assert registry.names() == ["lazy"]
    assert "registry_lazy_target" not in sys.modules  # listing imports nothing
    value = registry.get("lazy")
    assert value is sys.modules["registry_lazy_target"].VALUE
    assert registry.get("lazy") is value
    registry.register("wrong", "registry_lazy_target:MISSING")
    with pytest.raises(
        ParetoscopeError, match="thing 'wrong': cannot import 'registry_lazy_target:MISSING'"
    ):
        registry.get("wrong")


def test_entry_points_load_once_and_broken_ones_are_messages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "registry_plugin.py").write_text(
        "class Good:\n    def sniff(self, path):\n        return None\n\nGOOD = Good()\n"
        "NOT_ONE = 42\n"
    )
    install_distribution(
        tmp_path,
        "registry-plugins",
        {
            GROUP: {
                "good": "registry_plugin:GOOD",
                "gone": "registry_no_such_module:GOOD",
                "not-one": "registry_plugin:NOT_ONE",
                "taken": "registry_plugin:GOOD",
            }
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry[Any] = Registry(
        "sniffer",
        {"taken": object()},
        entry_point_group=GROUP,
        from_entry_point=with_members("a sniffer", "sniff"),
    )
    with pytest.warns(UserWarning, match="entry point 'gone'"):
        names = registry.names()  # the first read loads the group
    assert names == ["taken", "good"]
    problems = registry.load_entry_points()
    assert problems == [
        "entry point 'gone': ModuleNotFoundError: No module named 'registry_no_such_module'",
        "entry point 'not-one': not a sniffer: int has no sniff",
        "entry point 'taken': the name is taken",
    ]
    assert registry.load_entry_points() is problems  # once per process
    assert registry.get("good").sniff(tmp_path) is None
    # A registry may leave its group for an explicit call (the dashboard's agents).
    waiting: Registry[Any] = Registry(
        "sniffer", entry_point_group=GROUP, load_entry_points_on_first_use=False
    )
    assert waiting.names() == []
    with pytest.warns(UserWarning):
        waiting.load_entry_points()
    assert "good" in waiting.names()


# --- the same rules in every registry -------------------------------------------------------


def _env_registry() -> tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]:
    from paretoscope.envs import get_spec, register
    from paretoscope.envs.registry import REGISTRY

    return REGISTRY, register, "deep-sea-treasure-v0", lambda: get_spec("deep-sea-treasure-v0")


def _kinds() -> tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]:
    from paretoscope.agents.checkpoint import KIND_LOADERS, register_kind

    return KIND_LOADERS, register_kind, "policy_set", lambda: lambda path, config, device: None


def _named_agents() -> tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]:
    from paretoscope.agents.builtin import NAMED_AGENTS

    return NAMED_AGENTS, NAMED_AGENTS.register, "random", lambda: NAMED_AGENTS.get("random")


def _importers() -> tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]:
    from paretoscope.agents.importers import IMPORTERS, register_importer

    return IMPORTERS, register_importer, "peda", object


def _run_formats() -> tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]:
    from paretoscope.runs.run import RUN_FORMATS, register_run_format

    return RUN_FORMATS, register_run_format, "peda", object


def _dataset_formats() -> tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]:
    from paretoscope.data.formats import DATASET_FORMATS, register_dataset_format

    return DATASET_FORMATS, register_dataset_format, "d4morl", object


@pytest.mark.parametrize(
    "registry_of",
    [_env_registry, _kinds, _named_agents, _importers, _run_formats, _dataset_formats],
    ids=["envs", "agent kinds", "named agents", "importers", "run formats", "dataset formats"],
)
def test_every_registry_refuses_a_taken_name_unless_replace(
    registry_of: Callable[[], tuple[Registry[Any], Callable[..., None], str, Callable[[], Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry, register, taken, make_value = registry_of()
    private_registries(monkeypatch, registry)
    value = make_value()
    with pytest.raises(ParetoscopeError, match=f"'{taken}' is already registered"):
        register(taken, value)
    register(taken, value, replace=True)
    kept = registry.get(taken)
    # An env is kept as its registration, which builds (here: hands back) its spec.
    assert (kept.spec() if registry.what == "environment" else kept) is value
