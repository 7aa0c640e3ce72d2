"""The hardware target: which chip config a launch compiles and runs for, resolved once and passed down.

The user's default config (`simulator.use_config` / `set_config`) is read here and nowhere else in the
compiler. A launch resolves it once, when it starts (`resolve`), into its `LaunchOptions.config`; the
executor, the backend and the simulated `Machine` then take that config as an argument. Host code that
asks the device about itself (`triton.runtime.driver`, the kernel library's tile choices, the peaks of
`triton.testing`) and the stages of a kernel compiled without a launch (`compiled.asm["mtia-asm"]`) are
the other callers: each reads the default once, at its own entry point, and passes it on.
"""
from __future__ import annotations

from dataclasses import replace


def default_config():
    """The user's default hardware config (`simulator.use_config` / `set_config`), read now."""
    from simulator import get_config
    return get_config()


def resolve(options):
    """`options` with its target filled in: a caller's Machine runs on its own config, otherwise the
    user's default as it is when the launch starts. Options that already carry a config are returned as
    they are, so an executor may call this again without reading the default a second time."""
    if options.machine is not None:
        config = options.machine.cfg
    elif options.config is not None:
        return options
    else:
        config = default_config()
    return options if options.config is config else replace(options, config=config)
