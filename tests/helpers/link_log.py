"""For test scripts: how each kernel link of a process went (cuda-coop's debug lines), which pack served,
and how many links ran nvJitLink."""

from __future__ import annotations

import logging

PREFIX = "cuda.coop: kernel link "


class _Links(logging.Handler):
    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        if (message := record.getMessage()).startswith(PREFIX):  # "kernel link <key>: <how> in <s> s"
            self.into.append(message.split(": ")[-1].split(" in ")[0])


def record_links() -> list[str]:
    """A list that receives, for each later kernel link, ``"cache hit"``, ``"linked and cached"``, ..."""
    links: list[str] = []
    logger = logging.getLogger("cuda.coop")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_Links(links))
    return links


def count_nvjitlink() -> list[int]:
    """A one-item list counting nvJitLink links from now on: calls of each installed DSL's ``complete``
    (numba-cuda-mlir's ``Linker``, numba-cuda's ``cudadrv.driver._Linker``).

    cuda-coop runs a link through ``type(linker).complete``; a link served from a cache or a pack calls none.
    """
    import importlib

    calls = [0]
    for module, name in (("numba_cuda_mlir.linker", "Linker"), ("numba.cuda.cudadrv.driver", "_Linker")):
        try:
            cls = getattr(importlib.import_module(module), name)
        except ImportError:
            continue
        original = cls.complete

        def complete(self, *args, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            calls[0] += 1
            return _original(self, *args, **kwargs)

        cls.complete = complete
    return calls


def record_served() -> list[str]:
    """A list that receives, for each later provider or kernel taken from a precompiled pack, the pack's directory."""
    served: list[str] = []

    class _Served(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "pack hit" in (message := record.getMessage()):  # "...: pack hit in <s> s (<pack>)"
                served.append(message.rsplit(" (", 1)[1].rstrip(")"))

    logger = logging.getLogger("cuda.coop")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_Served(logging.DEBUG))
    return served
