"""Distance-based indicators against a reference front: IGD and IGD+ (maximisation).

Both average, over the reference points, the distance to the nearest point of the front; IGD+
counts only the shortfall (where the front is worse), which makes it Pareto-compliant.
"""

from __future__ import annotations

import moocore

from paretoscope.metrics._validation import FloatArray, as_point_set, require_non_empty


def _checked_pair(points: object, reference_front: object) -> tuple[FloatArray, FloatArray]:
    """Validate a front and its reference front: both non-empty with the same objectives."""
    array = as_point_set("points", points)
    require_non_empty("points", array, "a distance to an empty front is undefined")
    reference = as_point_set("reference_front", reference_front, n_obj=array.shape[1])
    require_non_empty("reference_front", reference, "distances are averaged over it")
    return array, reference


def igd(points: object, reference_front: object) -> float:
    """Inverted generational distance: mean over reference points of the Euclidean distance
    to the nearest point. Lower is better; either set empty raises ParetoscopeError."""
    array, reference = _checked_pair(points, reference_front)
    return float(moocore.igd(array, ref=reference, maximise=True))


def igd_plus(points: object, reference_front: object) -> float:
    """IGD+: like `igd` but the distance from r to v is ||max(r - v, 0)|| (only the shortfall).

    Lower is better; 0 when every reference point is weakly dominated by some point. Either
    set empty raises ParetoscopeError.
    """
    array, reference = _checked_pair(points, reference_front)
    return float(moocore.igd_plus(array, ref=reference, maximise=True))
