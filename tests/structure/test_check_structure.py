"""scripts/check-structure.py against small repositories made here: each rule fails on the
violation written for it, and a clean tree passes. Run: python3 tests/structure/test_check_structure.py"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check-structure.py"


def make_repo(files: dict[str, str]) -> tempfile.TemporaryDirectory:
    tmp = tempfile.TemporaryDirectory(prefix="ptxbench-structure-")
    root = pathlib.Path(tmp.name)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return tmp


def check(files: dict[str, str]) -> subprocess.CompletedProcess:
    with make_repo(files) as root:
        return subprocess.run([sys.executable, str(SCRIPT), root], capture_output=True, text=True)


CLEAN = {
    "src/cli/main.cpp": '#include "eval/pipeline.hpp"\n#include "core/error.hpp"\n',
    "src/eval/pipeline.hpp": '#include "protocol/protocol.hpp"\n',
    "src/tasks/spec.hpp": '#include "families/family.hpp"\n',
    "src/families/family.hpp": '#include "core/error.hpp"\n',
    "docs/a.md": "A document that says what things are.\n",
}


class CheckStructure(unittest.TestCase):
    def test_clean_tree_passes(self):
        result = check(CLEAN)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_each_violation_is_named(self):
        cases = {
            "src/core/error.hpp": ('#include "cli/main.hpp"\n', "core/ includes cli/, a layer above it"),
            "src/families/family.hpp": ('#include "tasks/spec.hpp"\n',
                                        "a folder cycle: families -> tasks -> families"),
            "src/gadgets/x.cpp": ("int x;\n", "src/gadgets/: a folder with no layer"),
            "docs/b.md": ("See ../" + "shared/notes.\n", "a path outside the repository"),
            "src/cli/help.cpp": ("// added for issue 12\n", "a work-item number"),
        }
        for name, (text, expected) in cases.items():
            with self.subTest(name=name):
                result = check(dict(CLEAN, **{name: text}))
                self.assertEqual(result.returncode, 1, result.stdout)
                self.assertIn(expected, result.stdout)


if __name__ == "__main__":
    unittest.main()
