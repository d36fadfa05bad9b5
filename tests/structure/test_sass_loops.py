"""bench/sass_loops.py on small cuobjdump-style listings: it finds the innermost loop around a
wgmma (not an outer loop, not a loop without one, not one of ptxas's BRA.U.ANY spin loops), the
blocks a forward branch inside it can skip, and fails on a listing with no matching function.
Run: python3 tests/structure/test_sass_loops.py"""

import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import sass_loops  # noqa: E402


def listing(name, body):
    """cuobjdump's layout: a Function line, then '/*addr*/ instruction ;' lines 16 bytes apart."""
    lines = [f"\t\tFunction : {name}"]
    for i, text in enumerate(body):
        lines.append(f"        /*{16 * i:04x}*/                   {text} ;   /* 0x000 */")
        lines.append("                                                    /* 0x000 */")
    return "\n".join(lines) + "\n"


# 0x00 setup; outer loop 0x10-0xb0 around an inner wgmma loop 0x20-0x90; inside it a branch at
# 0x40 over two instructions (0x50, 0x60) and a BRA.U.ANY spin loop; a loop without wgmma after.
KERNEL = [
    "MOV R0, RZ",  # 0x00
    "IADD3 R1, R1, 0x1, RZ",  # 0x10 outer loop start
    "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT",  # 0x20 inner loop start
    "MUFU.EX2 R2, R2",  # 0x30
    "@P0 BRA 0x70",  # 0x40 skips 0x50, 0x60
    "FSEL R2, R2, RZ, !P1",  # 0x50
    "FSEL R3, R3, RZ, !P1",  # 0x60
    "@P2 BRA.U.ANY 0x70",  # 0x70 spin loop on itself
    "ISETP.NE.AND P3, PT, R1, R4, PT",  # 0x80
    "@P3 BRA 0x20",  # 0x90 inner loop end
    "FADD R5, R5, R2",  # 0xa0
    "@P4 BRA 0x10",  # 0xb0 outer loop end
    "FADD R6, R6, R6",  # 0xc0 loop without wgmma
    "@P5 BRA 0xc0",  # 0xd0
    "EXIT",  # 0xe0
]


class SassLoops(unittest.TestCase):
    def run_tool(self, text, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = sass_loops.main([f.name, *args])
        pathlib.Path(f.name).unlink()
        return code, out.getvalue(), err.getvalue()

    def test_innermost_wgmma_loop_and_its_skippable_block(self):
        code, out, _ = self.run_tool(listing("kernel_a", KERNEL))
        self.assertEqual(code, 0)
        self.assertIn("kernel_a: 15 instructions", out)
        self.assertIn("wgmma loop 0x20-0x90: 8 instructions", out)
        self.assertIn("0x40 may skip 2 instructions to 0x70", out)
        self.assertNotIn("0x70 may skip", out)  # the spin loop is no block
        self.assertIn("FSEL 2", out)

    def test_a_wait_path_after_the_last_exit_closes_no_loop(self):
        # ptxas's out-of-line retry path of a wait branches back into the loop from after EXIT:
        # its span (0x40-0x80) is shorter than the loop's (0x00-0x60) and holds a wgmma too.
        body = [
            "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R0",  # 0x00 loop start
            "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT",  # 0x10
            "@!P0 BRA 0x80",  # 0x20 to the retry path
            "FADD R1, R1, R1",  # 0x30
            "MUFU.EX2 R2, R2",  # 0x40 where the retry path returns
            "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24",  # 0x50
            "@P1 BRA 0x0",  # 0x60 loop end
            "EXIT",  # 0x70
            "BRA 0x40",  # 0x80 retry path, back into the loop
        ]
        code, out, _ = self.run_tool(listing("waits", body))
        self.assertEqual(code, 0)
        self.assertIn("wgmma loop 0x0-0x60: 7 instructions", out)

    def test_a_loop_around_other_opcodes(self):
        # The loop at 0xc0-0xd0 holds no wgmma but an FADD: --around FADD finds the innermost
        # loop holding one (the wgmma loop 0x20-0x90 holds none; the outer loop does, at 0xa0).
        code, out, _ = self.run_tool(listing("kernel_a", KERNEL), "--around", "FADD")
        self.assertEqual(code, 0)
        self.assertIn("FADD loop 0xc0-0xd0: 2 instructions", out)

    def test_a_function_without_wgmma_says_so(self):
        code, out, _ = self.run_tool(listing("plain", ["FADD R0, R0, R0", "@P0 BRA 0x0", "EXIT"]))
        self.assertEqual(code, 0)
        self.assertIn("no loop holds a wgmma", out)

    def test_function_filter_and_a_filter_that_matches_nothing(self):
        text = listing("kernel_a", KERNEL) + listing("kernel_b", ["EXIT"])
        code, out, _ = self.run_tool(text, "--function", "kernel_b")
        self.assertEqual(code, 0)
        self.assertIn("kernel_b", out)
        self.assertNotIn("kernel_a", out)
        code, _, err = self.run_tool(text, "--function", "kernel_c")
        self.assertEqual(code, 1)
        self.assertIn("no function matches", err)

    def test_an_unreadable_file_is_a_clear_error(self):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = sass_loops.main(["/nonexistent/sass.txt"])
        self.assertEqual(code, 2)
        self.assertIn("/nonexistent/sass.txt", err.getvalue())


if __name__ == "__main__":
    unittest.main()
