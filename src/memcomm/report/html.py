"""The report page: for each experiment its source in the papers, what the numbers say, the
plots and a table of medians with their 95% intervals, plus where and how it was measured."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memcomm import references, results
from memcomm.report import figures
from memcomm.report.analysis import Analysis


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


STYLE = """
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; font-size: 0.8em; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.note { color: #666; font-size: 0.9em; }
img { max-width: 100%; }
"""


def write(
    analyses: Sequence[Analysis],
    metas: Sequence[dict[str, Any]],
    notes: Sequence[str],
    directory: Path,
) -> Path:
    """Write index.html and the figures into `directory`; returns the page's path."""
    directory.mkdir(parents=True, exist_ok=True)
    parts = [
        f"<!doctype html><meta charset='utf-8'><title>memcomm report</title>"
        f"<style>{STYLE}</style><h1>memcomm measurements</h1>"
    ]
    runs = [
        [
            m["experiment"],
            m["engine"],
            m["mpi"]["name"],
            m["mpi"]["library"],
            m["date"],
            m["git"],
            m.get("host", ""),
            m.get("cpu", ""),
            results.policy_text(m.get("memory_policy", {})),
        ]
        for m in metas
    ]
    parts.append("<h2>Runs</h2>")
    parts.append(
        _table(
            [
                "experiment",
                "engine",
                "MPI",
                "library",
                "date",
                "memcomm git",
                "host",
                "CPU",
                "memory policy",
            ],
            runs,
        )
    )
    parts += [f"<p class='note'>{html.escape(note)}</p>" for note in notes]
    parts.append(
        "<p class='note'>Medians of repeated samples; bands and brackets are the "
        "95% confidence interval of the median (docs/timing.md).</p>"
    )
    for a in analyses:
        parts.append(f"<h2>{html.escape(a.title)}</h2>")
        parts.append(
            f"<p class='note'>experiment <code>{a.experiment}</code>, from seed "
            f"{html.escape(references.cite(a.source))}</p><ul>"
        )
        parts += [f"<li>{html.escape(f)}</li>" for f in a.findings]
        parts.append("</ul>")
        for figure in a.figures:
            path = figures.draw(figure, directory)
            parts.append(f"<img src='{path.name}' alt='{html.escape(figure.title)}'>")
            if len(figure.xlabel) >= 90:
                parts.append(f"<p class='note'>{html.escape(figure.xlabel)}</p>")
        for t in a.tables:
            parts.append(f"<h3>{html.escape(t.title)}</h3>" + _table(t.header, t.rows))
    page = directory / "index.html"
    page.write_text("\n".join(parts) + "\n")
    return page
