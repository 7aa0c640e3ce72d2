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
