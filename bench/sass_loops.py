#!/usr/bin/env python3
"""Static instruction counts of a kernel's main loop, from cuobjdump -sass text.

For each function (those matching --function, a regex; default all): its instruction count, and
for the innermost loop that holds a wgmma (HGMMA/QGMMA/IGMMA: the backward branch with the
smallest span around one; --around names other opcodes, e.g. LDGSTS or UTMALDG for a producer's
loop) its span and instruction count, the forward branches inside it that can skip a block (with
the block's size), and its opcodes. A knob that takes work out of a consumer's loop shows here
before any GPU run; what it saves at run time still has to be measured. Reads the SASS the judge
stores (`sass.txt` of a compile artefact) or any cuobjdump output.
Usage: bench/sass_loops.py SASS_TXT [--function REGEX] [--around OP,OP] [--opcodes N]
"""

import argparse
import re
import sys
from collections import Counter

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
FUNCTION = re.compile(r"Function : (\S+)")
BRANCH = re.compile(r"^(@!?U?P\w+\s+)?BRA(\.\w+)*\s+(?:!?U?P\w+,\s*)?0x([0-9a-f]+)$")
OPCODE = re.compile(r"^(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")
MMA = ("HGMMA", "QGMMA", "IGMMA")


def functions(text):
    """{name: [(address, instruction text)]} in the order cuobjdump prints them."""
    out, name = {}, None
    for line in text.splitlines():
        m = FUNCTION.search(line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = INSTRUCTION.search(line)
        if m and name is not None:
            out[name].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def branches(instructions):
    """(address, target, conditional) of every branch with an immediate target."""
    out = []
    for address, text in instructions:
        m = BRANCH.match(text)
        if m:
            out.append((address, int(m.group(3), 16), m.group(1) is not None))
    return out


def innermost_loop(instructions, around):
    """(start, end) of the innermost loop holding an instruction whose opcode is in `around`,
    or None.
    NOTE: ptxas moves the retry paths of waits (mbarrier try_wait) out of line, after the
    function's last EXIT, and branches back from there into the loop; those backward branches
    close no loop, so only branches before the last EXIT count."""
    held = [a for a, t in instructions if OPCODE.match(t) and OPCODE.match(t).group(1) in around]
    exits = [a for a, t in instructions if OPCODE.match(t) and OPCODE.match(t).group(1) == "EXIT"]
    end = max(exits, default=instructions[-1][0] if instructions else 0)
    loops = [
        (target, address)
        for address, target, _ in branches(instructions)
        if target <= address <= end
    ]
    loops = [(s, e) for s, e in loops if any(s <= a <= e for a in held)]
    return min(loops, key=lambda span: span[1] - span[0], default=None)


def report(name, instructions, top, around=MMA):
    label = "wgmma" if around == MMA else "/".join(around)
    lines = [f"{name}: {len(instructions)} instructions"]
    span = innermost_loop(instructions, around)
    if span is None:
        lines.append(f"  no loop holds a {label}")
        return lines
    start, end = span
    body = [(a, t) for a, t in instructions if start <= a <= end]
    lines.append(f"  {label} loop 0x{start:x}-0x{end:x}: {len(body)} instructions")
    for address, target, conditional in branches(body):
        if conditional and address < target <= end:
            skipped = sum(1 for a, _ in body if address < a < target)
            lines.append(f"    0x{address:x} may skip {skipped} instructions to 0x{target:x}")
    counts = Counter(OPCODE.match(t).group(1) for _, t in body if OPCODE.match(t))
    lines.append("    " + " ".join(f"{op} {n}" for op, n in counts.most_common(top)))
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sass", help="cuobjdump -sass text (the judge's sass.txt)")
    parser.add_argument("--function", default="", help="regex on the mangled function name")
    parser.add_argument("--around", default=",".join(MMA), help="opcodes the loop must hold")
    parser.add_argument("--opcodes", type=int, default=12, help="opcodes listed per loop")
    args = parser.parse_args(argv)
    try:
        with open(args.sass, encoding="utf-8", errors="replace") as f:
            found = functions(f.read())
    except OSError as e:
        print(f"sass_loops: {args.sass}: {e.strerror}", file=sys.stderr)
        return 2
    pattern = re.compile(args.function)
    chosen = {n: i for n, i in found.items() if pattern.search(n)}
    if not chosen:
        print(f"sass_loops: no function matches '{args.function}' in {args.sass}", file=sys.stderr)
        return 1
    around = tuple(op.strip() for op in args.around.split(",") if op.strip())
    for name, instructions in chosen.items():
        print("\n".join(report(name, instructions, args.opcodes, around)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
