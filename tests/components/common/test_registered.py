"""A component is registered with Streamlit once per process, its script read on first use."""

from __future__ import annotations

from components.common import registered as reg


def test_a_component_is_registered_once_and_its_script_read_once(monkeypatch) -> None:
    made: list[tuple[str, str, dict]] = []
    monkeypatch.setattr(reg, "_MOUNTS", {})
    monkeypatch.setattr(
        reg.st.components.v2,
        "component",
        lambda name, js, **kw: made.append((name, js, kw)) or f"mount of {name}",
    )
    reads: list[int] = []

    def script() -> str:
        reads.append(1)
        return "export default function () {}"

    first = reg.registered("rte_test", script, ".x { }")
    assert reg.registered("rte_test", script, ".x { }") == first == "mount of rte_test"
    assert reads == [1]
    assert made == [("rte_test", "export default function () {}", {"css": ".x { }"})]
    reg.registered("rte_other", "js")  # no stylesheet: none passed
    assert made[-1] == ("rte_other", "js", {})
