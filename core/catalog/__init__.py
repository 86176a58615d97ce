"""The assets folder: agents, datasets and precomputed results that the dashboard offers.

Layout (every part optional; a folder the user names, an upload folder and the bundled demo all
follow it)::

    assets/
      manifest.json          labels, defaults and sweep plans (`paretoscope.catalog.manifest`);
                             without it, names are used
      agents/<name>/         a paretoscope checkpoint (config.json + weights.safetensors)
      agents/<name>.safetensors   a single-file checkpoint
      agents/<name>.ckpt     another tool's checkpoint (PEDA .ckpt, MORL-Baselines .tar, ...),
                             imported when chosen (`paretoscope.agents.importers`; what the file
                             cannot tell, such as its env, is asked)
      agents/<name>/         a training run: snapshots ordered by step (`paretoscope.runs`:
                             paretoscope's snapshots/step=N/, PEDA's ckpt/step=N.ckpt,
                             MORL-Baselines saves); listed as one agent (format "run") whose
                             `steps` name them
      datasets/<name>/       a native dataset (paretoscope-dataset.json + .npy columns)
      datasets/<name>.pkl    a D4MORL file
      results/               a `paretoscope.results_store.ResultsStore` with precomputed sweeps
      rollouts/<key>.mp4     precomputed rollout videos, with <key>.json beside each
      rollouts/galleries/    saved gallery layouts (`paretoscope.behaviour.saved_layout`)

The catalog's entries (`assets`), the manifest and its sweep plans (`manifest`), one entry
described from its header (`describe`) and a whole folder listed (`discovery`) each have their
module; their public names are all importable from here.
"""

from paretoscope.catalog.assets import (
    RUN_FORMAT,
    AgentAsset,
    AssetCatalog,
    AssetProblem,
    DatasetAsset,
    builtin_asset,
)
from paretoscope.catalog.describe import (
    describe_agent,
    describe_dataset,
    describe_run,
    snapshot_asset,
)
from paretoscope.catalog.discovery import (
    AGENTS_DIR,
    ASSETS_ENV_VAR,
    DATASETS_DIR,
    RESULTS_DIR,
    ROLLOUTS_DIR,
    bundled_assets_dir,
    default_assets_dir,
    discover_assets,
    discover_many,
)
from paretoscope.catalog.manifest import (
    MANIFEST_FILE,
    MANIFEST_FORMAT,
    MANIFEST_VERSION,
    SweepPlan,
    default_sweep_plan,
    read_manifest,
    write_manifest,
)

__all__ = [
    "AGENTS_DIR",
    "ASSETS_ENV_VAR",
    "DATASETS_DIR",
    "MANIFEST_FILE",
    "MANIFEST_FORMAT",
    "MANIFEST_VERSION",
    "RESULTS_DIR",
    "ROLLOUTS_DIR",
    "RUN_FORMAT",
    "AgentAsset",
    "AssetCatalog",
    "AssetProblem",
    "DatasetAsset",
    "SweepPlan",
    "builtin_asset",
    "bundled_assets_dir",
    "default_assets_dir",
    "default_sweep_plan",
    "describe_agent",
    "describe_dataset",
    "describe_run",
    "discover_assets",
    "discover_many",
    "read_manifest",
    "snapshot_asset",
    "write_manifest",
]
