"""Repository structure rules that a reader of a clone relies on. Fails (exit 1) naming every
violation:
- no path outside the repository (the team's shared folder beside a checkout is not in a clone);
- no work-item numbers ("issue 6") in code, Python or docs: say what a thing is, not which ticket.
Usage: python3 scripts/check-structure.py [ROOT]"""
import pathlib
import re
import subprocess
import sys

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
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"structure: {len(files)} files clean")
