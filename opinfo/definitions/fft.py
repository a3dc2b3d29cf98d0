"""OpInfo entries: torch.fft. Samples transform 1-d, batched, size-1, transposed and
non-contiguous signals, trimmed and zero-padded to n / s, in every norm mode."""
from __future__ import annotations

import torch

from opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from opinfo.dtypes import COMPLEX, FLOAT32_64, INTEGRAL
from opinfo.samples import make

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
        dtypes=None)]),
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
           sample_inputs=_freq_samples, error_inputs=_freq_errors, dtypes=FLOAT32_64, family="fft")
    for name in ("fftfreq", "rfftfreq")
] + [
    OpInfo(name=f"fft.{name}", op=getattr(F, name), aten=(f"aten::fft_{name}",), sample_inputs=_shift_samples,
           dtypes=ANY_IN | frozenset({torch.bool, torch.float16, torch.bfloat16}), family="fft")
    for name in ("fftshift", "ifftshift")
]
