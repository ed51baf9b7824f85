"""How the app is served: the ASGI entry (`entry.py`) that `streamlit run` starts."""
