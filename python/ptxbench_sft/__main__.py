"""Command line: ``python -m ptxbench_sft {build-data,make-tiny,train,serve-eval} ...``.

Bad input to any command (a bad flag, a missing or malformed export, data or config file, an
unknown config key, a server that does not come up) is printed as one ``error:`` line on stderr
with exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from . import build_data, serve_eval, tiny, train
from .errors import InputError


class OneLineParser(argparse.ArgumentParser):
    """Reports a bad flag as one line (argparse prints the whole usage first)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="ptxbench_sft")
    sub = parser.add_subparsers(dest="command", required=True)
    commands = {"build-data": build_data, "make-tiny": tiny, "train": train,
                "serve-eval": serve_eval}
    for name, module in commands.items():
        module.add_arguments(sub.add_parser(name, help=module.__doc__.splitlines()[0]))
    args = parser.parse_args(argv)
    try:
        return commands[args.command].run_cli(args)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
