"""primkit catalog-docs [-o FILE]: write the catalog's reference page (default: docs/prims.md under the
current directory)."""
from __future__ import annotations

import argparse
import pathlib
import sys


def main(argv=None, prog="primkit catalog-docs") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("-o", "--output", default="docs/prims.md", help="file to write (default: %(default)s)")
    args = parser.parse_args(argv)
    from primkit.opinfo.catalog_docs import render
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render())
    print(f"{out}: written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="python -m primkit.tools.catalog_docs"))
