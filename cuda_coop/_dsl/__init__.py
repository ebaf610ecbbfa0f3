"""The DSL-independent description of cuda-coop's public primitives (``coop.block.*``, ``coop.warp.*``)."""
