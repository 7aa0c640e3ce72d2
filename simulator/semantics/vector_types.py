"""The RVV subset's element types and its fault: what the instruction semantics (vector.py) and the
vector core's state (pe/vector_core.py) both name."""
from __future__ import annotations

import numpy as np

INT = {8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}
UINT = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}
FLOAT = {16: np.dtype(np.float16), 32: np.dtype(np.float32), 64: np.dtype(np.float64)}
LMULS = (1, 2, 4, 8)


class VectorFault(Exception):
    """An operation the vector unit rejects (no vtype, misaligned register group, address outside
    the local store...). The semantics layer adds the instruction's location and raises it as a
    SanitizerError."""


def rate_name(dt: np.dtype) -> str:
    """The ops_per_cycle key of an element type: 'f16', 'f32', 'i8', ... (unsigned runs as signed)."""
    return f"{'f' if dt.kind == 'f' else 'i'}{dt.itemsize * 8}"
