"""OpInfo entries: torch.fft, the ATen kernels (_fft_c2c, _fft_r2c, _fft_c2r) called directly,
stft / istft, and the window functions (hann, hamming, bartlett, blackman, kaiser). Samples
transform 1-d, batched, size-1, transposed and non-contiguous signals, trimmed and zero-padded to
n / s, in every norm mode."""
from __future__ import annotations

import functools

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.common import functional_entry
from primkit.opinfo.dtypes import COMPLEX, FLOAT32_64, INTEGRAL
from primkit.opinfo.samples import make
from primkit.prims import dtypes as dt

# Eager's CPU fft kernels take float32/float64 (and their complex types); integers become float32.
REAL_IN = FLOAT32_64 | INTEGRAL
ANY_IN = REAL_IN | COMPLEX
NORMS = (None, "backward", "ortho", "forward")

# (shape, n, dim): no resize, trimmed, zero-padded, size 1, batched along either dim, 3-d
ONE_D = (((7,), None, -1), ((8,), 5, 0), ((5,), 8, -1), ((1,), 1, 0), ((3, 6), None, 0), ((3, 6), 4, 1),
         ((2, 3, 4), 6, 1))
# (shape, s, dim) of the n-d forms; the 2-d forms take the cases whose dim has two entries or is None
N_D = (((4, 6), None, None), ((4, 6), (3, 8), None), ((2, 4, 6), None, (0, 2)), ((2, 4, 6), (5, -1), (2, 1)),
       ((3, 4, 5), (4,), None), ((3, 5), None, (0,)))


def _layouts(shape, device, dtype):
    yield "contiguous", make(shape, device, dtype)
    if len(shape) >= 2:
        yield "transposed", make(shape[:-2] + (shape[-1], shape[-2]), device, dtype).transpose(-1, -2)
        yield "noncontiguous", make(shape, device, dtype, noncontiguous=True)


def _one_d(op, device, dtype):
    for shape, n, dim in ONE_D:
        for norm in NORMS if shape == (3, 6) else (None,):
            yield SampleInput(make(shape, device, dtype), kwargs={"n": n, "dim": dim, "norm": norm},
                              name=f"{shape} n={n} dim={dim} norm={norm}")
    for name, t in _layouts((4, 6), device, dtype):
        yield SampleInput(t, kwargs={"dim": 0}, name=f"{name} dim=0")


def _n_d(two_d):
    def gen(op, device, dtype):
        for shape, s, dim in N_D:
            if two_d and not (dim is None and (s is None or len(s) == 2) or dim is not None and len(dim) == 2):
                continue
            kwargs = {"s": s, **({"dim": dim} if dim is not None else {})}
            for norm in NORMS if shape == (4, 6) and s is None else (None,):
                yield SampleInput(make(shape, device, dtype), kwargs={**kwargs, "norm": norm},
                                  name=f"{shape} s={s} dim={dim} norm={norm}")
        for name, t in _layouts((3, 4, 6), device, dtype):
            yield SampleInput(t, kwargs={"dim": (0, 2) if not two_d else (-2, -1)}, name=name)
    return gen


def _errors(kind):
    def gen(op, device):
        x = torch.randn(4, 6, device=device)
        yield ErrorInput(SampleInput(x, kwargs={"norm": "bad"}), RuntimeError, "Invalid normalization mode")
        if kind == "1d":
            yield ErrorInput(SampleInput(x, kwargs={"n": 0}), RuntimeError, "Invalid number of data points")
            yield ErrorInput(SampleInput(torch.tensor(1.0, device=device)), IndexError, "Dimension")
        else:
            yield ErrorInput(SampleInput(x, kwargs={"s": (2, 2), "dim": (0,)}), RuntimeError,
                             "dim and shape arguments must have the same length")
            yield ErrorInput(SampleInput(x, kwargs={"dim": (0, 0)}), RuntimeError, "FFT dims must be unique")
    return gen


def _rfft_errors(kind):
    base = _errors(kind)

    def gen(op, device):
        yield from base(op, device)
        # eager's n-d ihfft words it "Only supports floating-point dtypes"
        yield ErrorInput(SampleInput(torch.randn(4, 6, device=device, dtype=torch.complex64)), RuntimeError,
                         "expects a real|floating-point")
    return gen


