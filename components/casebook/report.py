"""The static HTML report lives in the cache layer (`cache.casebook.report`), so the CLI builds the
same report as the export tab; re-exported here for the views that import it from components."""

from __future__ import annotations

from cache.casebook.report import case_section, report_html

__all__ = ["case_section", "report_html"]
