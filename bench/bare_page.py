"""The bare Streamlit page `bench/first_paint.py` times every view against: a title and six
lines, served by `streamlit run` like the app."""

import streamlit as st

st.title("A bare Streamlit page")
for i in range(1, 7):
    st.write(f"Line {i} of six: plain text, no chart, no data.")