def _transform(name, op, kind, dtypes, *, real_only=False, xfails=()):
    aten = (f"aten::fft_{name}", f"aten::fft_{name}.out")
    return OpInfo(name=f"fft.{name}", op=op, aten=aten,
                  sample_inputs=_one_d if kind == "1d" else _n_d(kind == "2d"),
                  error_inputs=(_rfft_errors if real_only else _errors)(kind), dtypes=frozenset(dtypes),
                  supports_out=True, family="fft",
                  xfails=tuple(xfails))


F = torch.fft
ENTRIES = [
    _transform("fft", F.fft, "1d", ANY_IN), _transform("ifft", F.ifft, "1d", ANY_IN),
    _transform("rfft", F.rfft, "1d", REAL_IN, real_only=True), _transform("irfft", F.irfft, "1d", ANY_IN),
    _transform("hfft", F.hfft, "1d", ANY_IN),
    _transform("ihfft", F.ihfft, "1d", REAL_IN, real_only=True),
    _transform("fft2", F.fft2, "2d", ANY_IN), _transform("ifft2", F.ifft2, "2d", ANY_IN),
    _transform("rfft2", F.rfft2, "2d", REAL_IN, real_only=True), _transform("irfft2", F.irfft2, "2d", ANY_IN),
    _transform("hfft2", F.hfft2, "2d", ANY_IN),
    _transform("ihfft2", F.ihfft2, "2d", REAL_IN, real_only=True),
    _transform("fftn", F.fftn, "nd", ANY_IN), _transform("ifftn", F.ifftn, "nd", ANY_IN),
    _transform("rfftn", F.rfftn, "nd", REAL_IN, real_only=True), _transform("irfftn", F.irfftn, "nd", ANY_IN),
    _transform("hfftn", F.hfftn, "nd", ANY_IN),
    _transform("ihfftn", F.ihfftn, "nd", REAL_IN, real_only=True, xfails=[XFail(
        "out", "eager's CompositeImplicit ihfftn.out writes into a view of out on the single-dim sample; torch "
               "cannot functionalize fft_ihfftn.out and prims own their storage, so that write is lost",
        dtypes=None, raises=AssertionError)]),
]


def _freq_samples(op, device, dtype):
    for n, d in ((1, 1.0), (4, 1.0), (5, 0.5), (8, 3.0)):
        yield SampleInput(n, (d,), {"dtype": dtype, "device": device}, name=f"n={n} d={d}")


def _freq_errors(op, device):
    yield ErrorInput(SampleInput(4, (1.0,), {"dtype": torch.int64}), RuntimeError, "floating point")


def _shift_samples(op, device, dtype):
    for shape, dim in (((0,), None), ((1,), None), ((7,), None), ((4, 5), None), ((4, 5), 1),
                       ((2, 3, 5), (0, 2))):
        yield SampleInput(make(shape, device, dtype), kwargs={"dim": dim}, name=f"{shape} dim={dim}")
    yield SampleInput(make((5, 4), device, dtype).t(), name="transposed")


ENTRIES += [
    OpInfo(name=f"fft.{name}", op=getattr(F, name), aten=(f"aten::fft_{name}", f"aten::fft_{name}.out"),
           sample_inputs=_freq_samples, error_inputs=_freq_errors, dtypes=FLOAT32_64, supports_out=True, family="fft")
    for name in ("fftfreq", "rfftfreq")
] + [
    OpInfo(name=f"fft.{name}", op=getattr(F, name), aten=(f"aten::fft_{name}",), sample_inputs=_shift_samples,
           dtypes=ANY_IN | frozenset({torch.bool, torch.float16, torch.bfloat16}), family="fft")
    for name in ("fftshift", "ifftshift")
]


# --- the ATen kernels the transforms decompose to, called directly ----------------------------
# Arguments as eager's kernels take them: the dims transformed, the normalization (0: none,
# 1: 1/sqrt(n), 2: 1/n), and the direction (c2c), one-sidedness (r2c) or output size (c2r).
aten = torch.ops.aten
KERNEL_COMPLEX = COMPLEX | frozenset({torch.complex128})


