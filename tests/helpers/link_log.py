"""How each kernel link of a process went, from cuda-coop's "kernel link" debug lines (for test scripts)."""

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
