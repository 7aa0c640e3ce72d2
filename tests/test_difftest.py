"""The differential tester in CI: generated kernels (fixed seeds, about a minute on 2 cores) and every
pinned disagreement, each checked on the interpreter and on MTIA (tests/difftest/).

The long run: `cd tests && python -m difftest --examples 5000`."""
import pytest
from hypothesis import HealthCheck, given, seed, settings

from difftest.generate import cases
from difftest.pinned import PINNED
from difftest.run import check

CI_EXAMPLES = 75        # per test; two tests so that xdist runs them side by side (~1 min each)
CI_SETTINGS = settings(max_examples=CI_EXAMPLES, deadline=None, database=None, derandomize=False,
                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                              HealthCheck.filter_too_much])


@pytest.mark.parametrize("pinned", PINNED, ids=[p.name for p in PINNED])
def test_pinned_disagreement_stays_closed(pinned):
    check(pinned.case)


@seed(20261201)
@CI_SETTINGS
@given(cases())
def test_generated_kernels_agree_on_both_executors(case):
    check(case)


@seed(20261202)
@CI_SETTINGS
@given(cases())
def test_more_generated_kernels_agree_on_both_executors(case):
    check(case)


def test_export_for_triton_saves_what_the_interpreter_wrote_and_compare_catches_one_bit(tmp_path):
    """`python -m difftest.on_triton export` keeps each kernel's inputs and our outputs exactly; the
    GPU side's comparison flags a single flipped bit (the GPU run itself needs CUDA and is not here)."""
    import pickle

    import numpy as np

    from difftest.on_triton import _differences, _unpack, export
    out = tmp_path / "cases.pkl"
    assert export(3, 11, str(out)) == 0
    saved = pickle.loads(out.read_bytes())
    assert len(saved) == 3
    flipped_one = False
    for case in saved:
        assert "import compiler as triton" in case["source"]
        got = {k: _unpack(v) for k, v in case["outputs"].items()}
        assert _differences(case, got) == []
        name, arr = next(iter(got.items()))
        if case["tolerances"].get(name) is None:
            flipped = arr.copy()
            flipped.view(np.uint8)[0] ^= 1
            assert _differences(case, {**got, name: flipped})
            flipped_one = True
    assert flipped_one
