"""Plots in the style of the seeds' figures: size on a log axis, one line per method, the
median's 95% confidence interval as a band."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt

from memcomm.report.analysis import Figure


def draw(figure: Figure, directory: Path) -> Path:
    """Write one figure as PNG; returns its path."""
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
    fig.tight_layout()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{figure.name}.png"
    fig.savefig(path)
    plt.close(fig)
    return path
