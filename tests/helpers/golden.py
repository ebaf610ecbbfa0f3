"""Golden files of rendered C++ (``tests/data/render/``), shared by the unit tier's renderer and family tests.

    text = render_requests(requests, (16, 8))                    # the C++ a provider compiles, for CCCL 3.6.0
    check_golden("block_histogram_2d", after_preamble(text))     # tests/data/render/block_histogram_2d.cu

The C++ every provider repeats verbatim (the ``cuda_coop_detail`` block) is folded to a comment naming where it is
written (:func:`fold`): a golden holds what its call sites render. cuda-coop's compositions are headers
(``include/cuda_coop``) that the preamble includes, so no golden repeats them.

Regenerate the goldens after an intended change with ``python -m pytest --update-goldens <the test file>`` and review
the diff: each is written, then compared. Only that option rewrites them, and never under ``CI=true``
(``tests/helpers/golden_update.py``); the environment variable ``CUDA_COOP_UPDATE_GOLDENS`` that once did is
refused, so that a value left in a shell cannot make the golden tests rewrite and pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from cuda.coop import _specs
from cuda.coop._provider import plan, render
from cuda.coop._provider._abi import Plan
from cuda.coop._provider._render import _DETAIL
from cuda.coop._specs import Request
from tests.helpers import golden_update

__all__ = [
    "CCCL",
    "RENDER_DATA",
    "REWRITE",
    "after_preamble",
    "check_golden",
    "fixed_blocks",
    "fold",
    "render_plan",
    "render_requests",
]

RENDER_DATA = Path(__file__).resolve().parents[1] / "data" / "render"
"""Where the goldens are."""
CCCL = 3006000
"""The CCCL version the goldens are rendered for (``CCCL_VERSION`` of 3.6.0)."""
REWRITE = f"python -m pytest {golden_update.OPTION} <the test file>"
"""How to rewrite the goldens from what the tests render (then review the diff)."""


def render_plan(planned: Plan, headers: Sequence[str] | None = None) -> str:
    """The C++ source of a provider's ``plan``, for CCCL 3.6.0. ``headers``: the headers it includes (default: every
    registered spec's, ``_specs.headers()``)."""
    return render(planned, cccl_version=CCCL, headers=_specs.headers() if headers is None else headers)


def render_requests(requests: Iterable[Request], block: tuple[int, ...], headers: Sequence[str] | None = None) -> str:
    """The C++ source of one provider of ``requests`` in a ``block``-shaped block (see ``render_plan``)."""
    return render_plan(plan(list(requests), block), headers)


def fold(text: str) -> str:
    """``text`` with the C++ every provider repeats verbatim folded to one comment line naming where it is written:
    the renderer's ``cuda_coop_detail`` block (``_DETAIL``). A golden then holds what its call sites render; the fixed
    block is source already (a golden of it would repeat it)."""
    for where, block in fixed_blocks().items():
        text = text.replace(block, f"// (verbatim: {where})\n")
    return text


def fixed_blocks() -> dict[str, str]:
    """The verbatim blocks :func:`fold` folds, by where they are written."""
    return {"cuda_coop/_provider/_render.py _DETAIL": _DETAIL}


def check_golden(path_or_name: str | Path, text: str) -> None:
    """``text``, :func:`fold`-ed, equals the golden: a ``Path``, or a name of ``tests/data/render/<name>.cu``. In a run
    with ``--update-goldens`` (``golden_update.requested()``) the golden is written first."""
    text = fold(text)
    path = path_or_name if isinstance(path_or_name, Path) else RENDER_DATA / f"{path_or_name}.cu"
    if golden_update.requested():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing golden {path}; write it with {REWRITE}"
    assert text == path.read_text(encoding="utf-8"), f"{path} is out of date; rewrite it with {REWRITE} if intended"


def after_preamble(text: str) -> str:
    """``text`` from its ``static_assert(CCCL_VERSION ...)`` on: without the include preamble, which grows with every
    family (a family's golden holds its own code only)."""
    return text[text.index("\nstatic_assert(CCCL_VERSION") + 1 :]
