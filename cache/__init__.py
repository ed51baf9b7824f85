"""Data layer: sources, schemas, lazy scans, derived-table store and the sample generator.

Never imports Streamlit; pages reach it through `components.adapters`.
"""
