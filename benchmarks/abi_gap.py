"""How much of a same-algorithm gap is the kernel's own array store: reduce pairs of the suite, each timed
against its twin and against the twin with the store that Numba-CUDA-MLIR 0.5.x compiles.

    python benchmarks/abi_gap.py [--reps 20] [--out DIR] [--above 1.03] [--only SUBSTRING ...]

The pairs are the reduce cases and algorithms whose same-algorithm ratio in the committed
``benchmarks/results/suite.json`` is above ``--above`` (``--only`` keeps the cases whose name contains one of
the strings). For each, three kernels run on the same data, interleaved on one stream as in suite.py:

- ``coop``: the suite's cuda-coop kernel with the algorithm chosen explicitly;
- ``twin``: its CUB C++ twin (``twins::reduce``: ``partial[blockIdx.x] = total``);
- ``numba_store``: the same twin, except that thread 0 stores the tile's sum as Numba-CUDA-MLIR 0.5.x compiles
  ``partial[cuda.blockIdx.x] = total`` (``twins::reduce_numba_store``: the memref's offset, size and stride
  read from the kernel's parameters, the int32 index wrapped when negative);
- ``coop_core``: the cuda-coop kernel's cubin (``compile_kernel`` for this GPU) launched with cuda.core, as the
  twins are, with the memref parameters Numba-CUDA-MLIR's launcher passes: whether a difference is the code or
  the launch path.

All four results are checked against NumPy on every tile. Where ``coop / numba_store`` is near 1 and
``coop / twin`` is not, the gap is that store, which cuda-coop does not compile (docs/known_issues.rst, the
array-indexing report). Writes ``abi_gap.json`` to --out. Needs a GPU and nvcc.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import suite  # noqa: E402  (the suite's cases, kernels, twins, checks and timing)

RESULTS = HERE / "results" / "suite.json"


def pairs(above: float, only: list[str]) -> list[tuple[suite.Case, str]]:
    """(reduce case, algorithm) of every committed same-algorithm ratio above ``above``."""
    rows = {r["case"]: r for r in json.loads(RESULTS.read_text())["rows"]}
    out = []
    for c in suite.cases():
        row = rows.get(c.name, {})
        if c.family != "reduce" or (only and not any(s in c.name for s in only)):
            continue
        out += [(c, alg) for alg, ratio in row.get("same_algorithm", {}).items() if ratio > above]
    return out


def _numba_store_name(c: suite.Case, algorithm: str) -> str:
    return f"{suite.twin_name(c, algorithm)}__numba_store"


def source(selected: list[tuple[suite.Case, str]]) -> str:
    """The suite's twins of the selected cases, and a numba-store twin per pair."""
    out = [suite._twin_source(list(dict.fromkeys(c for c, _ in selected)))]
    for c, alg in selected:
        t, cpp = suite.CPP[c.dtype], suite.parity_algorithms(c)[alg]
        out.append(
            f'extern "C" __global__ void __launch_bounds__({c.threads}) {_numba_store_name(c, alg)}'
            f"(const {t}* x, {t}* partial, long long offset, long long size, long long stride)\n{{\n"
            f"  twins::reduce_numba_store<{t}, {c.threads}, {c.items}, {cpp}>(x, partial, offset, size, stride);\n}}\n"
        )
    return "\n".join(out)


def run_pair(c: suite.Case, algorithm: str, module, stream, reps: int) -> dict[str, object]:
    from cuda.core import Device, LaunchConfig, ObjectCode, launch
    from numba_cuda_mlir import cuda
    from numba_cuda_mlir.numba_cuda import types

    from cuda.coop.numba_mlir import compile_kernel

    inputs, outputs, check = suite.FAMILIES[c.family].setup(c)
    (x,), (partial,) = [cuda.to_device(a) for a in inputs], [cuda.to_device(a) for a in outputs]
    config = LaunchConfig(grid=c.tiles, block=c.threads)
    kernel = suite.FAMILIES[c.family].factory(c, algorithm)
    on_stream = cuda.external_stream(int(stream.handle))
    twin = module.get_kernel(suite.twin_name(c, algorithm))
    numba_store = module.get_kernel(_numba_store_name(c, algorithm))
    pointers = (suite._pointer(x), suite._pointer(partial))

    def memref(a) -> tuple[np.generic, ...]:  # (allocated, aligned, offset, size, stride), as the launcher passes
        return (suite._pointer(a), suite._pointer(a), np.int64(0), np.int64(a.shape[0]), np.int64(1))

    x_memref, partial_memref = memref(x), memref(partial)
    cc = Device().compute_capability
    item = getattr(types, c.dtype)
    compiled = compile_kernel(kernel, (item[::1], item[::1]), block=c.threads, arch=f"sm_{cc.major}{cc.minor}")
    coop_core = ObjectCode.from_cubin(compiled.cubin).get_kernel(compiled.name)
    launches = {
        "coop": lambda: kernel[c.tiles, c.threads, on_stream](x, partial),
        "twin": lambda: launch(stream, config, twin, *pointers),
        "numba_store": lambda: launch(stream, config, numba_store, *pointers, *partial_memref[2:]),
        "coop_core": lambda: launch(stream, config, coop_core, *x_memref, *partial_memref),
    }
    checks = suite.check_each(launches, [partial], outputs, check, stream)
    ms, _ = suite.time_interleaved(launches, stream, reps)
    return {"case": c.name, "algorithm": algorithm, "ms": ms, "ok": checks,
            "coop_vs_twin": ms["coop"] / ms["twin"], "coop_vs_numba_store": ms["coop"] / ms["numba_store"],
            "numba_store_vs_twin": ms["numba_store"] / ms["twin"],
            "coop_core_vs_numba_store": ms["coop_core"] / ms["numba_store"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--above", type=float, default=1.03)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    selected = pairs(args.above, args.only)
    if not selected:
        print(f"no reduce pair of {RESULTS} is above {args.above}")
        return 0

    from cuda.core import Device, ObjectCode

    device = Device()
    device.set_current()
    stream = device.create_stream()
    module = ObjectCode.from_cubin(suite.build_cubin(source(selected), args.out, "abi_gap_twins").read_bytes())
    print(f"{'case':<28}{'algorithm':<34}{'coop/twin':>10}{'coop/numba_store':>18}{'numba_store/twin':>18}"
          f"{'coop_core/numba_store':>23}  ok")
    rows = []
    for c, alg in selected:
        row = run_pair(c, alg, module, stream, args.reps)
        rows.append(row)
        ok = "ok" if all(row["ok"].values()) else f"WRONG: {row['ok']}"
        print(f"{c.name:<28}{alg:<34}{row['coop_vs_twin']:>10.3f}{row['coop_vs_numba_store']:>18.3f}"
              f"{row['numba_store_vs_twin']:>18.3f}{row['coop_core_vs_numba_store']:>23.3f}  {ok}", flush=True)
    result = {"device": suite._device_name(), "reps": args.reps, "batch": suite.BATCH,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "rows": rows}
    (args.out / "abi_gap.json").write_text(json.dumps(result, indent=2))
    return 0 if all(all(r["ok"].values()) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
