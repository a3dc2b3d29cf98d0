"""python -m tools.catalog_docs [-o FILE]: write the catalog's reference page (docs/prims.md)."""
from __future__ import annotations

import argparse
import pathlib
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.catalog_docs", description=__doc__)
    parser.add_argument("-o", "--output", default="docs/prims.md", help="file to write (default: %(default)s)")
    args = parser.parse_args(argv)
    from opinfo.catalog_docs import render
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render())
    print(f"{out}: written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
