"""Live rollouts on a Ray cluster (`paretoscope dashboard --ray-address HOST:PORT|auto`): the
server's one connection, made by the first recording that needs it, and what the sidebar says
about it. Without the flag, or when the cluster cannot be reached (said once in the server's log
and in the sidebar), every episode is recorded on this server, as always. No Streamlit here."""

from __future__ import annotations

import os
import threading

from paretoscope.cluster.recorders import ClusterRecorders
from paretoscope.dashboard.limits import RAY_ADDRESS_ENV_VAR
from paretoscope.dashboard.streamlit_internals import server_logger
from paretoscope.errors import ParetoscopeError

log = server_logger("paretoscope.dashboard")

_lock = threading.Lock()
_recorders: ClusterRecorders | None = None
_problem: str | None = None


def ray_address() -> str | None:
    """The cluster the server was started with (None: none)."""
    return (os.environ.get(RAY_ADDRESS_ENV_VAR) or "").strip() or None


def cluster_recorders() -> ClusterRecorders | None:
    """The cluster's recorders, connected at the first call; None without a cluster, or when
    it could not be reached (the reason in `cluster_status`)."""
    global _recorders, _problem
    address = ray_address()
    if address is None:
        return None
    with _lock:
        if _recorders is None and _problem is None:
            try:
                _recorders = ClusterRecorders(address)
                log.info("live rollouts are recorded on the Ray cluster at %s", address)
            except ParetoscopeError as error:
                _problem = str(error)
                log.warning("%s: live rollouts are recorded on this server instead", error)
        return _recorders


def cluster_status() -> str | None:
    """One line for the sidebar: where live rollouts are recorded (None: no cluster asked for,
    or not connected yet)."""
    address = ray_address()
    if address is None:
        return None
    if _problem is not None:  # the reason is in the server's log
        return (
            f"The Ray cluster at {address} could not be reached: episodes are rolled out on "
            "this server."
        )
    if _recorders is not None:
        return f"Live rollouts are recorded on the Ray cluster at {address}."
    return None
