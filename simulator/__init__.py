"""A SimPy discrete-event model of MTIA: an 8x8 grid of PEs with their engines, local stores and
circular buffers, a NoC, SRAM (LLC + scratch) and DRAM, executing `isa.Program` streams."""
from .config import Config, get_config, load_config, set_config, use_config
from .errors import ConfigError, DeadlockError, DeviceAssertionError, ProgramError, SanitizerError, SimError

__all__ = ["Config", "get_config", "load_config", "set_config", "use_config", "ConfigError", "DeadlockError",
           "DeviceAssertionError", "ProgramError", "SanitizerError", "SimError"]
