"""The seven crafted `view` values of issue 29 (docs/JOURNEYS.md, J4): link forms a browser would
follow off the explorer. One list for the unit, report and browser tests."""

CRAFTED_VIEWS: tuple[str, ...] = (
    "javascript:alert(1)//",
    "JAVASCRIPT:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//evil.example/x",
    "/\\evil.example",
)
