"""A Python int kernel argument must lie in [-2**63, 2**64) as in Triton, which raises OverflowError
outside it (upstream test_value_specialization_overflow). The MTIA executor used to take a value below
-2**63 as u64 and wrap it (-2**63-1 stored 2**63-1); both executors now refuse it, naming the argument."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from tests.executors import EXECUTORS, launch


@triton.jit
def _store_value(VALUE, X):
    tl.store(X, VALUE)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("value", [2**64, -2**63 - 1, -2**100])
def test_an_int_argument_outside_64_bits_is_refused(executor, value):
    x = np.full(1, 7, dtype=np.int64)
    with pytest.raises(OverflowError, match="argument 'VALUE'"):
        launch(_store_value, (1,), value, x, executor=executor)
    assert x[0] == 7


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("value", [-2**63, 2**63 - 1, 2**64 - 1, -12345678901])
def test_an_int_argument_at_the_edges_is_stored_as_its_64_bits(executor, value):
    x = np.full(1, 7, dtype=np.int64)
    launch(_store_value, (1,), value, x, executor=executor)
    assert int(x.view(np.uint64)[0]) == value % 2**64
