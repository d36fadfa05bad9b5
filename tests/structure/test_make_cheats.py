"""tests/adversarial/make_cheats.sh checks that each `// ptxbench-sed(N): EXPR` line of a cheat
changes exactly N lines of its expert: on a copy of tests/adversarial/ and kernels/reference/, the
committed cheats generate, and the script stops, naming the cheat, when an expert is reformatted
so that an edit misses one of the lines it changed before (the fp8 wgmma call split over three
lines once made two cheats silently keep the main kernel's promotion), when a count is wrong, and
on a sed line without a count.
Run: python3 tests/structure/test_make_cheats.py"""

import pathlib
import shutil
import subprocess
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FP8_EXPERT = pathlib.Path("kernels/reference/sm90_gemm_fp8_e4m3.cu")
WGMMA_CALL_END = ", k > 0 ? 1 : 0);"  # the fp8 cheats' `ptxbench-sed(2)` edit of both kernels
NO_PROMOTION = pathlib.Path("tests/adversarial/fp8/no_promotion.cu")


class MakeCheats(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        for part in ("tests/adversarial", "kernels/reference"):
            shutil.copytree(ROOT / part, self.root / part)

    def tearDown(self):
        self.tmp.cleanup()

    def generate(self):
        return subprocess.run(
            [str(self.root / "tests/adversarial/make_cheats.sh"), str(self.root / "out")],
            capture_output=True,
            text=True,
            check=False,
        )

    def edit(self, relative, old, new, count=1):
        path = self.root / relative
        text = path.read_text(encoding="utf-8")
        self.assertEqual(text.count(old), count, f"{relative}: '{old}'")
        path.write_text(text.replace(old, new), encoding="utf-8")

    def test_the_committed_cheats_generate_with_their_edits(self):
        result = self.generate()
        self.assertEqual(result.returncode, 0, result.stderr)
        cheat = (self.root / "out/fp8_no_promotion.cu").read_text(encoding="utf-8")
        code = [line for line in cheat.splitlines() if not line.startswith("// ptxbench-sed")]
        self.assertFalse(any(WGMMA_CALL_END in line for line in code))

    def test_an_edit_that_misses_a_line_it_changed_before_stops_the_generation(self):
        # One of the two wgmma calls split over two lines: the edit still matches the other.
        text = (self.root / FP8_EXPERT).read_text(encoding="utf-8")
        line = next(s for s in text.splitlines() if s.endswith(WGMMA_CALL_END))
        split = line.replace(WGMMA_CALL_END, ",\n    k > 0 ? 1 : 0);")
        self.edit(FP8_EXPERT, line, split, count=text.count(line))
        result = self.generate()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("fp8/", result.stderr)
        self.assertIn("changes 1 lines", result.stderr)
        self.assertIn("not 2", result.stderr)

    def test_a_wrong_count_stops_the_generation(self):
        self.edit(
            NO_PROMOTION,
            "// ptxbench-sed(1): s#^constexpr bool kOverlapPromotion",
            "// ptxbench-sed(3): s#^constexpr bool kOverlapPromotion",
        )
        result = self.generate()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("no_promotion.cu", result.stderr)
        self.assertIn("changes 1 lines", result.stderr)

    def test_a_sed_line_without_its_count_stops_the_generation(self):
        self.edit(
            NO_PROMOTION,
            "// ptxbench-sed(1): s#^constexpr bool kOverlapPromotion",
            "// ptxbench-sed: s#^constexpr bool kOverlapPromotion",
        )
        result = self.generate()
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("is not '// ptxbench-sed(N): EXPR'", result.stderr)


if __name__ == "__main__":
    unittest.main()