def _kernel_inputs(device, dtype):
    """(name, tensor, dims): 1-d, batched along either dim, 3-d over two dims, transposed,
    non-contiguous and size-1 signals."""
    yield "1-d", make((7,), device, dtype), [0]
    yield "batched, last dim", make((3, 6), device, dtype), [1]
    yield "batched, first dim", make((5, 4), device, dtype), [0]
    yield "3-d, two dims", make((2, 4, 6), device, dtype), [0, 2]
    yield "3-d, every dim", make((2, 3, 4), device, dtype), [0, 1, 2]
    yield "transposed", make((6, 4), device, dtype).t(), [0]
    yield "transposed, both dims", make((2, 6, 4), device, dtype).transpose(0, 2), [0, 2]
    yield "noncontiguous", make((4, 6), device, dtype, noncontiguous=True), [1]
    yield "size 1", make((3, 1), device, dtype), [1]


def _flag_samples(flag):
    """Samples of _fft_c2c (flag "forward") and _fft_r2c (flag "onesided"): every normalization, both flags."""
    def samples(op, device, dtype):
        for name, t, dims in _kernel_inputs(device, dtype):
            for normalization in (0, 1, 2):
                for value in (True, False):
                    yield SampleInput(t, (dims, normalization, value), name=f"{name} norm={normalization} "
                                                                            f"{flag}={value}")
    return samples


_c2c_samples, _r2c_samples = _flag_samples("forward"), _flag_samples("onesided")


def _c2r_samples(op, device, dtype):
    """The last dim transformed holds n // 2 + 1 values of a Hermitian signal of size n (odd and even)."""
    for name, t, dims in _kernel_inputs(device, dtype):
        half = t.shape[dims[-1]]
        for n in sorted({2 * (half - 1), 2 * half - 1} - {0}):
            for normalization in (0, 1, 2):
                yield SampleInput(t, (dims, normalization, n), name=f"{name} norm={normalization} n={n}")


def _kernel_errors(wrong_dtype, args, match):
    def gen(op, device):
        yield ErrorInput(SampleInput(torch.ones(4, 6, device=device, dtype=wrong_dtype), args, name=match),
                         RuntimeError, match)
    return gen


def _kernel(name, samples, dtypes, errors):
    return OpInfo(name=name, op=getattr(aten, name), aten=(f"aten::{name}", f"aten::{name}.out"),
                  sample_inputs=samples, error_inputs=errors, dtypes=frozenset(dtypes), supports_out=True,
                  family="fft")


ENTRIES += [
    _kernel("_fft_c2c", _c2c_samples, KERNEL_COMPLEX, None),
    _kernel("_fft_r2c", _r2c_samples, FLOAT32_64,
            _kernel_errors(torch.complex64, ([1], 0, True), "Only supports floating-point dtypes")),
    _kernel("_fft_c2r", _c2r_samples, KERNEL_COMPLEX,
            _kernel_errors(torch.float32, ([1], 0, 10), "Only supports complex dtypes")),
]


# --- short-time transforms --------------------------------------------------------------------
# (signal shape, n_fft, kwargs); "window" names the length of a Hann window made for the sample.
STFT_CASES = (
    ((64,), 16, {"hop_length": 4, "window": 16}),
    ((2, 50), 16, {"win_length": 12, "window": 12, "center": False}),
    ((64,), 16, {"hop_length": 5, "window": 16, "pad_mode": "constant", "normalized": True}),
    ((64,), 16, {"hop_length": 4, "onesided": False}),
    ((2, 40), 16, {"hop_length": 3, "win_length": 12, "window": 12, "center": False, "align_to_window": True}),
    ((37,), 9, {"hop_length": 2, "window": 9, "pad_mode": "replicate"}),
    ((2, 30), 8, {"win_length": 5, "pad_mode": "circular"}),
)


def _stft_kwargs(kwargs, device, dtype):
    kw = dict(kwargs)
    if "window" in kw:
        kw["window"] = torch.hann_window(kw["window"], device=device, dtype=dt.to_real(dtype))
    return kw


