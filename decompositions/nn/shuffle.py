"""Channel rearrangements: pixel_shuffle, pixel_unshuffle and channel_shuffle.
"""
from __future__ import annotations

from primkit.decompositions.common import P, aten, register_out
from primkit.decompositions.nn.padding import output_layout
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous


def _shuffle(a, split, perm, merged):
    """reshape a to ``split``, permute by ``perm``, reshape to ``merged``, in eager's output layout."""
    y = P.reshape(P.permute(P.reshape(contiguous(a), split), perm), merged)
    return output_layout(y, a)


@register(aten.pixel_shuffle.default)
def pixel_shuffle(a, upscale_factor):
    r = upscale_factor
    if a.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = a.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    nb = len(batch)
    split = [*batch, c // (r * r), r, r, h, w]
    perm = list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2]
    return _shuffle(a, split, perm, [*batch, c // (r * r), h * r, w * r])


@register(aten.pixel_unshuffle.default)
def pixel_unshuffle(a, downscale_factor):
    r = downscale_factor
    if a.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = a.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but got "
                           f"height={h}, width={w}, downscale_factor={r}")
    # Eager's CPU kernel returns a copy of an empty input, its shape unchanged; the composite kernel other devices
    # run (CUDA's, meta's) unshuffles it as any other.
    if a.numel() == 0 and a.device.type == "cpu":
        return aten.clone.default(a)
    nb = len(batch)
    split = [*batch, c, h // r, r, w // r, r]
    perm = list(range(nb)) + [nb, nb + 2, nb + 4, nb + 1, nb + 3]
    return _shuffle(a, split, perm, [*batch, c * r * r, h // r, w // r])


register_out(aten.pixel_shuffle.out, pixel_shuffle, "pixel_shuffle")
register_out(aten.pixel_unshuffle.out, pixel_unshuffle, "pixel_unshuffle")


def channel_shuffle(a, groups):
    if a.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.dim()} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = a.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    split = [n, groups, c // groups, *rest]
    perm = [0, 2, 1] + list(range(3, len(split)))
    return _shuffle(a, split, perm, list(a.shape))


register(aten.channel_shuffle.default, aten.native_channel_shuffle.default)(channel_shuffle)
register_out(aten.channel_shuffle.out, channel_shuffle, "channel_shuffle")
