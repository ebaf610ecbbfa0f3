"""The shared core of cuda-coop's two Numba-front-end DSL integrations.

numba-cuda-mlir (``cuda.coop.numba_mlir``) and classic numba-cuda (``cuda.coop.numba_cuda``) both turn a
kernel's Python bytecode into Numba's untyped IR with a front end of their own (numba-cuda-mlir vendors
numba-cuda's; numba-cuda 0.30 vendors numba's as ``numba.cuda.core``), then type and lower it. What reads
that IR, or types a cuda-coop call, is the same for both and lives here, parametrised by the DSL's
:class:`~._frontend.Frontend` (its IR and type modules and its seams), never duplicated:

- :mod:`._planner` finds the primitive calls of a kernel, checks them and rewrites them into calls of the
  DSL's intrinsic; :mod:`._uniformity` (with :mod:`._flow`, :mod:`._uniform_groups`, :mod:`._ir`)
  refuses calls that only some threads reach; :mod:`._sites` keeps the planned call sites;
- :mod:`._typing` types a call site into a specialisation request; :mod:`._contracts` checks the spec's
  argument contracts; :mod:`._operators`, :mod:`._pointer_abi` and :mod:`._user_types` compile user
  operators and lay out records and tuples; :mod:`._call` says what each wrapper parameter receives;
- :mod:`._kernel_provider` is one kernel compile's provider and its link items; :mod:`._inspect` and
  :mod:`._precompile` are what ``compile_kernel`` and packs share.

Each integration folder holds only its seams (planner registration, launch configuration, lowering,
linking) behind its version gate.
"""
