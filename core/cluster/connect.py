"""One connection to a Ray cluster per process: ``auto`` (the cluster this machine belongs to),
``HOST:PORT`` (its head), or a local Ray started for this process when no address is given.

A cluster started with token authentication (Ray's ``RAY_AUTH_MODE=token``) is reached with the
same ``RAY_AUTH_TOKEN`` (or ``RAY_AUTH_TOKEN_PATH``) in this process's environment: Ray reads it
there.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from paretoscope.errors import ParetoscopeError

_lock = threading.Lock()
_connected: list[str] = []  # the address this module connected to (none: a local Ray)
# Seconds to wait for a head's port to answer: Ray itself retries an address where nothing
# listens for minutes.
PROBE_SECONDS = 3.0


def import_ray() -> Any:
    """The ``ray`` module, or a message naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ParetoscopeError("Ray is not installed: pip install 'paretoscope[ray]'") from None
    return ray


def connect(address: str | None) -> tuple[Any, bool]:
    """The ``ray`` module connected to the cluster at `address`, and whether this call made
    the connection (then the caller may end it; a connection found made is another's). One
    connection per process: an address other than the connected cluster's is an error. A
    cluster that cannot be reached is a `ParetoscopeError` naming it."""
    ray = import_ray()
    with _lock:
        if ray.is_initialized():
            if address not in (None, "auto") and _connected and address not in _connected:
                raise ParetoscopeError(
                    f"this process is connected to the Ray cluster at {_connected[0]}, not to "
                    f"{address}"
                )
            return ray, False
        if address is not None and address != "auto":
            _probe(address)
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                log_to_driver=False,
                ignore_reinit_error=True,
            )
        except (ConnectionError, RuntimeError, ValueError) as error:
            where = "a local Ray" if address is None else f"the Ray cluster at {address}"
            raise ParetoscopeError(f"cannot reach {where}: {error}") from None
        _connected[:] = [] if address is None else [address]
    return ray, True


def _probe(address: str) -> None:
    """A `ParetoscopeError` unless something accepts connections at `address` (HOST:PORT, or
    Ray Client's ray://HOST:PORT)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ParetoscopeError(f"Ray address {address!r}: expected HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), PROBE_SECONDS):
            pass
    except OSError as error:
        raise ParetoscopeError(
            f"cannot reach the Ray cluster at {address}: nothing answers there ({error})"
        ) from None
