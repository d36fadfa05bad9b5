"""Every hostile submission states what it must get, in a line tests/adversarial/run.sh reads:
`// ptxbench-expect: task=T outcome=O [key=value ...]`. run.sh ignores keys it does not know, so a
misspelt key (`max_case=0`) would silently drop a check; this test fails on one, on an unknown
outcome or task, and on a value that is not a number where run.sh compares numbers. The known keys
are read from run.sh itself, so the two cannot drift. Also checks that the check finds a bad line.
Run: python3 tests/structure/test_adversarial_expectations.py"""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ADVERSARIAL = ROOT / "tests" / "adversarial"
EXPECT = re.compile(r"^\s*//\s*ptxbench-expect:\s*(.*)$")
OUTCOMES = {"passed", "compile_error", "load_error", "crashed", "timeout", "incorrect",
            "instruction_missing", "low_instruction_share", "rejected_cheat", "unavailable"}
NUMERIC = {"max_speedup": float, "samples": int, "max_cases": int}


def run_sh_keys() -> set[str]:
    """The keys run.sh's read_expectation passes on (its `keys = (...)` tuple)."""
    text = (ADVERSARIAL / "run.sh").read_text(encoding="utf-8")
    m = re.search(r"keys = \(([^)]*)\)", text)
    if m is None:
        raise ValueError("tests/adversarial/run.sh: no `keys = (...)` in read_expectation")
    return set(re.findall(r'"(\w+)"', m.group(1)))


def task_ids() -> set[str]:
    """Every task id under tasks/ (a folder holding task.toml, named by its path)."""
    tasks = ROOT / "tasks"
    return {str(p.parent.relative_to(tasks)) for p in tasks.rglob("task.toml")}


def problems(line: str, keys: set[str], tasks: set[str]) -> list[str]:
    """What is wrong with the text after `ptxbench-expect:` (empty: nothing)."""
    found = []
    fields = {}
    for word in line.split():
        if "=" not in word:
            found.append(f"'{word}' is not key=value")
            continue
        key, value = word.split("=", 1)
        if key in fields:
            found.append(f"key '{key}' given twice")
        fields[key] = value
        if key not in keys:
            found.append(f"unknown key '{key}' (run.sh reads {sorted(keys)})")
        elif key in NUMERIC:
            try:
                if NUMERIC[key](value) < 0:
                    found.append(f"{key}={value} is negative")
            except ValueError:
                found.append(f"{key}={value} is not a number")
    if fields.get("outcome") not in OUTCOMES:
        found.append(f"outcome '{fields.get('outcome')}' is none of {sorted(OUTCOMES)}")
    if fields.get("task") not in tasks:
        found.append(f"task '{fields.get('task')}' is not under tasks/")
    if fields.get("timing", "yes") != "yes":
        found.append("timing= takes only 'yes'")
    return found


def expectation_lines(path: pathlib.Path) -> list[str]:
    return [m.group(1) for line in path.read_text(encoding="utf-8").splitlines()
            if (m := EXPECT.match(line))]


class AdversarialExpectations(unittest.TestCase):
    def test_every_submission_has_one_well_formed_line(self):
        keys, tasks = run_sh_keys(), task_ids()
        files = sorted(ADVERSARIAL.rglob("*.cu"))
        self.assertGreater(len(files), 30)
        for path in files:
            with self.subTest(file=str(path.relative_to(ROOT))):
                lines = expectation_lines(path)
                self.assertEqual(len(lines), 1, "exactly one ptxbench-expect line")
                self.assertEqual(problems(lines[0], keys, tasks), [])

    def test_the_check_finds_bad_lines(self):
        keys, tasks = run_sh_keys(), task_ids()
        good = "task=sm90/gemm/bf16-wgmma outcome=rejected_cheat max_cases=0"
        self.assertEqual(problems(good, keys, tasks), [])
        for bad in ("task=sm90/gemm/bf16-wgmma outcome=rejected_cheat max_case=0",
                    "task=sm90/gemm/bf16-wgmma outcome=rejected_cheat max_cases=none",
                    "task=sm90/gemm/bf16-wgmma outcome=cheat",
                    "task=sm90/gemm/no-such-task outcome=passed",
                    "task=sm90/gemm/bf16-wgmma outcome=passed timing=no",
                    "task=sm90/gemm/bf16-wgmma outcome=passed samples"):
            with self.subTest(line=bad):
                self.assertNotEqual(problems(bad, keys, tasks), [])


if __name__ == "__main__":
    unittest.main()
