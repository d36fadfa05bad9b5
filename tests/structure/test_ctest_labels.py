"""Every CTest test carries the label `unit` or `gpu`: scripts/test.sh (the CI command) runs
`ctest -L unit` (and `-L gpu` on a GPU machine), so a test without either label never runs
anywhere (adversarial_expectations_well_formed went unrun that way from 2026-12-04 to 12-05).
Run: python3 tests/structure/test_ctest_labels.py BUILD_DIR"""

import re
import subprocess
import sys


def test_names(build_dir: str, *label: str) -> set[str]:
    """The names `ctest -N` lists in build_dir, with `-L LABEL` when given."""
    listing = subprocess.run(
        ["ctest", "--test-dir", build_dir, "-N", *label], capture_output=True, text=True, check=True
    ).stdout
    return set(re.findall(r"^\s*Test\s+#\d+: (\S+)", listing, flags=re.MULTILINE))


def main() -> int:
    build_dir = sys.argv[1]
    every = test_names(build_dir)
    labelled = test_names(build_dir, "-L", "^(unit|gpu)$")
    if not every:
        print(f"test_ctest_labels: ctest lists no test in {build_dir}")
        return 1
    missing = sorted(every - labelled)
    for name in missing:
        print(f"test_ctest_labels: '{name}' has neither label 'unit' nor 'gpu': no run takes it")
    print(f"{len(every)} tests, {len(missing)} without a run label")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
