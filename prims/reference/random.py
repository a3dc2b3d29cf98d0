"""Reference implementations of the random prims: splitmix64 on int64 counters (see random.yaml), and
the generator prims, which call torch's kernels.

int64 tensor arithmetic wraps modulo 2 ** 64, which is the unsigned arithmetic the hash wants;
right shifts are made logical by masking off the sign bits an arithmetic shift brings in.
"""
from __future__ import annotations

import math

import torch

from primkit.prims.layout import numel


def _int64(value: int) -> int:
    """The int64 with the bits of an unsigned 64-bit constant."""
    return value - (1 << 64) if value >= 1 << 63 else value


GAMMA = _int64(0x9E3779B97F4A7C15)
MIX1 = _int64(0xBF58476D1CE4E5B9)
MIX2 = _int64(0x94D049BB133111EB)

# Significand width (implicit bit included): the bits of a word a uniform of that dtype keeps.
SIGNIFICAND_BITS = {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24, torch.float64: 53}


def _shr(z, k: int):
    return (z >> k) & ((1 << (64 - k)) - 1)


def _mix64(z):
    z = (z ^ _shr(z, 30)) * MIX1
    z = (z ^ _shr(z, 27)) * MIX2
    return z ^ _shr(z, 31)


def _mix64_(z, tmp):
    """_mix64 in place on z, with tmp (z's size) as scratch: no allocation."""
    for k, mul in ((30, MIX1), (27, MIX2), (31, None)):
        torch.bitwise_right_shift(z, k, out=tmp)
        z.bitwise_xor_(tmp.bitwise_and_((1 << (64 - k)) - 1))
        if mul is not None:
            z.mul_(mul)
    return z


# Words are made in blocks of this many on CPU, each block's dozen passes in cache: over a whole large tensor
# each pass would stream it through memory (a (4096, 4096) normal took 10 s). Below torch's parallel grain
# (32768), so a block's ops run serially. Elementwise, so the same words.
CPU_BLOCK = 1 << 14


def _blocks(n: int, device):
    """(start, stop) of the blocks a stream of n words is made in: one block off the CPU."""
    step = CPU_BLOCK if torch.device(device).type == "cpu" else max(n, 1)
    return [(i, min(i + step, n)) for i in range(0, n, step)]


def _draw(n: int, seed: int, first_counter: int, device, dtype, sample, streams: int = 1):
    """A tensor of n values of dtype: sample(words_0, ..., words_{s-1}) block by block, words_j holding the words at
    counters first_counter + streams * i + j for the block's i (the interleaved streams a normal takes its two
    uniforms from)."""
    key = int(_mix64(torch.tensor(seed, dtype=torch.int64)))
    out = torch.empty(n, dtype=dtype, device=device)
    size = max((b - a for a, b in _blocks(n, device)), default=0)
    scratch = [torch.empty(size, dtype=torch.int64, device=device) for _ in range(streams + 1)]
    # key + (first + streams * i + j) * GAMMA = base_j + i * step, modulo 2 ** 64
    step = _int64((streams * GAMMA) % (1 << 64))
    for start, stop in _blocks(n, device):
        m, words = stop - start, []
        for j in range(streams):
            base = _int64((key + (first_counter + j) * GAMMA) % (1 << 64))
            z = torch.arange(start, stop, dtype=torch.int64, device=device, out=scratch[j][:m])
            words.append(_mix64_(z.mul_(step).add_(base), scratch[-1][:m]))
        out[start:stop] = sample(*words)
    return out


def _words(n: int, seed: int, first_counter: int, device):
    """The stream's words at counters first_counter, first_counter + 1, ... (n of them)."""
    return _draw(n, seed, first_counter, device, torch.int64, lambda z: z)


def _unit(words, bits: int):
    """Uniforms in [0, 1), exact in float64: the top `bits` bits of each word, scaled."""
    return _shr(words, 64 - bits).to(torch.float64) * 2.0 ** -bits


