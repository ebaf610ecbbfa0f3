"""cuda-coop's private CCCL header bundle (headers, CMake package, licenses, provenance).

A package only so that the ``cmake.prefix`` entry point can name it; see ``cuda.coop.header_bundle``.
"""
