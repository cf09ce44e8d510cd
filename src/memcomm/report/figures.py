"""Plots in the style of the papers' figures: size on a log axis, one line per method, the
median's 95% confidence interval as a band; ratios by named case as horizontal bars."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt
from matplotlib.figure import Figure as MplFigure

from memcomm.report.analysis import Figure


def _draw_categories(figure: Figure, directory: Path) -> Path:
    """Ratios by named case: a row per case (first at the top), a bar per series, a log axis
    with 1 (the baseline) marked, each bar labelled with its ratio and the median's 95%
    confidence interval as an error bar."""
    cases, n = figure.categories, max(len(figure.series), 1)
    height = 0.8 / n
    fig, ax = plt.subplots(figsize=(8.5, 1.2 + 0.22 * len(cases) * max(n, 2)), dpi=110)
    for k, s in enumerate(figure.series):
        ys = [p.x + (k - (n - 1) / 2) * height for p in s.points]
        values = [p.value for p in s.points]
        errors = [
            [p.value - p.summary.low * p.scale for p in s.points],
            [p.summary.high * p.scale - p.value for p in s.points],
        ]
        bars = ax.barh(ys, values, height=height * 0.9, label=s.label, xerr=errors, capsize=1.5)
        ax.bar_label(bars, labels=[f"{v:.2f}x" for v in values], fontsize=6, padding=2)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(cases)), cases, fontsize=7)
    ax.set_ylim(len(cases) - 0.5, -0.5)  # the first case at the top, as in the tables
    ax.set_title(figure.title)
    ax.set_xlabel(figure.xlabel)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    if figure.series:
        ax.legend(fontsize=7, loc="best")
    return _save(fig, figure, directory)


def _save(fig: MplFigure, figure: Figure, directory: Path) -> Path:
    fig.tight_layout()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{figure.name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path


def draw(figure: Figure, directory: Path) -> Path:
    """Write one figure as PNG; returns its path."""
    if figure.categories:
        return _draw_categories(figure, directory)
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    if figure.bars:
        bottom: list[float] = []
        for s in figure.series:
            xs = [p.x for p in s.points]
            heights = [p.value for p in s.points]
            if not bottom:
                bottom = [0.0] * len(xs)
            ax.bar(xs, heights, bottom=bottom[: len(xs)], label=s.label, width=0.6)
            bottom = [b + h for b, h in zip(bottom, heights, strict=False)]
        ax.set_xticks(sorted({p.x for s in figure.series for p in s.points}))
    else:
        for s in figure.series:
            xs = [p.x for p in s.points]
            ax.plot(xs, [p.value for p in s.points], marker="o", markersize=3, label=s.label)
            ax.fill_between(
                xs,
                [p.summary.low * p.scale for p in s.points],
                [p.summary.high * p.scale for p in s.points],
                alpha=0.2,
            )
        if figure.xlog:
            ax.set_xscale("log", base=2)
        if figure.ylog:
            ax.set_yscale("log")
    ax.set_title(figure.title)
    ax.set_xlabel(figure.xlabel if len(figure.xlabel) < 90 else "see the key below")
    ax.set_ylabel(figure.ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if figure.series:
        ax.legend(fontsize=7)
    return _save(fig, figure, directory)
