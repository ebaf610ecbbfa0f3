"""Check the calls of the code CI cannot run: the GPU tier, its helpers, the examples and the benchmarks.

CI has no GPU, so a GPU test whose call no longer matches the function it calls (a helper that gained a required
argument, a test parametrised over a new axis) would only fail on the next GPU run. mypy reads these files loosely
(numba kernels are untyped) and this script fails on the errors that mean a call cannot work as written: missing,
unexpected or surplus arguments (``call-arg``). Every other finding of that loose run is ignored.

    python scripts/check_calls.py            # from the repository root; exit 1 and the findings if any
"""

from __future__ import annotations

import sys

from mypy import api

PATHS = ("tests/gpu", "tests/helpers", "examples", "benchmarks")
CODES = ("[call-arg]",)
FLAGS = ("--ignore-missing-imports", "--follow-imports=silent", "--allow-untyped-defs", "--allow-untyped-calls",
         "--no-warn-return-any", "--no-strict-optional", "--no-error-summary", "--show-error-codes")


def main() -> int:
    out, err, _ = api.run([*FLAGS, *PATHS])
    found = [line for line in out.splitlines() if line.endswith(CODES)]
    if err.strip():
        print(err, file=sys.stderr)
        return 2
    for line in found:
        print(line)
    print(f"calls checked in {', '.join(PATHS)}: {len(found)} that cannot work as written")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
