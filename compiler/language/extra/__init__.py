"""`tl.extra`: vendor libraries. `tl.extra.libdevice`: CUDA libdevice names on MTIA's SE instructions and
@jit compositions of tl primitives (see libdevice.py)."""
from . import libdevice  # noqa: F401
