"""The FFT kernels (fft_kernels.py), stages and an RFFT's halves: each source layout, result layout, radix,
masked row end, scratch kind and vector width against numpy, that llvm-cpu programs take them and others do
not, and the stages' plan."""

import numpy as np
import pytest

from oxla import ir, runtime, transforms
from oxla.pipelines import compile
from oxla.transforms import fft_kernels

from test_legalize_fft import _input, _program

# name, fft type, input shape, lengths, numpy reference, input dtype; what each takes is in its comment
CASES = [
    # the axis of 96 read from pairs (radix 3 among 4, 4, 2), its planes then read over whole rows (parts
    # first) by the fused four-step kernel of the rows of 128 (16 x 8), which writes pairs
    ("fft2_96x128", "FFT", (2, 96, 128), [96, 128], np.fft.fft2, np.complex64),
    ("ifft2_96x128", "IFFT", (2, 96, 128), [96, 128], np.fft.ifft2, np.complex64),
    # rows of 1000 (125 x 8, fused: the rows' stages in a run of 128, their last vector stored through masks)
    # read from the planes of the axis before over whole rows, parts first
    ("fft2_64x1000", "FFT", (2, 64, 1000), [64, 1000], np.fft.fft2, np.complex64),
    # rows of 2048 (32 x 64, too long to fuse) read so by the columns' kernel
    ("fft2_64x2048", "FFT", (2, 64, 2048), [64, 2048], np.fft.fft2, np.complex64),
    # radices 5 (1000 = 4 2 5 5 5; fused, 125 x 8) and 7, 11, 13 (1001 = 7 x 143: a columns' kernel of one
    # stage)
    ("fft_1000", "FFT", (3, 1000), [1000], np.fft.fft, np.complex64),
    ("fft_1001", "FFT", (2, 1001), [1001], np.fft.fft, np.complex64),
    # an odd real transform: its columns read from real values (81 = 9 x 9)
    ("rfft_81", "RFFT", (3, 81), [81], np.fft.rfft, np.float32),
    # the leading 41 terms of each row (of the 50 the fused kernel keeps), read by the next axis from the rows
    # they were sliced from, and a result row of 41 written through masks; the inverse's last axis as 40
    # complex values (fused, 5 x 8) joined from the planes of the axis before
    ("rfft2_64x80", "RFFT", (2, 64, 80), [64, 80], np.fft.rfft2, np.float32),
    ("irfft2_64x80", "IRFFT", (2, 64, 41), [64, 80], lambda x: np.fft.irfft2(x, (64, 80)), np.complex64),
    # rows of 12 (a DFT matrix's result) read and written through masks along the axis of 64
    ("fft2_64x12", "FFT", (3, 64, 12), [64, 12], np.fft.fft2, np.complex64),
    # a transform of 8 x 8 for 4096 rows, fused (the four-step method in one kernel, vectors of 8), then many
    # rows to a workgroup, its scratch its own
    ("rfft2_channels", "RFFT", (16, 64, 64), [64, 64], np.fft.rfft2, np.float32),
    # fused, 32 x 32 (vectors of 16) from pairs to pairs, and an RFFT's 64 pairs (8 x 8) with its halves
    # taken apart after
    ("fft_1024", "FFT", (4, 1024), [1024], np.fft.fft, np.complex64),
    ("rfft_128", "RFFT", (5, 128), [128], np.fft.rfft, np.float32),
    # 81 (four radix-3 stages) along the axis before rows of 16
    ("fft2_81x16", "FFT", (2, 81, 16), [81, 16], np.fft.fft2, np.complex64),
    # a long axis whose planes exceed a workgroup's own scratch: a scratch result and the result's memory
    ("fft2_512x32", "FFT", (1, 512, 32), [512, 32], np.fft.fft2, np.complex64),
    # 64 x 64, a row too long to fuse: the columns' kernel, a transpose, the rows' kernel
    ("fft_4096", "FFT", (2, 4096), [4096], np.fft.fft, np.complex64),
    # 128 x 128: the rows' planes exceed a workgroup's own, and their result is pairs: two scratch results
    ("fft_16384", "FFT", (1, 16384), [16384], np.fft.fft, np.complex64),
    # an RFFT's halves taken apart (forward) and joined (inverse: from pairs, and from the planes of the
    # axis before), and a row of 500 halves (no vector of 8 divides it) taken apart element-wise
    ("rfft_1024", "RFFT", (3, 1024), [1024], np.fft.rfft, np.float32),
    ("irfft_1024", "IRFFT", (3, 513), [1024], lambda x: np.fft.irfft(x, 1024), np.complex64),
    ("rfft2_64x256", "RFFT", (2, 64, 256), [64, 256], np.fft.rfft2, np.float32),
    ("irfft2_64x256", "IRFFT", (2, 64, 129), [64, 256], lambda x: np.fft.irfft2(x, (64, 256)), np.complex64),
    ("rfft_1000", "RFFT", (3, 1000), [1000], np.fft.rfft, np.float32),
    ("irfft_1000", "IRFFT", (3, 501), [1000], lambda x: np.fft.irfft(x, 1000), np.complex64),
]
# A chip whose vectors are 64 bytes, whatever the host's: the layouts test only compiles, and the names it
# looks for are those of 16-lane kernels.
WIDEST = "x86-64-v4"
# chips whose vectors are 64, 32 and 16 bytes; the narrower two on the cases named here
NARROW = ["fft2_96x128", "fft_1000", "fft_1001", "rfft2_64x80", "fft2_64x12", "rfft_1024", "irfft2_64x256", "fft_1024"]


