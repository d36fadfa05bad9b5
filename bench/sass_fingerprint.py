#!/usr/bin/env python3
"""Per-function fingerprints of cuobjdump -sass listings: whether a change left a kernel's SASS as
it was.

One line per function (those matching --function, a regex; default all): its instruction count,
its wgmma instructions (HGMMA/QGMMA/IGMMA) and warpgroup waits (WARPGROUP.DEPBAR), and a hash of
its instruction texts in order (the addresses left out; branch targets are function-relative in
cuobjdump's listing, so two compiles of the same code hash alike). With a second listing
(--against), each function is paired with the one of the same name there, the file-local
namespace of an anonymous namespace (`_GLOBAL__N__<hash>_<n>_<file>_cu_<hash>`, which names the
source file) set aside, so that an expert and a copy of it compiled from another path pair up;
each pair is reported `same` or `differs`. Used to back the claim "with the knob off the SASS is
unchanged" before a device session measures the knob.
Usage: bench/sass_fingerprint.py SASS_TXT [--against OTHER_SASS_TXT] [--function REGEX]
Exit status: 0; 1 when --against finds a function that differs or is on one side only, or no
function matches; 2 when a listing cannot be read.
"""

import argparse
import hashlib
import re
import sys

from sass_loops import OPCODE, functions

MMA = ("HGMMA", "QGMMA", "IGMMA")
# The anonymous namespace's mangled identifier: its length, then _GLOBAL__N__<hex>_<digits>_
# <source file with . and / as _>_<hex>.
ANONYMOUS = re.compile(r"\d+_GLOBAL__N__[0-9a-f]+_\d+_\w*?_[0-9a-f]{8}(?=\d)")


def paired_name(name):
    """The mangled name with its anonymous namespace's file-specific identifier replaced."""
    return ANONYMOUS.sub("_GLOBAL__N_", name)


def fingerprint(instructions):
    """(instruction count, wgmma count, warpgroup waits, hash of the texts)."""
    opcodes = [OPCODE.match(t).group(1) if OPCODE.match(t) else "" for _, t in instructions]
    texts = "\n".join(t for _, t in instructions)
    return (
        len(instructions),
        sum(op in MMA for op in opcodes),
        sum(t.startswith("WARPGROUP.DEPBAR") for _, t in instructions),
        hashlib.sha1(texts.encode()).hexdigest()[:12],
    )


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return functions(f.read())


def line(name, print_):
    count, mma, waits, digest = print_
    return f"{digest} {count:6d} instructions {mma:3d} wgmma {waits:2d} waits  {name}"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sass", help="cuobjdump -sass text")
    parser.add_argument("--against", help="a second listing to compare with, function by function")
    parser.add_argument("--function", default="", help="regex on the mangled function name")
    args = parser.parse_args(argv)
    pattern = re.compile(args.function)
    try:
        mine = {n: i for n, i in read(args.sass).items() if pattern.search(n)}
        theirs = (
            {n: i for n, i in read(args.against).items() if pattern.search(n)}
            if args.against
            else None
        )
    except OSError as e:
        print(f"sass_fingerprint: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    if not mine:
        print(f"sass_fingerprint: no function matches '{args.function}' in {args.sass}",
              file=sys.stderr)
        return 1
    if theirs is None:
        for name, instructions in mine.items():
            print(line(name, fingerprint(instructions)))
        return 0
    other = {paired_name(n): i for n, i in theirs.items()}
    status = 0
    for name, instructions in mine.items():
        key = paired_name(name)
        here = fingerprint(instructions)
        if key not in other:
            print(f"only here   {line(name, here)}")
            status = 1
            continue
        there = fingerprint(other.pop(key))
        same = here == there
        print(f"{'same' if same else 'differs':11s} {line(name, here)}"
              + ("" if same else f"\n            against {line(name, there)}"))
        status |= 0 if same else 1
    for key, instructions in other.items():
        print(f"only there  {line(key, fingerprint(instructions))}")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
