"""scripts/check_migration.py finds what the migration page gets wrong about the old module.

Runs the script's checks against a small fake ``cuda.coop._experimental`` written to ``tmp_path`` (no
download, no numba-cuda); the real counterpart is the script run on a released cuda-cccl wheel, as the
page's source says.
"""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_migration.py"

FAKE = {
    "__init__.py": """
        from . import block, warp
        from ._types import StatefulFunction

        __all__ = ["block", "warp", "StatefulFunction"]
    """,
    "_types.py": """
        class StatefulFunction:
            def __init__(self, op, dtype):
                self.op = op

        class Invocable:
            @property
            def files(self):
                return []

            @property
            def temp_storage_bytes(self):
                return 0
    """,
    "block/__init__.py": """
        from ._block_exchange import BlockExchangeType, make_exchange
        from ._block_reduce import make_reduce

        __all__ = ["BlockExchangeType", "make_exchange", "make_reduce"]
    """,
    "block/_block_reduce.py": """
        def make_reduce(dtype, threads_per_block, binary_op, items_per_thread=1, algorithm="warp_reductions"):
            return None
    """,
    "block/_block_exchange.py": """
        from enum import IntEnum, auto

        class BlockExchangeType(IntEnum):
            StripedToBlocked = auto()

        def make_exchange(block_exchange_type, dtype, threads_per_block, items_per_thread, warp_time_slicing=False):
            return None
    """,
    "warp/__init__.py": """
        from ._warp_reduce import make_sum

        __all__ = ["make_sum"]
    """,
    "warp/_warp_reduce.py": """
        def make_sum(dtype, threads_in_warp=32):
            return None
    """,
}

BEFORE = """
    import numba
    from numba import cuda
    import cuda.coop._experimental as coop_exp

    block_reduce = coop_exp.block.make_reduce(numba.int32, 128, max_op, algorithm="raking")
    block_exchange = coop_exp.block.make_exchange(coop_exp.block.BlockExchangeType.StripedToBlocked,
                                                  numba.int32, 128, items_per_thread=4)
    warp_sum = coop_exp.warp.make_sum(numba.int32)
    prefix_op = coop_exp.StatefulFunction(Op, op_type)

    @cuda.jit(link=block_reduce.files + warp_sum.files)
    def kernel(x, out):
        temp_storage = cuda.shared.array(block_reduce.temp_storage_bytes, numba.uint8)
        out[0] = block_reduce(temp_storage, x[0])
"""

TABLE = """
    block.make_reduce(dtype, threads_per_block, binary_op, items_per_thread=1, algorithm="warp_reductions") | cub::BlockReduce | reduce
    block.make_exchange(block_exchange_type, dtype, threads_per_block, items_per_thread, warp_time_slicing=False) | cub::BlockExchange | striped_to_blocked
    warp.make_sum(dtype, threads_in_warp=32) | cub::WarpReduce | sum
"""  # noqa: E501


def _indent(text: str) -> str:
    return textwrap.indent(textwrap.dedent(text).strip("\n"), "   ")


def page(before: str = BEFORE, table: str = TABLE) -> str:
    """A migration page with one marked old-code block, an unmarked one, and the factory table."""
    return "\n".join([
        "Title", "=====", "",
        ".. code-block:: python", "   :class: migration-before", "", _indent(before), "",
        "Unmarked code is not checked:", "",
        ".. code-block:: python", "", "   coop_exp.block.no_such_factory(1, 2, 3)", "",
        ".. coop-migration-table::", "", _indent(table), "",
        "The end.", "",
    ])


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script(SCRIPT, "check_migration")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """An unpacked fake wheel: ``tmp_path/cuda/coop/_experimental`` and a dist-info."""
    root = tmp_path / "cuda" / "coop" / "_experimental"
    for name, text in FAKE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    (tmp_path / "cuda" / "coop" / "__init__.py").write_text("__all__ = []\n")
    (tmp_path / "cuda_cccl-9.9.9.dist-info").mkdir()
    (tmp_path / "cuda_cccl-9.9.9.dist-info" / "METADATA").write_text("Name: cuda-cccl\nVersion: 9.9.9\n")
    return tmp_path


def _check(script: ModuleType, tree: Path, text: str) -> list[str]:
    package = script.Package(script.find_package(tree))
    return list(script.check(text, package).mismatches)


def test_a_page_that_matches_passes(script: ModuleType, tree: Path) -> None:
    report = script.check(page(), script.Package(script.find_package(tree)))
    assert report.mismatches == []
    assert report.blocks == 1 and report.rows == 3
    assert report.names == {"block.make_reduce", "block.make_exchange", "block.BlockExchangeType.StripedToBlocked",
                            "warp.make_sum", "StatefulFunction"}
    assert report.attributes == {"files", "temp_storage_bytes"}


def test_the_marked_blocks_and_the_table_rows_are_found(script: ModuleType) -> None:
    text = page()
    blocks = script.before_blocks(text)
    assert len(blocks) == 1
    assert blocks[0].text.startswith("import numba")
    assert text.splitlines()[blocks[0].line - 1].strip() == "import numba"
    assert [old.split("(")[0] for _, old in script.table_rows(text)] == [
        "block.make_reduce", "block.make_exchange", "warp.make_sum"]


