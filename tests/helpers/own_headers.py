"""The text of cuda-coop's own C++ headers (``include/cuda_coop``), as providers compile them.

    text = header_text("cuda_coop/warp_top_k.cuh")   # the header and the cuda_coop/ headers it includes
"""

from __future__ import annotations

import re

from cuda.coop._own_headers import own_headers

__all__ = ["header_text"]

_INCLUDE = re.compile(r"^#include <(cuda_coop/[\w/]+\.cuh)>", re.M)


def header_text(header: str) -> str:
    """``header`` (``cuda_coop/<name>.cuh``) under the include root providers use, followed by every ``cuda_coop/``
    header it includes, directly or not (each once)."""
    root, seen, out = own_headers().root, [header], []
    while len(out) < len(seen):
        text = (root / seen[len(out)]).read_text(encoding="utf-8")
        out.append(text)
        seen += [h for h in _INCLUDE.findall(text) if h not in seen]
    return "\n".join(out)
