"""Exporters of prim graphs to other formats (the runtimes/exporters layer: it imports prims and
decompositions; only tools/ and opinfo/ import it).

``primkit.export.onnx``: ``to_onnx(model_or_fn, args, path=None, dynamic=False)`` (needs the
``onnx`` extra: ``pip install "primkit[onnx]"``). The submodule is not imported here, so that
``import primkit.export`` works without onnx installed.
"""
