"""Settings objects: one frozen dataclass per operation, every field documented once.

- `SweepSettings`: a preference sweep (`paretoscope.evaluate.sweep`, `paretoscope evaluate`);
- `OfflineTrainingSettings` (with `NetworkSettings`): an offline MORvS / BC / MODT run
  (`paretoscope.train.offline.train_offline`, `paretoscope train morvs|bc|modt`);
- `BehaviourTrainingSettings` (with `ARSConfig`, `MemberTraining`): ARS policy sets
  (`paretoscope.train.train_behaviour`, `paretoscope train behaviour`);
- `RecordingSettings`: one rendered episode (`paretoscope.recordings`, `paretoscope render`);
- `DemoBuildSettings`: which steps of the demo a build runs (`paretoscope demo build`).

The library functions take these objects; the command line derives its options from their
fields (`paretoscope.cli.options`), the demo recipe holds them. A field's one-line doc is its
``help`` (`paretoscope.settings.fields.setting`), the command line's --help text.
"""

from paretoscope.settings.behaviour import ARSConfig, BehaviourTrainingSettings, MemberTraining
from paretoscope.settings.demo import DemoBuildSettings
from paretoscope.settings.fields import option_name, setting, setting_fields
from paretoscope.settings.offline import NetworkSettings, OfflineTrainingSettings
from paretoscope.settings.recording import RecordingSettings
from paretoscope.settings.sweep import SweepSettings

__all__ = [
    "ARSConfig",
    "BehaviourTrainingSettings",
    "DemoBuildSettings",
    "MemberTraining",
    "NetworkSettings",
    "OfflineTrainingSettings",
    "RecordingSettings",
    "SweepSettings",
    "option_name",
    "setting",
    "setting_fields",
]