def _stft_samples(op, device, dtype):
    for shape, n_fft, kwargs in STFT_CASES:
        kw = _stft_kwargs(kwargs, device, dtype)
        yield SampleInput(make(shape, device, dtype), (n_fft,), {**kw, "return_complex": True},
                          name=f"{shape} n_fft={n_fft} {kwargs}")
    x = make((40, 2), device, dtype).t()
    yield SampleInput(x, (8,), {"hop_length": 3, "return_complex": True}, name="transposed batch")
    window = torch.hann_window(16, device=device, dtype=dt.to_real(dtype))
    yield SampleInput(make((64,), device, dtype), (16,), {"window": window, "return_complex": False},
                      name="return_complex=False")


def _stft_center_samples(op, device, dtype):
    """aten.stft.center: the padding (center, pad_mode) done by the op, not by torch.stft's Python."""
    for s in _stft_samples(op, device, dtype):
        if "align_to_window" not in s.kwargs:
            yield s


def _stft_errors(op, device):
    x = torch.randn(20, device=device)
    rows = ((x, (32,), {"return_complex": True, "center": False}, RuntimeError, "expected 0 < n_fft"),
            (x, (8,), {"hop_length": 0, "return_complex": True}, RuntimeError, "expected hop_length > 0"),
            (x, (8,), {"win_length": 9, "return_complex": True}, RuntimeError, "expected 0 < win_length <= n_fft"),
            (x, (8,), {"window": torch.ones(7, device=device), "return_complex": True}, RuntimeError,
             "expected a 1D window tensor of size equal to win_length=8"),
            (x, (8,), {}, RuntimeError, "stft requires the return_complex parameter"),
            (torch.randn(2, 2, 20, device=device), (8,), {"return_complex": True, "center": False}, RuntimeError,
             "expected a 1D or 2D tensor"))
    for t, args, kwargs, exc, match in rows:
        yield ErrorInput(SampleInput(t, args, kwargs, name=match), exc, match)


def _spectrum(shape, n_fft, kwargs, device, dtype):
    """A spectrogram eager's stft makes, of a random signal: istft's input."""
    signal = make(shape, device, dtype)
    return torch.stft(signal, n_fft, **_stft_kwargs(kwargs, device, dtype), return_complex=True)


# (signal shape, n_fft, stft kwargs, istft-only kwargs): windows whose overlap-added square stays
# away from 0 where istft keeps the signal (eager refuses the others, a check of values)
ISTFT_CASES = (
    ((64,), 16, {"hop_length": 4, "window": 16}, {}),
    ((64,), 16, {"hop_length": 5, "window": 16, "normalized": True}, {}),
    ((64,), 16, {"hop_length": 4, "onesided": False}, {}),
    ((2, 50), 16, {"win_length": 12, "hop_length": 3}, {}),
    ((64,), 16, {"hop_length": 4, "window": 16}, {"length": 60}),
    ((64,), 16, {"hop_length": 4, "window": 16}, {"length": 80}),
    ((2, 40), 8, {"hop_length": 2, "center": False}, {}),
    ((37,), 9, {"hop_length": 2, "window": 9}, {}),
)


def _istft_samples(op, device, dtype):
    for shape, n_fft, kwargs, extra in ISTFT_CASES:
        spectrum = _spectrum(shape, n_fft, kwargs, device, dtype)
        kw = {k: v for k, v in _stft_kwargs(kwargs, device, dtype).items() if k != "pad_mode"}
        yield SampleInput(spectrum, (n_fft,), {**kw, **extra, "return_complex": dtype in COMPLEX},
                          name=f"{shape} n_fft={n_fft} {kwargs} {extra}")


def _istft_errors(op, device):
    spectrum = torch.stft(torch.randn(64, device=device), 16, hop_length=4, return_complex=True)
    rows = ((torch.randn(9, 17, device=device), (16,), {}, RuntimeError, "istft requires a complex-valued input"),
            (spectrum, (16,), {"hop_length": 4, "onesided": False}, RuntimeError,
             "to match n_fft when onesided=False"),
            (spectrum, (16,), {"hop_length": 13, "win_length": 12}, RuntimeError, "expected 0 < hop_length <= win"),
            (spectrum, (16,), {"hop_length": 4, "window": torch.ones(12, device=device)}, RuntimeError,
             "Invalid window shape"))
    for t, args, kwargs, exc, match in rows:
        yield ErrorInput(SampleInput(t, args, kwargs, name=match), exc, match)


