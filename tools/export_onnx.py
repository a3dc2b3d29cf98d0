"""``primkit export-onnx``: export a module to ONNX through the core prims (primkit.export.onnx).

    primkit export-onnx package.module:model --inputs package.module:example_inputs -o model.onnx [--dynamic]

``model`` is an nn.Module (or a callable returning one); ``example_inputs`` a callable returning the
example arguments: a tuple (positional), or a dict (keyword arguments). Needs ``pip install "primkit[onnx]"``.
"""
from __future__ import annotations

import argparse
import sys


def main(argv=None, prog="primkit export-onnx") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="package.module:attr, an nn.Module or a callable returning one")
    p.add_argument("--inputs", required=True, help="package.module:attr, a callable returning the example arguments")
    p.add_argument("-o", "--output", default="model.onnx", help="file to write (default: %(default)s)")
    p.add_argument("--dynamic", action="store_true", help="keep batch and sequence sizes symbolic (named dynamic dims)")
    args = p.parse_args(argv)
    from primkit.export.onnx import ExportError, export_module
    try:
        model = export_module(args.model, args.inputs, args.output, dynamic=args.dynamic)
    except (ExportError, ValueError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    print(f"{args.output}: {len(model.graph.node)} ONNX nodes, inputs "
          f"{[i.name for i in model.graph.input]}, outputs {[o.name for o in model.graph.output]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="python -m primkit.tools.export_onnx"))
