"""The lenses view (/lenses): ready-made candidate lists across the datasets."""