def test_a_misspelled_factory_is_a_mismatch(script: ModuleType, tree: Path) -> None:
    found = _check(script, tree, page(BEFORE.replace("block.make_reduce(", "block.make_reduc(")))
    assert len(found) == 1
    assert "coop_exp.block.make_reduc: cuda.coop._experimental.block.make_reduc does not exist" in found[0]


def test_an_unknown_keyword_is_a_mismatch(script: ModuleType, tree: Path) -> None:
    found = _check(script, tree, page(BEFORE.replace('algorithm="raking"', "threads=128")))
    assert len(found) == 1
    assert "unknown keyword threads=" in found[0] and "coop_exp.block.make_reduce(dtype" in found[0]


@pytest.mark.parametrize(("old", "new", "message"), [
    ("make_sum(numba.int32)", "make_sum()", "required parameter dtype not given"),
    ("make_sum(numba.int32)", "make_sum(numba.int32, 32, 1)", "3 positional arguments, takes at most 2"),
    ("make_sum(numba.int32)", "make_sum(numba.int32, dtype=1)", "dtype given twice"),
    ("BlockExchangeType.StripedToBlocked", "BlockExchangeType.BlockedToStriped",
     "block.BlockExchangeType.BlockedToStriped does not exist"),
    ("warp_sum.files", "warp_sum.file", "warp_sum.file: Invocable has no public attribute file"),
    ("StatefulFunction(Op, op_type)", "StatefulFunction(Op)", "required parameter dtype not given"),
    ("def kernel(x, out):", "def kernel(x, out)", "does not parse"),
])
def test_other_wrong_calls_are_mismatches(script: ModuleType, tree: Path, old: str, new: str, message: str) -> None:
    assert old in BEFORE
    found = _check(script, tree, page(BEFORE.replace(old, new)))
    assert len(found) == 1 and message in found[0], found


@pytest.mark.parametrize(("old", "new", "message"), [
    ("warp.make_sum(dtype", "warp.make_summ(dtype", "table row warp.make_summ: cuda.coop._experimental.warp.make_summ"),
    ("items_per_thread=1, ", "items_per_thread, ", "the wheel has block.make_reduce(dtype, threads_per_block, "
     "binary_op, items_per_thread=1, algorithm='warp_reductions')"),
    ("block_exchange_type, dtype", "dtype", "table row block.make_exchange(dtype"),
])
def test_a_wrong_table_row_is_a_mismatch(script: ModuleType, tree: Path, old: str, new: str, message: str) -> None:
    found = _check(script, tree, page(table=TABLE.replace(old, new, 1)))
    assert any(message in line for line in found), found


def test_a_factory_without_a_row_is_a_mismatch(script: ModuleType, tree: Path) -> None:
    table = "\n".join(line for line in TABLE.splitlines() if "make_exchange" not in line)
    assert _check(script, tree, page(table=table)) == [
        "the wheel's block.make_exchange has no row in the migration table"]


def test_a_page_without_marked_blocks_is_a_mismatch(script: ModuleType, tree: Path) -> None:
    text = page().replace(":class: migration-before", ":class: other")
    assert _check(script, tree, text) == [
        "the page has no '.. code-block:: python' with ':class: migration-before'"]


def _wheel(tree: Path, into: Path) -> Path:
    wheel = into / "cuda_cccl-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as whl:
        for path in sorted(tree.rglob("*")):
            if path.is_file():
                whl.write(path, path.relative_to(tree).as_posix())
    return wheel


def test_main_reads_a_wheel_and_sets_the_exit_status(script: ModuleType, tree: Path,
                                                     tmp_path_factory: pytest.TempPathFactory,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path_factory.mktemp("out")
    wheel = _wheel(tree, out)
    good, bad = out / "good.rst", out / "bad.rst"
    good.write_text(page())
    bad.write_text(page(BEFORE.replace("block.make_reduce(", "block.make_reduc(")))

    assert script.main([str(wheel), "--page", str(good)]) == 0
    text = capsys.readouterr().out
    assert "cuda-cccl 9.9.9" in text and "OK" in text

    assert script.main([str(wheel), "--page", str(bad)]) == 1
    text = capsys.readouterr().out
    assert "1 mismatches" in text and "bad.rst:" in text and "make_reduc does not exist" in text

    assert script.main([str(tree), "--page", str(good)]) == 0  # an unpacked tree works too
    assert "cuda-cccl 9.9.9" in capsys.readouterr().out


def test_a_wheel_without_the_module_is_refused(script: ModuleType, tmp_path: Path) -> None:
    wheel = tmp_path / "cuda_cccl-1.2.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as whl:
        whl.writestr("cuda/compute/__init__.py", "")
    with pytest.raises(SystemExit, match="no cuda/coop/_experimental/"):
        script.main([str(wheel)])


def test_the_real_page_is_marked_for_the_script(script: ModuleType) -> None:
    text = script.PAGE.read_text(encoding="utf-8")
    assert script.before_blocks(text), "docs/migration.rst has no old code marked for the check"
    assert len(script.table_rows(text)) >= 17
    assert "python scripts/check_migration.py" in text  # the page says how it is checked
