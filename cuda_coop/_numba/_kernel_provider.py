"""One kernel compile's provider, and the link items that carry its code into the kernel's link."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from .._identity import CompileAttempt
from .._provider import Provider
from ._operators import compiled_ltoir
from ._sites import KernelPlan, release


class LazyData:
    """Mixin for a DSL's LTO-IR link item class: its ``.data`` is ``produce()``, made the first time it is read (when
    the kernel is linked, after its whole body is lowered: one NVRTC call for every call site)."""

    def __init__(self, produce: Callable[[], bytes], name: str) -> None:
        super().__init__(data=b"", name=name)  # type: ignore[call-arg]  # the DSL's LinkableCode
        self._produce = produce
        self._bytes: bytes | None = None
        self._lock = threading.Lock()

    @property
    def data(self) -> bytes:
        with self._lock:
            if self._bytes is None:
                self._bytes = self._produce()
            return self._bytes


class KernelProvider:
    """Every typed call site of one kernel compile, planned at once and compiled lazily in one NVRTC call."""

    def __init__(self, kernel: KernelPlan, chip: str) -> None:
        fe = kernel.frontend
        self.frontend = fe
        self.site_ids = [i for i in kernel.site_ids if i in kernel.typed]
        self._index = {site_id: k for k, site_id in enumerate(self.site_ids)}
        self.provider = Provider(
            [kernel.typed[i].request for i in self.site_ids], block_dim=kernel.block, arch=chip,
            backend=fe.name, attempt=CompileAttempt(),
            first_use=[k for k, site_id in enumerate(self.site_ids) if site_id in kernel.first_use],
        )
        items: list[Any] = [fe.link_item(self._produce, f"cuda_coop_{self.provider.plan.prefix}")]
        compiled: set[str] = set()
        for site_id in self.site_ids:
            for symbol, _, _ in kernel.typed[site_id].user_ops:
                if symbol not in compiled:
                    compiled.add(symbol)
                    for k, data in enumerate(compiled_ltoir(fe, symbol, kernel.arch)):  # compiled while typed
                        name = symbol if k == 0 else f"{symbol}.{k}"
                        items.append(fe.link_item(functools.partial(bytes, data), name))
        self.link_items = tuple(items)

    def signature(self, site_id: int) -> Any:
        return self.provider.symbols[self._index[site_id]]

    def _produce(self) -> bytes:
        data = self.provider.ltoir()
        release(self.site_ids)  # the kernel is lowered: its call sites are no longer needed
        # Bytes read from a cache or a pack are checked by the link.
        recompile = self.provider.recompile if self.provider.origin in ("cache", "pack") else None
        return self.frontend.provider_ltoir(
            data, toolkit=self.provider.toolchain.toolkit_identity, recompile=recompile,
            pack=(self.provider.pack_identity, self.provider.portable_key.digest),
        )
