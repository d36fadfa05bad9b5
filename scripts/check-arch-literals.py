"""Fails when code in src/ spells a GPU architecture (sm_9x, sm_10x, compute_9x, ...) outside the
architecture unit src/core/arch.{hpp,cpp}: every other place must look architectures up there.
Comments may name them. Usage: python3 scripts/check-arch-literals.py [ROOT]"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
allowed = {root / "src/core/arch.hpp", root / "src/core/arch.cpp"}
arch = re.compile(r"\b(sm|compute)_(9|1[0-9])\d")
comment = re.compile(r"//.*$|/\*.*?\*/")
bad = []
for path in sorted(root.glob("src/**/*")):
    if path.suffix not in {".cpp", ".hpp", ".cu", ".cuh", ".h"} or path in allowed:
        continue
    in_block = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line
        if in_block:
            if "*/" not in code:
                continue
            code, in_block = code.split("*/", 1)[1], False
        if "/*" in code and "*/" not in code.split("/*", 1)[1]:
            code, in_block = code.split("/*", 1)[0], True
        code = comment.sub("", code)
        if arch.search(code):
            bad.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
if bad:
    print("architecture names outside src/core/arch.*: look them up in the arch unit instead")
    print("\n".join(bad))
    sys.exit(1)
print("arch literals: none outside src/core/arch.*")