def _params():
    cases = [pytest.param(*case, "host", id=f"{case[0]}-host") for case in CASES]
    named = {case[0]: case for case in CASES}
    return cases + [pytest.param(*named[name], chip, id=f"{name}-{chip}") for name in NARROW
                    for chip in ("x86-64-v3", "generic")]


def _kernels(src: str, **options) -> list[str]:
    """The FFT stages kernels the program's llvm-cpu compile dispatches."""
    text = ir.to_text(compile(src, compile_to="input", **options))
    return sorted(set(word.split("::")[0] for word in text.split("flow.dispatch @")[1:]
                      if word.startswith(("oxla_f32_fft_", "oxla_f32_rfft_"))))


@pytest.mark.parametrize("name, kind, shape, lengths, reference, dtype, chip", _params())
def test_matches_numpy(name, kind, shape, lengths, reference, dtype, chip):
    src = _program(kind, shape, lengths, dtype)
    assert _kernels(src, cpu=chip), "the stages did not run as kernels"
    x = _input(shape, dtype)
    result = np.asarray(runtime.load(compile(src, cpu=chip)).main(x))
    expected = reference(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
    np.testing.assert_allclose(result, expected, rtol=0, atol=1e-5 * max(1.0, np.abs(expected).max()))


def test_layouts_taken():
    """The cases above reach each source and result layout, masked rows, a twiddled result, scratch results,
    one stage alone, the fused four-step kernel and the halves kernels (the names say which)."""
    names = [k for case in CASES for k in _kernels(_program(*case[1:4], case[5]), cpu=WIDEST)]
    for source in fft_kernels.SOURCES:
        assert any(n.startswith(f"oxla_f32_fft_{source}_to_") for n in names), source
    for result in fft_kernels.RESULTS:
        assert any(f"_to_{result}_" in n for n in names), result
    for part in ("_twiddled", "_inverse_by", "rfft_separate_", "rfft_join_", "rfft_join_planes_",
                 "fft_fused_pairs_to_pairs_", "fft_fused_real_to_parts_first_", "_forward_kept"):
        assert any(part in n for n in names), part
    assert "oxla_f32_rfft_join_planes_128x40" in names  # irfft2_64x80's last axis: 40 complex values
    assert any(n.endswith("x48x33") for n in names)  # rows of 33 in a run of 48 (rfft2_64x80's 41: 48x41)


def test_the_element_wise_stages_and_the_kernels_agree():
    """cpu-kernels=false keeps the element-wise stages (as on other targets); both give the same values."""
    src = _program("FFT", (2, 96, 128), [96, 128], np.complex64)
    x = _input((2, 96, 128), np.complex64)
    legalized = ir.parse(src)
    transforms.run(legalized, "builtin.module(oxla-legalize-fft{cpu-kernels=false})")
    assert "oxla_f32_fft_" not in ir.to_text(legalized)
    element_wise = np.asarray(runtime.load(compile(ir.to_text(legalized))).main(x))
    kernels = np.asarray(runtime.load(compile(src)).main(x))
    np.testing.assert_allclose(kernels, element_wise, rtol=0, atol=1e-5 * np.abs(element_wise).max())


def test_other_targets_keep_the_element_wise_stages():
    src = _program("FFT", (3, 1000), [1000], np.complex64)
    assert _kernels(src)
    assert not _kernels(src, target="vulkan-spirv")


def test_the_stage_plan():
    """Each stage's span is the product of the radices before it; the table holds (cos, sin) for every
    s < span and 0 < k < radix of the twiddled stages, in order."""
    plan = fft_kernels.stages([4, 4, 2, 3])
    assert [(s.radix, s.span) for s in plan] == [(4, 1), (4, 4), (2, 16), (3, 32)]
    assert [s.offset for s in plan] == [None, 0, 4 * 3 * 2, 4 * 3 * 2 + 16 * 1 * 2]


@pytest.mark.parametrize("trail, lanes, expected", [(256, 16, (16, 256)), (8, 16, (8, 8)), (12, 16, (16, 16)),
                                                    (33, 16, (16, 48)), (125, 8, (8, 128)), (12, 4, (4, 12))])
def test_vector_width(trail, lanes, expected):
    assert fft_kernels.vector_width(trail, lanes) == expected


def _kernel(lead, n, run, radices, result="planes"):
    return fft_kernels.Kernel(lead, n, run, run, run, 16, radices, -1, 1.0, "planes", 1, False, result)


def test_blocks_and_scratch():
    """A workgroup takes up to four vectors whose two planes fit its own scratch; a long transform's planes
    take a scratch result and the result's memory, in blocks of four vectors, or two scratch results where
    the result is pairs."""
    small = _kernel(64, 32, 32, [4, 4, 2])
    assert (small.block(), small.local(), small.scratch_results()) == (32, True, 0)
    long = _kernel(8, 256, 256, [4, 4, 4, 4])
    assert (long.block(), long.local(), long.scratch_results()) == (64, False, 1)
    assert _kernel(8, 256, 256, [4, 4, 4, 4], "pairs").scratch_results() == 2
    assert _kernel(8, 256, 256, [256]).scratch_results() == 0  # one stage writes the result only


def test_only_a_row_ends_vector_goes_through_a_mask():
    """Sources and results whose rows (33) end within a vector read and write whole vectors plainly and mask
    the last one only: per row and part of a radix-4 stage, one plain and one masked load in the first stage
    and one plain and one masked store in the last."""
    kernel = fft_kernels.Kernel(2, 64, 33, 33, 40, 8, [4, 4, 4], -1, 1.0, "planes", 120, False, "planes")
    text = fft_kernels.stages_executable(kernel.symbol(), kernel)
    first = text[text.index("scf.for %e0"):text.index("scf.for %g1")]
    assert first.count("vector.load") == 8 and first.count("vector.transfer_read") == 8
    assert first.index("vector.load") < first.index("} else {") < first.index("vector.transfer_read")
    last = text[text.rindex("scf.for %e2"):]
    assert last.count("vector.transfer_write") == 8 and last.count("vector.store") == 8
    assert last.index("vector.store") < last.index("} else {") < last.index("vector.transfer_write")


def test_fused_width():
    """The fused kernel's vectors run along n2; n1 is padded to whole vectors; both planes fit 24 KiB."""
    assert fft_kernels.fused_width(16, 8, 16) == 8
    assert fft_kernels.fused_width(125, 8, 16) == 8  # 125 padded to 128
    assert fft_kernels.fused_width(125, 8, 4) == 4
    assert fft_kernels.fused_width(8, 125, 16) is None  # no vector of 8 divides n2
    assert fft_kernels.fused_width(125, 16, 16) is None  # 2 x 128 x 16 complex values: 32 KiB
