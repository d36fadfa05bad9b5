"""Keeps generated regions of self-contained sources equal to the file they copy.

A submission is one self-contained .cu file (docs/abi.md), yet the PTX wrappers of the expert
solutions are written once, in kernels/ptx/, and the harness blocks of the hostile submissions
once, in tests/adversarial/blocks/. A source (a .cu file, or an .inc file a generator builds
submissions from) holds a copy of such a file between the lines below; edit the named file,
never the copy, and run this script:

    // ==== begin kernels/ptx/mbarrier.cuh (generated: scripts/amalgamate.py) ====
    // ==== end kernels/ptx/mbarrier.cuh ====

The copy leaves out '#pragma once' and '#include' lines: the source includes the system headers
itself, and a copied file's own '#include "ptx/NAME"' must be an earlier region of the source
(checked). Usage:
    python3 scripts/amalgamate.py [ROOT]          rewrite every region from its file
    python3 scripts/amalgamate.py --check [ROOT]  exit 1 naming each stale region (a CTest test)
"""
import pathlib
import re
import sys

SCANNED = ("kernels/reference", "tests/adversarial", "bench/gemm_dev")
BEGIN = re.compile(r"^// ==== begin (\S+) \(generated: scripts/amalgamate\.py\) ====$")
END = "// ==== end {} ===="
LOCAL_INCLUDE = re.compile(r'^#include "(ptx/[^"]+)"')


def copied_text(root: pathlib.Path, name: str) -> tuple[list[str], list[str]]:
    """The lines a region holds for file `name`, and the kernels/ptx files it includes."""
    path = root / name
    if not path.is_file():
        raise ValueError(f"no file {name}")
    lines, needs = [], []
    for line in path.read_text().splitlines():
        match = LOCAL_INCLUDE.match(line)
        if match:
            needs.append("kernels/" + match.group(1))
        if line.startswith(("#pragma once", "#include")):
            continue
        lines.append(line)
    while lines and not lines[0].strip():  # the gap left where the includes were
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    for i in range(len(lines) - 1, 0, -1):  # collapse runs of blank lines left behind
        if not lines[i].strip() and not lines[i - 1].strip():
            del lines[i]
    return lines, needs


def refresh(root: pathlib.Path, source: pathlib.Path) -> tuple[str, list[str]]:
    """The source with its regions refreshed, and the problems found in it."""
    out, problems, seen = [], [], []
    lines = source.read_text().splitlines()
    rel = source.relative_to(root)
    i = 0
    while i < len(lines):
        match = BEGIN.match(lines[i])
        out.append(lines[i])
        i += 1
        if not match:
            continue
        name = match.group(1)
        end = END.format(name)
        try:
            j = lines.index(end, i)
        except ValueError:
            problems.append(f"{rel}: region {name} has no end line '{end}'")
            out.extend(lines[i:])
            break
        try:
            body, needs = copied_text(root, name)
        except ValueError as e:
            problems.append(f"{rel}: region {name}: {e}")
            body, needs = lines[i:j], []
        for need in needs:
            if need not in seen:
                problems.append(f"{rel}: region {name} needs region {need} before it")
        seen.append(name)
        out.extend(body)
        out.append(end)
        i = j + 1
    return "\n".join(out) + "\n", problems


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = pathlib.Path(args[0] if args else ".").resolve()
    stale, problems, regions = [], [], 0
    for folder in SCANNED:
        sources = [*(root / folder).rglob("*.cu"), *(root / folder).rglob("*.inc")]
        for source in sorted(sources):
            text = source.read_text()
            regions += sum(1 for line in text.splitlines() if BEGIN.match(line))
            fresh, found = refresh(root, source)
            problems += found
            if fresh != text:
                stale.append(str(source.relative_to(root)))
                if not check and not found:
                    source.write_text(fresh)
    if problems:
        print("\n".join(problems))
        return 1
    if check and stale:
        print("\n".join(f"{name}: a generated region differs from its file "
                        "(run scripts/amalgamate.py)" for name in stale))
        return 1
    verb = "checked" if check else f"refreshed ({len(stale)} rewritten)"
    print(f"amalgamate: {regions} regions {verb}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
