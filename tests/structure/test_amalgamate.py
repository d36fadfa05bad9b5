"""scripts/amalgamate.py on small trees made here: it refreshes a stale region, --check names a
stale region, a region whose file includes another needs that region first, and a region
without its end line or its file is an error. Run: python3 tests/structure/test_amalgamate.py"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "amalgamate.py"
SMEM = '#pragma once\n\n#include <cstdint>\n\n__device__ int smem() { return 1; }\n'
BAR = '#pragma once\n\n#include "ptx/smem.cuh"\n\n__device__ int bar() { return smem(); }\n'


def begin(name: str) -> str:
    return f"// ==== begin {name} (generated: scripts/amalgamate.py) ===="


def end(name: str) -> str:
    return f"// ==== end {name} ===="


def source(*names: str, body: str = "") -> str:
    lines = ["#include <cstdint>"]
    for name in names:
        lines += [begin(name), body, end(name)] if body else [begin(name), end(name)]
    return "\n".join(lines + ["__global__ void k() {}"]) + "\n"


class Amalgamate(unittest.TestCase):
    def run_in(self, files: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess, dict]:
        with tempfile.TemporaryDirectory(prefix="ptxbench-amalgamate-") as tmp:
            root = pathlib.Path(tmp)
            files = {"kernels/ptx/smem.cuh": SMEM, "kernels/ptx/bar.cuh": BAR, **files}
            for name, text in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            result = subprocess.run([sys.executable, str(SCRIPT), *args, tmp],
                                    capture_output=True, text=True)
            after = {name: (root / name).read_text() for name in files}
        return result, after

    def test_refresh_copies_the_file_without_pragma_and_includes(self):
        result, after = self.run_in({"kernels/reference/a.cu": source("kernels/ptx/smem.cuh")})
        self.assertEqual(result.returncode, 0, result.stdout)
        text = after["kernels/reference/a.cu"]
        self.assertIn("__device__ int smem() { return 1; }", text)
        self.assertNotIn("#pragma once", text)
        self.assertEqual(text.count("#include"), 1, "only the source's own include stays")

    def test_check_names_a_stale_region_and_changes_nothing(self):
        stale = source("kernels/ptx/smem.cuh", body="__device__ int smem() { return 2; }")
        result, after = self.run_in({"kernels/reference/a.cu": stale}, "--check")
        self.assertEqual(result.returncode, 1)
        self.assertIn("kernels/reference/a.cu: a generated region differs", result.stdout)
        self.assertEqual(after["kernels/reference/a.cu"], stale)

    def test_a_fresh_tree_passes_the_check(self):
        fresh = source("kernels/ptx/smem.cuh",
                       body="__device__ int smem() { return 1; }")
        result, _ = self.run_in({"tests/adversarial/h.cu": fresh}, "--check")
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_a_dependency_must_come_first(self):
        result, _ = self.run_in({"kernels/reference/a.cu": source("kernels/ptx/bar.cuh")})
        self.assertEqual(result.returncode, 1)
        self.assertIn("needs region kernels/ptx/smem.cuh before it", result.stdout)
        result, _ = self.run_in(
            {"kernels/reference/a.cu": source("kernels/ptx/smem.cuh", "kernels/ptx/bar.cuh")})
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_broken_regions_are_errors(self):
        no_end = "#include <cstdint>\n" + begin("kernels/ptx/smem.cuh") + "\nint x;\n"
        result, after = self.run_in({"kernels/reference/a.cu": no_end})
        self.assertEqual(result.returncode, 1)
        self.assertIn("has no end line", result.stdout)
        self.assertEqual(after["kernels/reference/a.cu"], no_end, "a broken source is not rewritten")
        result, _ = self.run_in({"kernels/reference/a.cu": source("kernels/ptx/none.cuh")})
        self.assertEqual(result.returncode, 1)
        self.assertIn("no file kernels/ptx/none.cuh", result.stdout)


if __name__ == "__main__":
    unittest.main()
