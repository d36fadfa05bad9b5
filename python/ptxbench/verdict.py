"""A verdict of PTXBench (docs/result-schema.md) as a small typed view over its JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

CHEAT = "rejected_cheat"


@dataclass(frozen=True)
class Verdict:
    outcome: str
    reason: str
    tier: str
    speedups: list[float]  # cold speedup per timed shape (library time / candidate time)
    targets_met: bool  # every target instruction at its required evidence level
    feedback: str = ""  # the text a model may be shown (hidden shapes redacted); "" if none
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def geomean_speedup(self) -> float | None:
        """Geometric mean of the cold speedups, None without any."""
        good = [s for s in self.speedups if s > 0]
        if not good:
            return None
        return math.exp(sum(math.log(s) for s in good) / len(good))

    @classmethod
    def from_json(cls, verdict: dict[str, Any], feedback: str = "") -> Verdict:
        speedups = []
        for row in verdict.get("timing") or []:
            median = (row.get("speedup") or {}).get("median")
            if isinstance(median, (int, float)):
                speedups.append(float(median))
        targets = verdict.get("targets") or []
        return cls(outcome=str(verdict.get("outcome", "unavailable")),
                   reason=str(verdict.get("reason", "")),
                   tier=str(verdict.get("tier", (verdict.get("config") or {}).get("tier", "full"))),
                   speedups=speedups,
                   targets_met=bool(targets) and all(t.get("met") is True for t in targets),
                   feedback=feedback, raw=verdict)
