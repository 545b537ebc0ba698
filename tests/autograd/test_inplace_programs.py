"""Random short programs of views and in-place changes (issue 25's property tests).

A program starts from two float64 leaves ``a`` and ``b`` (3, 4) that require grad, a
non-leaf ``h = a * b`` and a plain tensor ``c`` (zeros), then runs a few steps: an
out-of-place op on ``h`` (some save their input or output), or an in-place op on ``a``,
``h`` or ``c``, directly or through a view of several kinds, sometimes under no_grad.
The loss reads ``h`` and ``c``. The same program text runs on minigrad and on PyTorch
(``lib`` is either module): the gradients must agree, or both must raise RuntimeError.
Without PyTorch, each program must raise RuntimeError or pass ``mg.gradcheck``.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.autograd import GradcheckError

VIEWS = [
    lambda x: x,
    lambda x: x[0:2],
    lambda x: x[1],
    lambda x: x[:, 1:3],
    lambda x: x.t(),
    lambda x: x.transpose(0, 1)[2],
    lambda x: x.reshape(12),
    lambda x: x.view(2, 6)[1:],
    lambda x: x.unsqueeze(0),
    lambda x: x[None, ..., 0],
    lambda x: x.permute(1, 0)[1:3].t(),
    lambda x: x.unbind(0)[1],
    lambda x: x.split(2)[0],
]


def _set(v, s):
    v[...] = s


def _iadd(v, s):
    v += 1.5


INPLACE = [
    lambda v, s: v.mul_(2.0),
    lambda v, s: v.add_(s),  # s: a 0-d tensor that requires grad
    _iadd,
    _set,
    lambda v, s: v.clamp_(-1.0, 1.0),
    lambda v, s: v.zero_(),
    lambda v, s: v.mul_(s),
]

OUT_OF_PLACE = [
    lambda h: h.sigmoid(),  # saves its output
    lambda h: h * h,  # saves its input
    lambda h: h + 1.0,  # saves nothing
    lambda h: h.exp() * 0.1,
]

step = st.one_of(
    st.tuples(st.just("oop"), st.integers(0, len(OUT_OF_PLACE) - 1)),
    st.tuples(
        st.just("inplace"),
        st.sampled_from(["a", "h", "c"]),
        st.integers(0, len(VIEWS) - 1),
        st.integers(0, len(INPLACE) - 1),
        st.booleans(),  # under no_grad
    ),
)
programs = st.lists(step, min_size=1, max_size=4)


def _run(lib, program, a, b):
    """The program's loss, built from the leaves ``a`` and ``b``."""
    env = {"a": a, "h": a * b, "c": lib.zeros(3, 4, dtype=a.dtype)}
    for s in program:
        if s[0] == "oop":
            env["h"] = OUT_OF_PLACE[s[1]](env["h"])
            continue
        _, target, view, op, quiet = s
        scalar = b.sum() * 0.1
        if quiet:
            with lib.no_grad():
                INPLACE[op](VIEWS[view](env[target]), scalar)
        else:
            INPLACE[op](VIEWS[view](env[target]), scalar)
    w = lib.arange(12, dtype=a.dtype).reshape(3, 4) / 10
    return (env["h"] * w).sum() + (env["c"] * (1 - w)).sum() + a.sum() * 0


def _gradients(lib, program):
    rng = np.random.default_rng(0)
    a, b = (lib.tensor(rng.standard_normal((3, 4)), requires_grad=True) for _ in range(2))
    try:
        _run(lib, program, a, b).backward()
    except RuntimeError:
        return "raises"
    zero = np.zeros((3, 4))
    return [zero if x.grad is None else x.grad.detach().numpy() for x in (a, b)]


def _agree_with_pytorch(torch, program):
    mine, theirs = _gradients(mg, program), _gradients(torch, program)
    if mine == "raises" or theirs == "raises":
        assert mine == theirs, f"{program}: minigrad {mine!r}, torch {theirs!r}"
        return
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m, t, rtol=1e-10, atol=1e-12, err_msg=str(program))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(programs)
def test_random_programs_agree_with_pytorch(torch, program):
    _agree_with_pytorch(torch, program)


@pytest.mark.slow
@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(programs)
def test_random_programs_agree_with_pytorch_long(torch, program):
    _agree_with_pytorch(torch, program)


def _check_by_finite_differences(program):
    # Changes on the input leaf ``a`` or under no_grad are outside what the graph can
    # see (finite differences would rightly disagree): those programs are PyTorch's test.
    program = [s for s in program if s[0] == "oop" or (s[1] != "a" and not s[4])]
    if _gradients(mg, program) == "raises":
        return
    rng = np.random.default_rng(1)
    a, b = (mg.tensor(rng.standard_normal((3, 4)), requires_grad=True) for _ in range(2))
    try:
        with warnings.catch_warnings():  # a program that zeroes h has a zero Jacobian
            warnings.simplefilter("ignore", mg.autograd.GradcheckWarning)
            assert mg.gradcheck(lambda a, b: _run(mg, program, a, b), (a, b))
    except GradcheckError as e:
        raise AssertionError(f"{program}: {e}") from None


@settings(max_examples=25, deadline=None)
@given(programs)
def test_random_programs_raise_or_pass_gradcheck(program):
    _check_by_finite_differences(program)


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(programs)
def test_random_programs_raise_or_pass_gradcheck_long(program):
    _check_by_finite_differences(program)
