"""A model's prediction next to the measurement, for `memcomm model validate`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from memcomm.stats import median

Subject = TypeVar("Subject")


@dataclass(frozen=True)
class Check(Generic[Subject]):
    """What was predicted (a message size, a layout) and how it came out."""

    subject: Subject
    predicted: float
    measured: float

    @property
    def error(self) -> float:
        """Relative error of the prediction: + when it overestimates."""
        return (self.predicted - self.measured) / self.measured


def median_abs_error(checks: Sequence[Check[Subject]]) -> float:
    return median([abs(c.error) for c in checks]) if checks else math.nan
