"""The install works without a C compiler: with `RTE_NO_EXT=1` (cache/extensions.py) the code runs
as if the compiled modules were absent, and the test modules that depend on them (the MARS build,
its per-trace pass, the page decoder) pass in a fresh process under that switch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from analysis.mars import confidence
from cache import extensions, list_pages

REPO = Path(__file__).resolve().parents[1]
MODULES = [
    "tests/analysis/mars/test_trace_kernel.py",
    "tests/analysis/mars/test_confidence.py",
    "tests/analysis/mars/test_features.py",
    "tests/cache/test_list_pages.py",
    "tests/cache/test_list_pages_writers.py",
]
_PROBE = (
    "from analysis.mars import confidence\n"
    "from cache import list_pages\n"
    "print(confidence._trace_kernel is None, list_pages._list_pages is None)\n"
)


def test_the_switch_unloads_both_compiled_modules() -> None:
    env = {**os.environ, extensions.SWITCH: "1"}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, env=env, capture_output=True, text=True,
        check=True, timeout=120,
    )  # fmt: skip
    assert out.stdout.split() == ["True", "True"]
    if not extensions.disabled():  # here, without the switch, both are loaded
        assert confidence._trace_kernel is not None and list_pages._list_pages is not None


def test_the_extension_sensitive_modules_pass_without_the_extensions() -> None:
    env = {**os.environ, extensions.SWITCH: "1"}
    argv = [sys.executable, "-m", "pytest", *MODULES, "-o", "addopts=-p no:cacheprovider"]
    out = subprocess.run(
        [*argv, "-v", "-rs"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    tail = out.stdout[-4000:]
    assert out.returncode == 0, tail
    # the switch took effect: the kernel's own tests skipped for it, the loop's check ran, and
    # the decoder-only module skipped while the writers' module ran on pyarrow's path
    assert "RTE_NO_EXT=1: the numpy loop on purpose" in out.stdout, tail
    assert "test_the_switch_leaves_the_numpy_loop PASSED" in out.stdout, tail
    assert "the compiled page decoder is not built" in out.stdout, tail
    assert "test_a_polars_file_is_decoded_as_pyarrow_reads_it[default] PASSED" in out.stdout, tail
    assert " failed" not in out.stdout.splitlines()[-1], tail
