"""Escaping of untrusted text, and validated URL parameters."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from components.common.safe_text import esc, esc_hover
from components.common.url_state import shown_key


def test_esc_neutralises_markup() -> None:
    evil = "<script>alert(\"x\")</script><img src=x onerror=alert(1)> a<b>c & 'q'"
    out = esc(evil)
    assert "<" not in out and ">" not in out and '"' not in out and "'" not in out
    assert "&lt;script&gt;" in out and "a&lt;b&gt;c &amp;" in out
    assert esc(None) == ""


def test_esc_hover_shortens_and_breaks_lines() -> None:
    out = esc_hover("<b>x</b>\n" + "y" * 500, limit=20)
    assert out.startswith("&lt;b&gt;x&lt;/b&gt;<br>") and out.endswith("…") and len(out) < 60


def _script() -> None:
    import streamlit as st

    from components.common.url_state import Param, int_in, safe_token

    qid = Param("qid", 0, int_in(0, 29))
    kind = Param("kind", "a", str, choices=("a", "b"))
    node = Param("node", None, safe_token(10))
    st.write(f"qid={qid.read()} kind={kind.read()} node={node.read()}")
    if st.button("set", key="set"):
        qid.write(7)
        node.write(None)


def _values(params: dict[str, str]) -> str:
    at = AppTest.from_function(_script)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    return at.markdown[0].value


def test_params_validate_and_fall_back_to_defaults() -> None:
    assert _values({"qid": "12", "kind": "b", "node": "n3"}) == "qid=12 kind=b node=n3"
    assert _values({"qid": "99", "kind": "zzz", "node": "x" * 50}) == "qid=0 kind=a node=None"
    assert _values({"qid": "__import__('os')", "node": "bad\x00"}) == "qid=0 kind=a node=None"


def test_param_write_updates_url_and_drops_defaults() -> None:
    at = AppTest.from_function(_script)
    at.query_params["node"] = "n1"
    at.run()
    at.button(key="set").click().run()
    assert at.query_params.get("qid") == ["7"] or at.query_params.get("qid") == "7"
    assert "node" not in at.query_params


def _surrogates() -> None:
    import streamlit as st

    from components.common.url_state import Param, url_multiselect, url_selectbox

    many = url_multiselect("Sources", ["a\ud800b", "plain"], "src")
    one = url_selectbox("One", ["plain", "c\udc00d"], Param("one", "plain"))
    st.write(f"{len(many)} {one == 'plain'}")


def test_a_choice_no_url_can_hold_is_kept_without_a_traceback() -> None:
    """A value from the data with a lone surrogate cannot go into a URL (UTF-8): the light
    controls keep the reader's choice in the session, and the link leaves it out."""
    at = AppTest.from_function(_surrogates).run()
    at.session_state[shown_key("src")] = ("a\ud800b", "plain")
    at.session_state[shown_key("one")] = "c\udc00d"
    for _ in range(2):  # the choice holds on the next run too
        at.run()
        assert not at.exception, at.exception
        assert at.markdown[0].value == "2 False"
        assert "src" not in at.query_params and "one" not in at.query_params


def _tabs() -> None:
    import streamlit as st

    from components.common.url_state import url_tabs

    def _to_c() -> None:
        st.session_state["view"] = "C"  # as a view's callback opens a tab

    st.button("to C", key="to_c", on_click=_to_c)
    st.write(url_tabs("Views", ("A", "B long name", "C"), "view", "A", {"b": "B long name"}))


def test_the_tabs_follow_the_url_an_alias_and_a_callback() -> None:
    """`url_tabs`: the URL's tab (a link's short name too), the default for an unknown one
    (left out of the URL), and a callback's switch, which the URL then names."""
    cases = {"B long name": "B long name", "b": "B long name", "Nope": "A", "<b>": "A", "": "A"}
    for asked, shown in cases.items():
        at = AppTest.from_function(_tabs)
        at.query_params["view"] = asked
        at.run()
        assert not at.exception, at.exception
        assert at.markdown[0].value == shown
        assert at.query_params.get("view") in ((None, [], "") if shown == "A" else (shown, [shown]))
        # a value the tabs do not take is said once, escaped; a known one (or none) says nothing
        notes = [c.value for c in at.caption if "is not a value this control takes" in c.value]
        if asked in ("Nope", "<b>"):
            (note,) = notes
            assert "view=“" in note and "is set to “A”" in note and "<b>" not in note
        else:
            assert notes == []
    at.button(key="to_c").click().run()
    assert at.markdown[0].value == "C" and at.query_params.get("view") in ("C", ["C"])
    at.run()  # the switch is not made again: the tab stays until the reader moves it
    assert at.markdown[0].value == "C"
    at.session_state[shown_key("view")] = "A"  # the reader's click on the first tab
    at.run()
    assert at.markdown[0].value == "A" and "view" not in at.query_params


def test_hover_text_keeps_quotes_readable_in_plotly() -> None:
    """Plotly decodes numeric entities but not `&quot;`: a quote must not read literally."""
    from components.common.safe_text import esc_hover

    out = esc_hover('say "hi" <b>')
    assert "&quot;" not in out and "&#34;hi&#34;" in out and "&lt;b&gt;" in out


def test_every_url_bound_widget_key_is_registered_for_its_view() -> None:
    """A widget bound to the URL by a literal key (`bound`, `bound_kept`, `grid_switch`) in a
    view's slice is a key of that view in `url_keys.REGISTRY` (links and captured cases carry
    only registered keys)."""
    import re
    from pathlib import Path

    from components.common.url_keys import keys_of

    root = Path(__file__).resolve().parents[3] / "components"
    literal = re.compile(r"\b(?:bound|bound_kept|grid_switch)\(\s*\"([A-Za-z0-9_]+)\"")
    missing = []
    for view in ("parason", "mars", "playground", "fineproofs", "casebook", "search", "lenses"):
        for path in sorted((root / view).glob("*.py")):
            for key in literal.findall(path.read_text(encoding="utf-8")):
                if key not in keys_of(view):
                    missing.append(f"{path.relative_to(root)}: {key}")
    assert missing == []
