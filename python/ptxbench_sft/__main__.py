"""Command line: ``python -m ptxbench_sft {build-data,make-tiny,train,serve-eval} ...``.

Bad input to make-tiny, train or serve-eval (missing file, empty data, malformed row, unknown
config key, a server that does not come up) is printed as one ``error:`` line on stderr with
exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from . import build_data, serve_eval, tiny, train


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ptxbench_sft")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = {"build-data": build_data, "make-tiny": tiny, "train": train,
                "serve-eval": serve_eval}
    for name, module in commands.items():
        module.add_arguments(sub.add_parser(name, help=module.__doc__.splitlines()[0]))
    args = parser.parse_args(argv)
    try:
        return commands[args.command].run_cli(args)
    except train.InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
