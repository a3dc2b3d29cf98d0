"""primkit stride-share [-o FILE] [-k PATTERN]: the share of OpInfo samples whose decomposed result
has eager's output strides (see opinfo/stride_share.py), as Markdown (default: reports/strides.md
under the current directory)."""
from __future__ import annotations

import argparse
import pathlib
import sys
import time
import warnings


def main(argv=None, prog="primkit stride-share") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("-o", "--output", default="reports/strides.md", help="file to write (default: %(default)s)")
    parser.add_argument("-k", dest="pattern", default="", help="only entries whose name contains PATTERN")
    args = parser.parse_args(argv)
    from primkit import opinfo
    from primkit.opinfo.stride_share import measure, to_markdown

    tty = sys.stderr.isatty()

    def progress(i, n, name):
        if tty:
            sys.stderr.write(f"\r{i + 1}/{n} {name[:40]:<40}")

    start = time.perf_counter()
    entries = [e for e in opinfo.op_db if args.pattern in e.name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = measure(entries, progress)
    if tty:
        sys.stderr.write("\n")
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_markdown(result))
    unexplained = sum(1 for m in result.mismatches if m[3] is None)
    print(f"{out}: {result.matching} of {result.samples} samples ({100 * result.share:.2f}%) match eager's strides; "
          f"{len(result.mismatches)} mismatch ({unexplained} without an xfail); {len(result.errors)} did not run; "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="python -m primkit.tools.stride_share"))
