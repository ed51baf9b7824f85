"""The search page: the query bar, filters, counts and results (`analysis.search` does the work)."""
