"""The ``primkit`` console command (also ``python -m primkit``): ``primkit <command> [arguments]``.

Each command is a module of primkit.tools whose ``main(argv, prog)`` parses its own arguments
(``primkit coverage --help``). What they write goes under the current directory unless told
otherwise (``-o``).
"""
from __future__ import annotations

import difflib
import importlib
import sys

# command -> (module, one line on what it does)
COMMANDS = {
    "coverage": ("primkit.tools.coverage", "write the op coverage report (default: reports/coverage.md)"),
    "catalog-docs": ("primkit.tools.catalog_docs", "write the catalog's reference page (default: docs/prims.md)"),
    "stride-share": ("primkit.tools.stride_share",
                     "the share of OpInfo samples with eager's output strides (default: reports/strides.md)"),
    "bench": ("primkit.tools.bench", "time prim graphs and tracing against eager, make_fx and Inductor"),
    "export-onnx": ("primkit.tools.export_onnx", "export a module to ONNX through the core prims (needs primkit[onnx])"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: primkit <command> [arguments]   (primkit <command> --help for its arguments)", "",
             "commands:"]
    lines += [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    lines += ["", "  --version  print primkit's version"]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "--version":
        from primkit import __version__
        print(f"primkit {__version__}")
        return 0
    if command not in COMMANDS:
        close = difflib.get_close_matches(command, COMMANDS, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        print(f"primkit: error: unknown command '{command}'{hint}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[command][0])
    return module.main(rest, prog=f"primkit {command}") or 0


if __name__ == "__main__":
    sys.exit(main())
