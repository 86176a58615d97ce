"""The recording library: finished recordings in memory (bounded in entries and bytes, most
recent kept), then in folders (read-only ones first, e.g. an assets folder's ``rollouts/``,
then a writable cache that receives every new recording with a video)."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from paretoscope.errors import ParetoscopeError
from paretoscope.recordings.recording import Recording, read_recording, write_recording

log = logging.getLogger("paretoscope.recordings")

DEFAULT_CAPACITY = 64
DEFAULT_CAPACITY_BYTES = 256 * 2**20


class RecordingLibrary:
    """Recordings by key: memory (LRU, at most `capacity` entries and `capacity_bytes`), then
    the folders. Memory stays under the byte budget however many viewers there are."""

    def __init__(
        self,
        read_dirs: Sequence[Path],
        write_dir: Path | None,
        capacity: int = DEFAULT_CAPACITY,
        capacity_bytes: int = DEFAULT_CAPACITY_BYTES,
    ) -> None:
        self.read_dirs = list(read_dirs)
        self.write_dir = write_dir
        self.capacity = capacity
        self.capacity_bytes = capacity_bytes
        self._memory: OrderedDict[str, Recording] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.write_problem: str | None = None

    @property
    def memory_bytes(self) -> int:
        """Bytes of recordings held in memory now."""
        with self._lock:
            return self._bytes

    @property
    def memory_entries(self) -> int:
        """Recordings held in memory now."""
        with self._lock:
            return len(self._memory)

    def get(self, key: str) -> Recording | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
                return found
        folders = [*self.read_dirs, *([self.write_dir] if self.write_dir else [])]
        found = read_recording(folders, key)
        if found is not None:
            self._remember(key, found)
        return found

    def put(self, key: str, recording: Recording) -> None:
        """Keep `recording`; on disk too when it has a video (a video-less stand-in made while
        rendering was unavailable stays in memory only). A folder that cannot be written is
        not an error: recordings stay in memory, `write_problem` says why (logged once)."""
        self._remember(key, recording)
        if self.write_dir is not None and recording.video:
            try:
                write_recording(self.write_dir, key, recording)
                self.write_problem = None
            except ParetoscopeError as error:
                if self.write_problem is None:
                    log.warning("recordings are kept in memory only: %s", error)
                self.write_problem = str(error)

    def _remember(self, key: str, recording: Recording) -> None:
        size = recording.nbytes
        with self._lock:
            old = self._memory.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes
            if size > self.capacity_bytes:
                return  # bigger than the whole budget: served from disk only
            self._memory[key] = recording
            self._bytes += size
            while len(self._memory) > self.capacity or self._bytes > self.capacity_bytes:
                _, dropped = self._memory.popitem(last=False)
                self._bytes -= dropped.nbytes
