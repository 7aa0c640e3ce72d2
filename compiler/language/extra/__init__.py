"""`tl.extra`: vendor libraries. `tl.extra.libdevice` maps CUDA libdevice names onto tl.math."""
from . import libdevice  # noqa: F401
