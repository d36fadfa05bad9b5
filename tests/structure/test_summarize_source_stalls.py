"""bench/gemm_dev/summarize_source_stalls.py on a small export of Nsight Compute's source page:
the shares and the top instructions of a reason, each instruction counted once also where the
export holds the kernel's table twice (as the device image's ncu wrote it), and the selection of
the instructions that ran with enough threads (--min-threads).
Run: python3 tests/structure/test_summarize_source_stalls.py"""

import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "bench" / "gemm_dev" / "summarize_source_stalls.py"

KERNEL = '"Kernel Name","void k(int)",\n'
HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","stall_long_sb","stall_wait",'
          '"stall_long_sb (Not Issued)"\n')
ROWS = ('"0x7f00000000a0","FFMA R1, R2, R3, -R4","30","25","5","20"\n'
        '"0x7f00000000b0","MUFU.EX2 R5, R5","10","0","10","0"\n')


class SummarizeSourceStalls(unittest.TestCase):
    def run_tool(self, text, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(text)
        done = subprocess.run([sys.executable, str(TOOL), f.name, *args], capture_output=True,
                              text=True, check=False)
        pathlib.Path(f.name).unlink()
        return done

    def test_shares_and_top_instruction(self):
        done = self.run_tool(KERNEL + HEADER + ROWS, "stall_long_sb", "--top", "1")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("2 instructions, 40 stall samples", done.stdout)
        self.assertIn("stall_long_sb 62.5%, stall_wait 37.5%", done.stdout)
        self.assertIn("000a0      25 of     30  FFMA R1, R2, R3, -R4", done.stdout)

    def test_a_table_exported_twice_counts_once(self):
        done = self.run_tool((KERNEL + HEADER + ROWS) * 2, "stall_long_sb", "--top", "3")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("2 instructions, 40 stall samples", done.stdout)
        self.assertEqual(done.stdout.count("FFMA R1, R2, R3, -R4"), 1, done.stdout)

    def test_min_threads_leaves_out_single_thread_code(self):
        header = HEADER.replace('"stall_wait",', '"stall_wait","Avg. Threads Executed",')
        rows = ('"0x7f00000000a0","FFMA R1, R2, R3, -R4","30","25","5","32","20"\n'
                '"0x7f00000000b0","SYNCS.PHASECHK.TRANS64 P0, [R2]","50","0","50","1","0"\n')
        everything = self.run_tool(KERNEL + header + rows)
        self.assertIn("2 instructions, 80 stall samples", everything.stdout)
        consumers = self.run_tool(KERNEL + header + rows, "--min-threads", "2")
        self.assertEqual(consumers.returncode, 0, consumers.stderr)
        self.assertIn("1 instructions, 30 stall samples", consumers.stdout)
        self.assertNotIn("SYNCS", consumers.stdout)
        self.assertEqual(self.run_tool(KERNEL + HEADER + ROWS, "--min-threads", "2").returncode, 2)

    def test_no_table_and_unknown_reason_fail(self):
        self.assertNotEqual(self.run_tool(KERNEL).returncode, 0)
        self.assertEqual(self.run_tool(KERNEL + HEADER + ROWS, "stall_nothing").returncode, 2)


if __name__ == "__main__":
    unittest.main()
