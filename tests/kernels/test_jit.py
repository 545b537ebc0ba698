"""kernels.jit.kernel: explicit signatures, each compiled on the first call needing it."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("numba")

from minigrad.kernels.jit import kernel

SIGS = ["void(float32[::1], float64)", "void(float64[::1], float64)"]


def _scale():
    @kernel(SIGS)  # no cache: a fresh dispatcher each time
    def scale(x, c):
        for i in range(x.size):
            x[i] *= c

    return scale


def test_nothing_compiles_until_a_call_and_then_only_its_signature():
    scale = _scale()
    assert scale.signatures == []
    x = np.arange(4, dtype=np.float32)
    scale(x, 2.0)
    np.testing.assert_array_equal(x, [0, 2, 4, 6])
    (only,) = scale.signatures
    assert str(only[0].dtype) == "float32"
    y = np.arange(3, dtype=np.float64)
    scale(y, 3.0)
    assert len(scale.signatures) == 2
    np.testing.assert_array_equal(y, [0, 3, 6])


def test_arguments_the_signature_converts_run_it():
    scale = _scale()
    x = np.ones(3, dtype=np.float32)
    scale(x, 2)  # an int where float64 is declared
    scale(x, np.float32(1.5))  # and a float32 scalar
    np.testing.assert_array_equal(x, [3, 3, 3])
    assert len(scale.signatures) == 1  # the declared one, no new specialization


@pytest.mark.parametrize(
    "bad, what",
    [
        (lambda: np.ones(8, np.float32)[::2], "a strided view"),
        (lambda: np.ones(4, np.int64), "an int64 array"),
        (lambda: np.ones((2, 2), np.float32), "a 2-d array"),
    ],
)
def test_what_no_signature_takes_is_a_type_error_naming_the_kernel(bad, what):
    scale = _scale()
    with pytest.raises(TypeError, match=r"scale: no matching definition .* it takes"):
        scale(bad(), 2.0)
    assert scale.signatures == [], what


def test_a_read_only_array_is_refused_before_and_after_a_compile():
    scale = _scale()
    r = np.ones(4, np.float32)
    r.flags.writeable = False
    with pytest.raises(TypeError, match="no matching definition"):
        scale(r, 2.0)
    scale(np.ones(4, np.float32), 2.0)
    with pytest.raises(TypeError, match="no matching definition"):
        scale(r, 2.0)
    np.testing.assert_array_equal(r, 1.0)


def test_a_float32_layer_norm_loads_no_float64_kernel():
    # In a fresh process: the module's import compiles nothing, a float32 call only the
    # float32 signature of the kernel it runs.
    code = textwrap.dedent(
        """
        import numpy as np
        from minigrad.kernels import layer_norm as k
        kernels = [k.layer_norm_forward, k.layer_norm_forward.serial,
                   k.layer_norm_backward, k.layer_norm_backward.serial]
        before = [len(d.signatures) for d in kernels]
        k.layer_norm_forward.serial(np.ones((4, 8), np.float32), np.ones(8, np.float32),
                                    np.zeros(8, np.float32), 1e-5,
                                    np.empty((4, 8), np.float32), np.empty(4, np.float32),
                                    np.empty(4, np.float32))
        after = [[str(s[0].dtype) for s in d.signatures] for d in kernels]
        print(before, after)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0, 0, 0, 0] [[], ['float32'], [], []]", out.stdout
