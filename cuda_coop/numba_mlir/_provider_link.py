"""One kernel compile's provider: its plan (symbols, C signatures) and the link items that carry code."""

from __future__ import annotations

from typing import Any

from .._provider._abi import plan
from . import _seams
from ._planner import _LOCK, _SITES, KernelPlan


class KernelProvider:
    """Plans every typed call site of a kernel at once and compiles their wrappers lazily, in one NVRTC call."""

    def __init__(self, kernel: KernelPlan, chip: str) -> None:
        self.site_ids = [i for i in kernel.site_ids if i in kernel.typed]
        self._index = {site_id: k for k, site_id in enumerate(self.site_ids)}
        self.plan = plan([kernel.typed[i].request for i in self.site_ids], kernel.block)
        self.chip = chip
        self.source: str | None = None
        items: list[Any] = [_seams.LTOIR(self._produce, name=f"cuda_coop_{self.plan.prefix}")]
        compiled: set[str] = set()
        for site_id in self.site_ids:
            for symbol, pyfunc, signature in kernel.typed[site_id].user_ops:
                if symbol not in compiled:
                    compiled.add(symbol)
                    data = _seams.compile_device_ltoir(pyfunc, signature, symbol)
                    items.append(_seams.LTOIR(lambda data=data: data, name=symbol))
        self.link_items = tuple(items)

    def signature(self, site_id: int) -> Any:
        return self.plan.signatures[self._index[site_id]]

    def _produce(self) -> bytes:
        from .._provider import compile_plan

        result = compile_plan(self.plan, arch=self.chip, backend="numba_mlir")
        self.source = result.source
        with _LOCK:  # the kernel is lowered: its call sites are no longer needed
            for site_id in self.site_ids:
                _SITES.pop(site_id, None)
        return result.ltoir
