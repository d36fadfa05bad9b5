"""Command line: ``python -m ptxbench_sft build-data --export FILE... --out DIR``."""

from __future__ import annotations

import argparse
import sys

from . import build_data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ptxbench_sft")
    sub = parser.add_subparsers(dest="command", required=True)
    build_data.add_arguments(sub.add_parser("build-data", help=build_data.__doc__.splitlines()[0]))
    args = parser.parse_args(argv)
    if args.command == "build-data":
        return build_data.run_cli(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
