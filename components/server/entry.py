"""The app as an ASGI application: `python -m streamlit run components/server/entry.py`.

Streamlit runs `app.py` for every session as usual; this entry only adds the views' page shells
(`page_shell.py`), so a link to a view connects without Streamlit's base-path detour.
"""

from __future__ import annotations

import streamlit as st

from components.server.page_shell import view_routes

app = st.App("../../app.py", routes=view_routes())