ENTRIES += [
    OpInfo(name="stft", op=torch.stft, aten=("aten::stft",), sample_inputs=_stft_samples, error_inputs=_stft_errors,
           dtypes=FLOAT32_64 | COMPLEX, family="fft"),
    OpInfo(name="stft.center", op=aten.stft.center, aten=("aten::stft.center",), sample_inputs=_stft_center_samples,
           error_inputs=_stft_errors, dtypes=FLOAT32_64 | COMPLEX, family="fft"),
    OpInfo(name="istft", op=torch.istft, aten=("aten::istft",), sample_inputs=_istft_samples,
           error_inputs=_istft_errors, dtypes=FLOAT32_64 | COMPLEX, family="fft"),
]


_window_entry = functools.partial(functional_entry, family="fft")


def _window_samples(*extra):
    def gen(op, device, dtype):
        for n in (0, 1, 2, 5, 12):
            yield SampleInput(n, (), {"dtype": dtype, "device": device}, name=f"N={n}")
            for args in ((False,), (True,)) + tuple(extra):
                yield SampleInput(n, args, {"dtype": dtype, "device": device}, name=f"N={n} {args}")
    return gen


def error_inputs_window(op, device):
    yield ErrorInput(SampleInput(-1, (), {"device": device}), RuntimeError, "requires non-negative window_length")
    yield ErrorInput(SampleInput(4, (), {"dtype": torch.int64, "device": device}), RuntimeError,
                     "expects floating point dtypes")


def _window_with_out(packet):
    """packet called with dtype/device, or (for the out= test) with out= alone, as the .out overloads take."""
    def op(window_length, *args, dtype=None, device=None, out=None):
        if out is not None:
            return packet(window_length, *args, out=out)
        return packet(window_length, *args, dtype=dtype, device=device)
    return op


# Windows are computed with cos/i0 in float32 for float32 (eager's kernels too, but cos/i0 are
# not correctly rounded and eager's vectorized versions may differ by an ulp).
WINDOW_TOLERANCES = {torch.float32: (2e-6, 2e-6), torch.float64: (1e-13, 1e-13), torch.float16: (1e-3, 1e-3),
                     torch.bfloat16: (8e-3, 8e-3)}


ENTRIES += [
    _window_entry("hann_window", aten.hann_window, ("aten::hann_window", "aten::hann_window.periodic"), _window_samples(),
                  errors=error_inputs_window, tolerances=WINDOW_TOLERANCES),
    _window_entry("hamming_window", aten.hamming_window,
                  ("aten::hamming_window", "aten::hamming_window.periodic", "aten::hamming_window.periodic_alpha",
                   "aten::hamming_window.periodic_alpha_beta"), _window_samples((True, 0.6), (False, 0.6, 0.3)),
                  errors=error_inputs_window, tolerances=WINDOW_TOLERANCES),
    _window_entry("bartlett_window", aten.bartlett_window, ("aten::bartlett_window", "aten::bartlett_window.periodic"),
                  _window_samples(), errors=error_inputs_window, tolerances=WINDOW_TOLERANCES),
    _window_entry("blackman_window", aten.blackman_window, ("aten::blackman_window", "aten::blackman_window.periodic"),
                  _window_samples(), errors=error_inputs_window, tolerances=WINDOW_TOLERANCES),
    _window_entry("kaiser_window", aten.kaiser_window,
                  ("aten::kaiser_window", "aten::kaiser_window.periodic", "aten::kaiser_window.beta"),
                  _window_samples((True, 5.0), (False, 0.5)), errors=error_inputs_window, tolerances=WINDOW_TOLERANCES),
    *(_window_entry(f"{name}.out", _window_with_out(getattr(aten, name)), tuple(f"aten::{name}.{o}" for o in outs),
                    _window_samples(*extra), tolerances=WINDOW_TOLERANCES, out=True)
              for name, outs, extra in (
                  ("hann_window", ("out", "periodic_out"), ()), ("bartlett_window", ("out", "periodic_out"), ()),
                  ("blackman_window", ("out", "periodic_out"), ()),
                  ("hamming_window", ("out", "periodic_out", "periodic_alpha_out", "periodic_alpha_beta_out"),
                   ((True, 0.6), (False, 0.6, 0.3))),
                  ("kaiser_window", ("out", "periodic_out", "beta_out"), ((True, 5.0),)))),
]
