"""The dependency tree of pyproject.toml (runtime and the test extra) as installed here.

Why: `constraints.txt` pins exactly the versions the suite ran on; `tests/setup.sh` installs from
it and tests/test_deploy_files.py checks it against this tree. After changing a dependency, run
`python -m tests.constraints > constraints.txt` and commit the result with the change.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
HEADER = (
    "# The exact versions the test suite ran on: pyproject.toml's dependencies and its test extra,\n"
    "# with everything they pull in. tests/setup.sh installs with `-c constraints.txt`.\n"
    "# Regenerate after a dependency change: python -m tests.constraints > constraints.txt\n"
)


def canonical(name: str) -> str:
    """A distribution name as pip compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def direct_requirements() -> list[Requirement]:
    """The runtime dependencies and the test extra of pyproject.toml."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    lines = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    return [Requirement(line) for line in lines]


def dependency_tree() -> dict[str, str]:
    """canonical name -> installed version of every distribution the project pulls in."""
    found: dict[str, str] = {}
    stack = [r.name for r in direct_requirements()]
    while stack:
        name = canonical(stack.pop())
        if name in found:
            continue
        dist = metadata.distribution(name)  # PackageNotFoundError: the tree is not installed
        found[name] = dist.version
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                stack.append(req.name)
    return found


def render() -> str:
    tree = dependency_tree()
    return HEADER + "".join(f"{name}=={tree[name]}\n" for name in sorted(tree))


def read_pins(text: str) -> dict[str, str]:
    """canonical name -> version of each `name==version` line (comments and blanks skipped)."""
    pins: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonical(name)] = version
    return pins


if __name__ == "__main__":
    print(render(), end="")
