"""The errors a user of the simulator can meet. Each message names its cause in the user's terms."""
from __future__ import annotations

from isa.errors import UserError


class SimError(UserError):
    """Base of every error the simulator raises on purpose."""


class ConfigError(SimError, ValueError):
    """A hardware config that does not load: bad YAML, unknown key, wrong type, impossible value."""

    one_line = True


class OutputError(SimError):
    """A file the user asked for (a trace, a chart, a results table) that cannot be written."""

    one_line = True


class ProgramError(SimError):
    """A program that cannot run on this config (CBs beyond the local store, bad CB ids, ...)."""


class SanitizerError(SimError):
    """An access the hardware would get wrong: out of bounds, misaligned, CB misuse."""


class StepLimitError(SimError):
    """A program ran more control-core instructions than the run's step limit (`simulator.launch`)."""


class DeviceAssertionError(SimError):
    """A `tl.device_assert` (dbg.assert) failed in the kernel."""


class DeadlockError(SimError):
    """Work remains but no event can proceed. `.report` holds every PE's blocked state."""

    def __init__(self, message: str, report: dict | None = None):
        super().__init__(message)
        self.report = report or {}
