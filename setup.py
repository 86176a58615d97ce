"""Package layout: the repository keeps `core/`, `dashboard/` and `assets/` at its top, and
installs them as one namespace: `paretoscope` (the library, from core/), `paretoscope.dashboard`
(the app) and `paretoscope.assets` (the bundled demo, data only). Everything else is in
pyproject.toml."""

from setuptools import find_packages, setup


def packages_under(name: str, folder: str) -> list[str]:
    return [name, *(f"{name}.{child}" for child in find_packages(folder))]


setup(
    packages=[
        *packages_under("paretoscope", "core"),
        *packages_under("paretoscope.dashboard", "dashboard"),
        "paretoscope.assets",
    ],
    package_dir={
        "paretoscope": "core",
        "paretoscope.dashboard": "dashboard",
        "paretoscope.assets": "assets",
    },
)
