"""A small library of cuda-coop kernels that ships them precompiled (see docs/packs.rst).

Importing it is cheap: the kernels live in :mod:`coop_pack_example.kernels`. ``PACK`` is the directory of
the precompiled pack, which cuda-coop finds through this distribution's ``cuda_coop.packs`` entry point.
"""

from pathlib import Path

PACK = str(Path(__file__).with_name("coop_pack"))
