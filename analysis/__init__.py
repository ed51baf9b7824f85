"""Pure domain logic (no Streamlit): trajectory parsing, confidence features, stopping
simulation and prefix-value analysis."""