def uniform(shape, low, high, seed, offset, *, dtype, device):
    bits = SIGNIFICAND_BITS[dtype]
    return _draw(numel(shape), seed, offset, device, dtype,
                 lambda z: low + (high - low) * _unit(z, bits)).reshape(shape)


def normal(shape, mean, std, seed, offset, *, dtype, device):
    def sample(w1, w2):
        u1, u2 = _unit(w1, 53), _unit(w2, 53)
        return mean + std * (torch.sqrt(-2.0 * torch.log1p(-u1)) * torch.cos(2.0 * math.pi * u2))
    return _draw(numel(shape), seed, 2 * offset, device, dtype, sample, streams=2).reshape(shape)


def bernoulli(p, seed, offset):
    u = _draw(p.numel(), seed, offset, p.device, torch.float64, lambda z: _unit(z, 53)).reshape(p.shape)
    return u < p.to(torch.float64)


INT_BITS = {torch.uint8: 8, torch.int8: 8, torch.int16: 16, torch.int32: 32, torch.int64: 64}
SIGN = _int64(1 << 63)


def random_bits(shape, seed, offset, *, dtype, device):
    # the top bits as an unsigned value; the integer cast wraps it into the dtype's two's complement
    bits = INT_BITS[dtype]
    return _draw(numel(shape), seed, offset, device, dtype, lambda z: _shr(z, 64 - bits)).reshape(shape)


def _ult(x, y):
    """x < y for int64 tensors (or an int) read as unsigned 64-bit integers."""
    return (x ^ SIGN) < (y ^ SIGN)


def _umod(words, r: int):
    """words mod r, words read as unsigned 64-bit, for 1 <= r < 2 ** 64: int64 tensor holding the result."""
    r64 = _int64(r)
    if r >= 1 << 63:    # words < 2 ** 64 < 2 r: one subtraction at most
        return torch.where(_ult(words, r64), words, words - r64)
    # words = 2 h + b with h = words >>> 1 < 2 ** 63: mod r of (2 (h mod r) + b), which is below 2 r
    y = 2 * (_shr(words, 1) % r) + (words & 1)
    return torch.where(_ult(y, r64), y, y - r64)


def randint(shape, low, high, seed, offset, *, dtype, device):
    # int64 addition wraps: low + m is exact whenever it lies in [low, high)
    return _draw(numel(shape), seed, offset, device, dtype, lambda z: _umod(z, high - low) + low).reshape(shape)


def exponential(shape, lambd, seed, offset, *, dtype, device):
    return _draw(numel(shape), seed, offset, device, dtype,
                 lambda z: -torch.log1p(-_unit(z, 53)) / lambd).reshape(shape)


def randperm(n, seed, offset, *, dtype, device):
    keys = _words(n, seed, offset, device)
    return torch.sort(keys, stable=True).indices.to(dtype)


# ---- generator prims: torch's own kernels, so they draw (and advance the generator) as eager does --


def bernoulli_p(self, p, dtype=None, draw=0):
    return torch.empty_like(self, dtype=dtype).bernoulli_(p)


def exponential_p(self, lambd, dtype=None, draw=0):
    return torch.empty_like(self, dtype=dtype).exponential_(lambd)


def uniform_p(self, low, high, dtype=None, draw=0):
    return torch.empty_like(self, dtype=dtype).uniform_(low, high)


def normal_p(self, mean, std, dtype=None, draw=0):
    return torch.empty_like(self, dtype=dtype).normal_(mean, std)


def masked_uniform(mask, low, high, draw=0):
    flat = mask.reshape(-1)     # row-major order of the mask's shape, whatever its layout
    out = torch.zeros(flat.shape, dtype=torch.float64, device=mask.device)
    # 53-bit uniforms in [0, 1) (exact, one 64-bit draw each), scaled with two roundings: torch's uniform_(low, high)
    # may fuse the multiply-add, eager's rrelu kernel does not
    u = torch.empty(int(flat.sum()), dtype=torch.float64, device=mask.device).uniform_(0.0, 1.0)
    draws = u * (high - low) + low
    return out.masked_scatter_(flat, draws).reshape(mask.shape)
