"""nan_debugging's kinds: nan_source and anomaly_restored (a NaN-hunting tool judged on drawn
recipes) and training_run (the fixed training loop, run with the student's functions)."""

from __future__ import annotations

from .nan_source import KINDS as NAN_KINDS
from .training import Trace
from .training_run import KINDS as TRAINING_KINDS

KINDS = [*NAN_KINDS, *TRAINING_KINDS]
DATA = [Trace]
