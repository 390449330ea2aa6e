"""The command line of the generated, checked-in files (docs/OPS.md by ``ops_reference``, the
API stub by ``_stubgen``): render the text, write it to ``--out`` or standard output."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Optional, Sequence


def generated_file_cli(render: Callable[[], str], prog: str, description: str,
                       argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--out", help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    text = render()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0
