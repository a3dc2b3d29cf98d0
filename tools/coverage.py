"""python -m tools.coverage [-o FILE]: write the op coverage report (Markdown)."""
from __future__ import annotations

import argparse
import pathlib
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.coverage", description=__doc__)
    parser.add_argument("-o", "--output", default="reports/coverage.md", help="file to write (default: %(default)s)")
    parser.add_argument("--no-analyze", action="store_true",
                        help="skip tracing the OpInfo samples (faster; no prims/partial information)")
    args = parser.parse_args(argv)
    from opinfo.coverage import build_report, to_markdown
    report = build_report(analyze=not args.no_analyze)
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_markdown(report))
    s = report["summary"]
    print(f"{out}: {s['overloads']} ATen overloads; {s['status'].get('prims', 0)} decompose to prims "
          f"({s['reach_prims_tested']} tested), {s['status'].get('partial', 0)} partial, "
          f"{s['status'].get('missing', 0)} missing; {s['catalog_prims']} prims; "
          f"{report['generated_in_s']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
