"""A model quantized by PT2E (torchao's prepare_pt2e / convert_pt2e with the X86 Inductor quantizer, as
torchao's docs show): the converted program calls torch.ao's quantized_decomposed ops, and traces
prim-only to the converted model's eager output, bit for bit. torchao is an optional dependency (the
``test`` extra); without it these tests skip."""
from __future__ import annotations

import pytest
import torch

from primkit.graph import non_prim_ops, trace

pt2e = pytest.importorskip("torchao.quantization.pt2e.quantize_pt2e",
                           reason="torchao (the `test` extra) is not installed: PT2E lives in torchao")
x86 = pytest.importorskip("torchao.quantization.pt2e.quantizer.x86_inductor_quantizer",
                          reason="torchao (the `test` extra) is not installed: PT2E lives in torchao")


class ConvLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def _converted(is_dynamic):
    torch.manual_seed(0)
    model = ConvLinear().eval()
    example = torch.randn(2, 3, 8, 8)
    exported = torch.export.export(model, (example,)).module()
    quantizer = x86.X86InductorQuantizer().set_global(
        x86.get_default_x86_inductor_quantization_config(is_dynamic=is_dynamic))
    prepared = pt2e.prepare_pt2e(exported, quantizer)
    for _ in range(4):   # calibration
        prepared(torch.randn(2, 3, 8, 8))
    return pt2e.convert_pt2e(prepared), example


@pytest.mark.parametrize("is_dynamic", [False, True], ids=["static", "dynamic"])
def test_pt2e_quantized_model_traces_to_prims(is_dynamic):
    converted, example = _converted(is_dynamic)
    ops = {n.target for n in converted.graph.nodes if n.op == "call_function"}
    assert any(getattr(op, "namespace", None) == "quantized_decomposed" for op in ops), ops
    gm = trace(converted, example)
    assert non_prim_ops(gm) == []
    x = torch.randn(2, 3, 8, 8)
    assert torch.equal(gm(x), converted(x))
