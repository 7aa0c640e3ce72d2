"""`mtiasim --version` (the package's release, not Triton's), `mtiasim configs NAME`, and a subcommand's own
usage on its errors."""
import re
import subprocess
import sys

import compiler

from repo import ROOT


def mtiasim(*args) -> subprocess.CompletedProcess:
    # `python -m` from the repository root runs this checkout's mtiasim, wherever the console script points
    return subprocess.run([sys.executable, "-m", "mtiasim", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_version_is_the_packages_and_names_the_triton_language():
    release = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    p = mtiasim("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"mtiasim {release} (kernels in the language of Triton " \
                                                      f"{compiler.__version__})"
    assert compiler.mtiasim_version == release and compiler.__version__ != release   # Triton's, for Triton code


def test_configs_name_shows_that_config():
    p = mtiasim("configs", "mtia-small")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "mtia-small" and "  grid.rows = 2" in lines
    assert p.stdout == mtiasim("configs", "--config", "mtia-small").stdout
    bad = mtiasim("configs", "no-such-config")
    assert bad.returncode == 1 and "no-such-config" in bad.stderr


def test_a_subcommands_error_prints_its_own_usage():
    p = mtiasim("trace", "softmax", "--bogus")
    assert p.returncode == 2
    assert p.stderr.startswith("usage: mtiasim trace ") and "mtiasim trace: error: unrecognized arguments: --bogus" \
        in p.stderr


def test_the_clis_default_config_is_the_simulators():
    """cli.DEFAULT_CONFIG is written out so that parsing `--config` imports no simulator: it must not drift."""
    import simulator.config
    from mtiasim import cli
    assert cli.DEFAULT_CONFIG == simulator.config.DEFAULT_CONFIG
