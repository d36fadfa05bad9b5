"""bench/sass_fingerprint.py on small cuobjdump-style listings: one kernel compiled from two
source paths pairs up and hashes alike, one changed instruction makes it differ (exit 1), a
function on one side only is reported, and a missing listing or an unmatched regex fails.
Run: python3 tests/structure/test_sass_fingerprint.py"""

import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import sass_fingerprint  # noqa: E402

# The same kernel as two files name it: the anonymous namespace's identifier names the source.
EXPERT = "_ZN59_GLOBAL__N__609116e1_26_sm90_attention_bwd_bf16_cu_e256a4779dq_kernelILi64EEEvv"
COPY = "_ZN39_GLOBAL__N__19b97345_7_pp13_cu_e256a4779dq_kernelILi64EEEvv"
BODY = [
    "WARPGROUP.ARRIVE",
    "HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ, !UPT, gsb0",
    "WARPGROUP.DEPBAR.LE gsb0, 0x0",
    "@P0 BRA 0x10",
    "EXIT",
]


def listing(functions):
    """cuobjdump's layout: a Function line, then '/*addr*/ instruction ;' lines 16 bytes apart."""
    lines = []
    for name, body in functions:
        lines.append(f"\t\tFunction : {name}")
        for i, text in enumerate(body):
            lines.append(f"        /*{16 * i:04x}*/                   {text} ;   /* 0x000 */")
    return "\n".join(lines) + "\n"


class SassFingerprint(unittest.TestCase):
    def run_tool(self, mine, theirs=None, *args):
        paths = []
        for text in (mine, theirs):
            if text is None:
                continue
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write(text)
            paths.append(f.name)
        argv = [paths[0], *(["--against", paths[1]] if len(paths) > 1 else []), *args]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = sass_fingerprint.main(argv)
        for p in paths:
            pathlib.Path(p).unlink()
        return code, out.getvalue(), err.getvalue()

    def test_one_listing_counts_wgmma_and_waits(self):
        code, out, _ = self.run_tool(listing([(EXPERT, BODY)]))
        self.assertEqual(code, 0)
        self.assertIn("5 instructions   1 wgmma  1 waits", out)

    def test_same_code_from_two_paths_pairs_and_is_same(self):
        code, out, _ = self.run_tool(listing([(EXPERT, BODY)]), listing([(COPY, BODY)]))
        self.assertEqual(code, 0, out)
        self.assertTrue(out.startswith("same"), out)

    def test_one_changed_instruction_differs(self):
        changed = BODY[:3] + ["@P1 BRA 0x10"] + BODY[4:]
        code, out, _ = self.run_tool(listing([(EXPERT, BODY)]), listing([(COPY, changed)]))
        self.assertEqual(code, 1)
        self.assertTrue(out.startswith("differs"), out)
        self.assertIn("against", out)

    def test_a_function_on_one_side_only(self):
        other = EXPERT.replace("dq_kernel", "dx_kernel")
        code, out, _ = self.run_tool(listing([(EXPERT, BODY), (other, BODY)]),
                                     listing([(COPY, BODY)]))
        self.assertEqual(code, 1)
        self.assertIn("only here", out)
        code, out, _ = self.run_tool(listing([(COPY, BODY)]),
                                     listing([(EXPERT, BODY), (other, BODY)]))
        self.assertEqual(code, 1)
        self.assertIn("only there", out)

    def test_no_match_and_unreadable_fail(self):
        code, _, err = self.run_tool(listing([(EXPERT, BODY)]), None, "--function", "nothing")
        self.assertEqual(code, 1)
        self.assertIn("no function matches", err)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = sass_fingerprint.main(["/nonexistent/sass.txt"])
        self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
