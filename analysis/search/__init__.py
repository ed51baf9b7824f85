"""Search every text of the datasets and the casebook (a cross-dataset slice: it reads the
text tables through the dataset registry and never names a dataset)."""
