"""The report's component module is a re-export of the cache layer's report (one home)."""

from __future__ import annotations

from cache.casebook import report as cache_report
from components.casebook import report as component_report


def test_the_component_module_re_exports_the_cache_report() -> None:
    assert component_report.report_html is cache_report.report_html
    html = component_report.report_html([], "<t>")
    assert "<title>&lt;t&gt;</title>" in html and "No cases." in html
