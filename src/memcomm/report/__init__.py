"""What a person reads: text tables of medians and ratios (tables), each experiment's
analysis against its seed (analysis), plots (figures) and the HTML page (html)."""

from memcomm.report.tables import (
    PackRow,
    across_mpis,
    format_table,
    geomean,
    markdown_table,
    pack_rows,
    pack_table,
    probe_text,
    summary,
)

__all__ = [
    "PackRow",
    "across_mpis",
    "format_table",
    "geomean",
    "markdown_table",
    "pack_rows",
    "pack_table",
    "probe_text",
    "summary",
]
