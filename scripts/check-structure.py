"""Repository structure rules that a reader of a clone relies on. Fails (exit 1) naming every
violation:
- no path outside the repository (the team's shared folder beside a checkout is not in a clone);
- no work-item numbers ("issue 6") in code, Python or docs: say what a thing is, not which ticket;
- the folders of src/ are the layers (LAYERS, top first; docs/design.md draws the same picture): an
  include may point to a lower layer or, without a cycle, to a folder of its own layer, never up;
  every folder of src/ has a layer.
Usage: python3 scripts/check-structure.py [ROOT]"""
import collections
import pathlib
import re
import subprocess
import sys

LAYERS = [
    ("cli",),
    ("serve",),  # the judging service: HTTP, its job store, the judge per GPU
    ("llm",),
    ("eval",),  # the parent-side stages, the ncu evidence stage and sanitize included
    ("compile", "worker"),
    ("baselines", "instrument", "verify", "timing", "controls"),
    ("tasks", "families", "store", "report", "reference"),
    ("protocol", "verdict", "sys", "cuda"),
    ("core",),
]
LAYER_OF = {folder: level for level, folders in enumerate(LAYERS) for folder in folders}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/')


def layer_violations(names: list[str]) -> list[str]:
    """Includes that run up the layers, folders without a layer, cycles within one layer."""
    bad, same_layer = [], collections.defaultdict(set)
    for folder in sorted({n.split("/")[1] for n in names if n.startswith("src/") and n.count("/") > 1}):
        if folder not in LAYER_OF:
            bad.append(f"src/{folder}/: a folder with no layer (add it to LAYERS in {__file__})")
    for name in names:
        parts = name.split("/")
        if parts[0] != "src" or len(parts) < 3 or parts[1] not in LAYER_OF:
            continue
        here = parts[1]
        for number, line in enumerate((root / name).read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or match.group(1) == here or match.group(1) not in LAYER_OF:
                continue
            there = match.group(1)
            if LAYER_OF[there] < LAYER_OF[here]:
                bad.append(f"{name}:{number}: {here}/ includes {there}/, a layer above it")
            elif LAYER_OF[there] == LAYER_OF[here]:
                same_layer[here].add(there)
    # A cycle among folders of one layer: depth-first search over the same-layer edges.
    state: dict[str, int] = {}

    def visit(folder: str, path: list[str]) -> None:
        state[folder] = 1
        for nxt in sorted(same_layer[folder]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [folder, nxt]
                bad.append("a folder cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[folder] = 2

    for folder in sorted(same_layer):
        if folder not in state:
            visit(folder, [folder])
    return bad


root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
outside = re.compile(re.escape("../" + "shared"))
work_item = re.compile(r"\bissues? \d+\b", re.IGNORECASE)
files = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True,
                       check=True).stdout.splitlines()
bad = []
for name in files:
    path = root / name
    if not path.is_file() or path.suffix in {".csv", ".jsonl", ".json", ".gz", ".png", ".svg"}:
        continue
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        continue
    for number, line in enumerate(text.splitlines(), 1):
        if outside.search(line):
            bad.append(f"{name}:{number}: a path outside the repository: {line.strip()[:100]}")
        if name.startswith(("src/", "python/", "docs/")) and work_item.search(line):
            bad.append(f"{name}:{number}: a work-item number: {line.strip()[:100]}")
bad += layer_violations(files)
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"structure: {len(files)} files clean")
