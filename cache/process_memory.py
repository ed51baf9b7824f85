"""This process's peak resident memory, as the build reports it for its workers and the benchmarks
print it.

Why not `resource.getrusage(...).ru_maxrss` alone: Linux keeps it across `fork` + `exec`, so a
process started by a big one (a worker of a build, a benchmark's child after generating a file)
reports its parent's size at the fork. `VmHWM` in /proc/self/status belongs to the process's own
memory map, which `exec` replaces.
"""

from __future__ import annotations

import resource


def peak_rss_bytes() -> int:
    """Peak resident set size of this process since its last `exec`, in bytes."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # not Linux: best known
