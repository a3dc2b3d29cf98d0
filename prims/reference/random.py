"""Reference implementations of the random prims: splitmix64 on int64 counters (see random.yaml).

int64 tensor arithmetic wraps modulo 2 ** 64, which is the unsigned arithmetic the hash wants;
right shifts are made logical by masking off the sign bits an arithmetic shift brings in.
"""
from __future__ import annotations

import math

import torch


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


def _words(n: int, seed: int, first_counter: int, device, stride: int = 1):
    """The stream's words at counters first_counter, first_counter + stride, ... (n of them)."""
    key = _mix64(torch.tensor(seed, dtype=torch.int64, device=device))
    counters = torch.arange(n, dtype=torch.int64, device=device) * stride + _int64(first_counter % (1 << 64))
    return _mix64(key + counters * GAMMA)


def _unit(words, bits: int):
    """Uniforms in [0, 1), exact in float64: the top `bits` bits of each word, scaled."""
    return _shr(words, 64 - bits).to(torch.float64) * 2.0 ** -bits


def _numel(shape) -> int:
    return math.prod(shape)


def uniform(shape, low, high, seed, offset, *, dtype, device):
    u = _unit(_words(_numel(shape), seed, offset, device), SIGNIFICAND_BITS[dtype])
    return (low + (high - low) * u).to(dtype).reshape(shape)


def normal(shape, mean, std, seed, offset, *, dtype, device):
    n = _numel(shape)
    u1 = _unit(_words(n, seed, 2 * offset, device, stride=2), 53)
    u2 = _unit(_words(n, seed, 2 * offset + 1, device, stride=2), 53)
    z = torch.sqrt(-2.0 * torch.log1p(-u1)) * torch.cos(2.0 * math.pi * u2)
    return (mean + std * z).to(dtype).reshape(shape)


def bernoulli(p, seed, offset):
    u = _unit(_words(p.numel(), seed, offset, p.device), 53).reshape(p.shape)
    return u < p.to(torch.float64)
