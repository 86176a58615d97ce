"""Offline multi-objective datasets: the `Trajectories` model, the registry of formats (D4MORL,
Minari, the native format, installed ones), summaries, conversion and collection plans
(collecting a dataset with an agent is `paretoscope.collect`).

Typical use::

    from paretoscope.data import convert, dataset_summary, open_dataset
    convert("MO-Hopper-v2_50000_expert_uniform.pkl", "hopper-expert-uniform")
    summary = dataset_summary("hopper-expert-uniform")      # instant: cached in the dataset
    trajectories = open_dataset("hopper-expert-uniform")    # memory-mapped columns
"""

from paretoscope.data.collection_plan import episode_plan
from paretoscope.data.convert import convert, target_format
from paretoscope.data.d4morl import (
    D4MORLFile,
    D4MORLName,
    d4morl_file_name,
    load_d4morl,
    parse_d4morl_name,
    read_d4morl,
    write_d4morl,
)
from paretoscope.data.formats import (
    DatasetFormat,
    DatasetHeader,
    TrajectoryStream,
    dataset_formats,
    register_dataset_format,
    sniff_dataset,
    writable_formats,
)
from paretoscope.data.minari_io import read_minari, write_minari
from paretoscope.data.native import (
    FORMAT_VERSION,
    NativeWriter,
    is_native_dataset,
    native_summary,
    open_native,
    write_native,
)
from paretoscope.data.preferences import DISTRIBUTION_NAMES, sample_preferences
from paretoscope.data.sources import dataset_summary, detect_format, open_dataset
from paretoscope.data.summary import (
    DatasetSummary,
    TrajectoryTable,
    summarize,
    summarize_trajectories,
)
from paretoscope.data.trajectories import DatasetInfo, Trajectories, Trajectory

__all__ = [
    "DISTRIBUTION_NAMES",
    "FORMAT_VERSION",
    "D4MORLFile",
    "D4MORLName",
    "DatasetFormat",
    "DatasetHeader",
    "DatasetInfo",
    "DatasetSummary",
    "NativeWriter",
    "Trajectories",
    "Trajectory",
    "TrajectoryStream",
    "TrajectoryTable",
    "convert",
    "d4morl_file_name",
    "dataset_formats",
    "dataset_summary",
    "detect_format",
    "episode_plan",
    "is_native_dataset",
    "load_d4morl",
    "native_summary",
    "open_dataset",
    "open_native",
    "parse_d4morl_name",
    "read_d4morl",
    "read_minari",
    "register_dataset_format",
    "sample_preferences",
    "sniff_dataset",
    "summarize",
    "summarize_trajectories",
    "target_format",
    "writable_formats",
    "write_d4morl",
    "write_minari",
    "write_native",
]
