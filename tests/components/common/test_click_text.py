"""The clickable-text component mounts in a script run and reads its trigger through `selection`."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script() -> None:
    import streamlit as st

    from components.common.click_text import click_text

    value = click_text('<a data-pick="n1">node 1</a>', key="txt")
    st.write(f"picked={value}")


def test_mounts_and_returns_none_without_a_click() -> None:
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["picked=None"]


def test_picked_value_reads_the_trigger_of_a_component_state() -> None:
    def script() -> None:
        import streamlit as st

        from components.common.selection import picked_value

        st.session_state["fake"] = {"pick": "n7"}
        st.write(f"{picked_value('fake')}|{picked_value('absent')}")

    at = AppTest.from_function(script).run()
    assert [m.value for m in at.markdown] == ["n7|None"]
