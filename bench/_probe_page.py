import pandas as pd
import streamlit as st

k = st.query_params.get("k", "none")
st.title("A bare Streamlit page")
for i in range(1, 7):
    st.write(f"Line {i} of six: plain text, no chart, no data.")
df = pd.DataFrame({"a": range(5), "b": list("abcde"), "c": [0.1] * 5})
for kind in k.split(","):
    if kind == "dataframe":
        st.dataframe(df)
    elif kind == "dataframe4":
        for _ in range(4):
            st.dataframe(df)
    elif kind == "table":
        st.table(df)
    elif kind == "mdtable":
        st.markdown("| a | b |\n|---|---|\n| 1 | x |\n| 2 | y |")
    elif kind == "metric":
        for c in st.columns(4):
            c.metric("m", 3, 1)
    elif kind == "selectbox":
        st.selectbox("s", ["a", "b", "c"])
    elif kind == "radio":
        st.radio("r", ["a", "b"], horizontal=True)
    elif kind == "segmented":
        st.segmented_control("seg", ["a", "b"])
    elif kind == "toggle":
        st.toggle("t")
    elif kind == "textinput":
        st.text_input("ti")
    elif kind == "button":
        st.button("b")
    elif kind == "tabs":
        st.tabs(["x", "y"])[0].write("x")
    elif kind == "expander":
        with st.expander("e"):
            st.write("x")
    elif kind == "sidebar":
        st.sidebar.write("side")
    elif kind == "sidebarsel":
        st.sidebar.selectbox("src", ["a", "b"])
    elif kind == "pagelink":
        st.page_link("https://example.org", label="x")
    elif kind == "container":
        with st.container(border=True):
            st.write("c")
    elif kind == "caption":
        st.caption("cap")
    elif kind == "download":
        st.download_button("d", b"x", "x.txt")
    elif kind == "slider":
        st.slider("sl", 0, 10, (2, 5))
    elif kind == "multiselect":
        st.multiselect("ms", ["a", "b"])
    elif kind == "numberinput":
        st.number_input("n")
    elif kind == "checkbox":
        st.checkbox("cb")
    elif kind == "popover":
        with st.popover("p"):
            st.write("x")
    elif kind == "json":
        st.json({"a": 1})
    elif kind == "code":
        st.code("x = 1")
    elif kind == "latex":
        st.latex("x^2")
    elif kind == "form":
        with st.form("f"):
            st.form_submit_button("go")
