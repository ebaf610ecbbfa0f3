"""The disk cache's writes are atomic, across processes: a racing reader never sees a partial entry, and
a writer killed before its rename leaves no entry (host only; no CUDA)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from cuda.coop._provider._cache import DiskCache, decode_entry
from tests.helpers.waits import HANG_SECONDS

KEY = "ab" + "0" * 62
ENV = {**os.environ, "CUDA_COOP_DISABLE_AUTO_DSL_REGISTRATION": "1"}

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from cuda.coop._provider._cache import DiskCache
    cache = DiskCache(Path(sys.argv[1]), max_bytes=1 << 40)
    for i in range(int(sys.argv[2])):
        cache.put(sys.argv[3], bytes([i % 251]) * (4 << 20))  # 4 MiB: a torn write would be easy to see
    """
)

READER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from cuda.coop._provider._cache import decode_entry
    path, key, ready, stop = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    whole = torn = 0
    deadline = time.time() + 600  # an orphaned reader's end; the test stops it with the file
    while not stop.exists() and time.time() < deadline:
        ready.touch()
        try:
            blob = path.read_bytes()  # raw: a reader that removed bad entries would hide the race
        except FileNotFoundError:
            continue
        data = decode_entry(key, blob)
        if data is None or len(set(data)) != 1:
            torn += 1
        else:
            whole += 1
    print(whole, torn)
    """
)


def test_a_reader_racing_a_writer_never_sees_a_partial_entry(tmp_path: Path) -> None:
    path = tmp_path / "ab" / f"{KEY}.ltoir"
    DiskCache(tmp_path).put(KEY, bytes(4 << 20))  # an entry exists from the start
    stop = tmp_path / "stop"
    ready = [tmp_path / f"ready{i}" for i in range(2)]
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(path), KEY, str(r), str(stop)],
            env=ENV,
            stdout=subprocess.PIPE,
            text=True,
        )
        for r in ready
    ]
    try:
        while not all(r.exists() for r in ready):  # both readers are reading
            assert all(r.poll() is None for r in readers), "a reader ended before it read"
            time.sleep(0.01)
        writer = subprocess.run([sys.executable, "-c", WRITER, str(tmp_path), "40", KEY], env=ENV, capture_output=True,
                                text=True, timeout=HANG_SECONDS, check=False)
    finally:
        stop.touch()
    assert writer.returncode == 0, writer.stderr
    counts = [tuple(map(int, r.communicate(timeout=HANG_SECONDS)[0].split())) for r in readers]
    assert all(whole > 0 for whole, _ in counts), counts
    assert [torn for _, torn in counts] == [0, 0], f"readers saw partial entries: {counts}"
    assert decode_entry(KEY, path.read_bytes()) is not None


CRASH = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from cuda.coop._provider._cache import DiskCache
    os.fsync = lambda fd: os._exit(17)  # the data is written; the process dies before the rename
    DiskCache(Path(sys.argv[1])).put(sys.argv[2], b"x" * 100000)
    os._exit(0)
    """
)


def test_a_writer_killed_before_the_rename_leaves_no_entry(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CRASH, str(tmp_path), KEY], env=ENV, check=False)
    assert done.returncode == 17
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not (tmp_path / "ab" / f"{KEY}.ltoir").exists(), "a killed writer left a visible entry"
    assert len(files) == 1 and files[0].name.endswith(".tmp")
    cache = DiskCache(tmp_path)
    assert cache.get(KEY) is None and cache.stats().entries == 0
    os.utime(files[0], (1, 1))  # an hour later: swept
    cache.evict()
    assert not files[0].exists()
