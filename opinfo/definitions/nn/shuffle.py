"""OpInfo entries: pixel_shuffle, pixel_unshuffle, channel_shuffle."""
from __future__ import annotations

from primkit.opinfo.core import SampleInput
from primkit.opinfo.definitions.nn.common import aten, entry
from primkit.opinfo.dtypes import FLOATING, INTEGRAL
from primkit.opinfo.samples import layouts


def sample_inputs_pixel_shuffle(op, device, dtype):
    for shape, r in (((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((2, 1, 4, 3, 2), 1), ((0, 4, 2, 2), 2)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (r,), name=f"{name} {shape} r={r}")


def sample_inputs_pixel_unshuffle(op, device, dtype):
    # eager returns a copy of an empty input, its shape unchanged (not unshuffled)
    for shape, r in (((2, 2, 4, 6), 2), ((1, 6, 3), 3), ((2, 1, 2, 4, 2), 1), ((0, 2, 4, 6), 2), ((2, 2, 0, 6), 2)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (r,), name=f"{name} {shape} r={r}")


def sample_inputs_channel_shuffle(op, device, dtype):
    for shape, g in (((2, 6, 3, 4), 3), ((2, 4, 5), 2), ((1, 4, 2, 2, 2), 4), ((3, 5, 2), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (g,), name=f"{name} {shape} groups={g}")


ENTRIES = [
    entry("nn.functional.pixel_shuffle", aten.pixel_shuffle, ("aten::pixel_shuffle", "aten::pixel_shuffle.out"),
          sample_inputs_pixel_shuffle, dtypes=FLOATING | INTEGRAL, out=True),
    entry("nn.functional.pixel_unshuffle", aten.pixel_unshuffle,
          ("aten::pixel_unshuffle", "aten::pixel_unshuffle.out"), sample_inputs_pixel_unshuffle,
          dtypes=FLOATING | INTEGRAL, out=True),
    entry("nn.functional.channel_shuffle", aten.channel_shuffle,
          ("aten::channel_shuffle", "aten::channel_shuffle.out"), sample_inputs_channel_shuffle,
          dtypes=FLOATING | INTEGRAL, out=True),
    entry("native_channel_shuffle", aten.native_channel_shuffle, ("aten::native_channel_shuffle",),
          sample_inputs_channel_shuffle, dtypes=FLOATING | INTEGRAL),
]
