"""Warm renderers, kept for the next frame: making a `FrameRenderer` costs ~0.3 s on a CPU
(a GL context, the model's meshes and textures uploaded, fonts), drawing a frame ~0.02 s, so a
server that made one per episode spent most of a new viewer's first frame making it.

Renderers are kept by (env, size, shadows, smooth): every episode of one env has the same
model, so a renderer made with one episode's model draws another's states. At most `capacity`
idle ones are kept (least recently used ones are closed). Renderers release their GL context
after every call, so one made in one thread may be lent to another (one borrower at a time).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from paretoscope.envs import EnvSpec

DEFAULT_CAPACITY = 8

RendererKey = tuple[str, int, int, bool, bool]


class WarmRenderers:
    """Idle renderers by (env, width, height, shadows, smooth), lent one borrower at a time."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = int(capacity)
        self._lock = threading.Lock()
        self._idle: OrderedDict[int, tuple[RendererKey, Any]] = OrderedDict()
        self._made = 0

    @property
    def made(self) -> int:
        """Renderers made so far (the ones lent again are not counted)."""
        with self._lock:
            return self._made

    @property
    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    @contextlib.contextmanager
    def lend(
        self,
        model: Any,
        spec: EnvSpec,
        size: tuple[int, int],
        shadows: bool = False,
        smooth: bool = True,
    ) -> Iterator[Any]:
        """A `FrameRenderer` for `spec`'s model at `size` with these settings (an idle one,
        else a new one), returned for the next borrower after the block (closed if the block
        failed)."""
        from paretoscope.render.renderer import FrameRenderer

        if spec.camera is None:
            raise ValueError(f"{spec.id} has no camera for paretoscope's renderer")
        key: RendererKey = (spec.id, int(size[0]), int(size[1]), bool(shadows), bool(smooth))
        renderer = self._take(key)
        if renderer is None:
            renderer = FrameRenderer(model, spec.camera, size, shadows, smooth)
            with self._lock:
                self._made += 1
        try:
            yield renderer
        except BaseException:
            renderer.close()
            raise
        self._give_back(key, renderer)

    def close(self) -> None:
        """Close every idle renderer."""
        with self._lock:
            idle = [renderer for _, renderer in self._idle.values()]
            self._idle.clear()
        for renderer in idle:
            renderer.close()

    def _take(self, key: RendererKey) -> Any:
        with self._lock:
            for ticket, (kept_key, renderer) in reversed(self._idle.items()):
                if kept_key == key:
                    del self._idle[ticket]
                    return renderer
        return None

    def _give_back(self, key: RendererKey, renderer: Any) -> None:
        evicted = []
        with self._lock:
            self._idle[id(renderer)] = (key, renderer)
            while len(self._idle) > self.capacity:
                evicted.append(self._idle.popitem(last=False)[1][1])
        for old in evicted:
            old.close()


_shared = WarmRenderers()


def warm_renderers() -> WarmRenderers:
    """The process's warm renderers."""
    return _shared
