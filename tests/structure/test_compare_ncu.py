"""bench/gemm_dev/compare_ncu.py on small exports of Nsight Compute's raw page: one column per
report (its first kernel row), and with --every-kernel one per kernel row, the evidence marker
and FLOP-control kernels left out and the rows after each marker counted as the next shape;
values in the labels' units.
Run: python3 tests/structure/test_compare_ncu.py"""

import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "bench" / "gemm_dev" / "compare_ncu.py"

HEADER = ('"ID","Kernel Name","gpu__time_duration.sum","launch__grid_size",'
          '"sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",'
          '"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"\n'
          '"","","msecond","","","ratio"\n')
ROWS = ('"0","ptxb_flop_control","0.003","1","0","0.1"\n'
        '"1","void cudnn::dot<1, 128>(const void *)","0.09","32768","0","0.2"\n'
        '"2","lib_bprop_kernel0","2.294","132","1374000000000","0.9"\n'
        '"3","ptxb_evidence_marker","0.002","1","0","0.1"\n'
        '"4","lib_bprop_kernel0","1.302","132","729500000000","0.8"\n')
EXPERT = ('"0","void (anonymous namespace)::dkdv_kernel<128, false, false>(Maps, Params)",'
          '"1.494","2048","1100000000000","1.3"\n')


class CompareNcu(unittest.TestCase):
    def run_tool(self, files, *args):
        paths = []
        for name, text in files:
            path = pathlib.Path(tempfile.mkdtemp()) / f"{name}.raw.csv"
            path.write_text(text)
            paths.append(str(path))
        done = subprocess.run([sys.executable, str(TOOL), *paths, *args], capture_output=True,
                              text=True, check=False)
        for p in paths:
            pathlib.Path(p).unlink()
        return done

    def test_first_row_of_each_report(self):
        done = self.run_tool([("lib", HEADER + ROWS), ("expert", HEADER + EXPERT)])
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0].split(), ["metric", "lib", "expert"])
        duration = next(line for line in lines if line.startswith("duration us"))
        self.assertEqual(duration.split()[2:], ["3", "1494"])

    def test_every_kernel_with_shapes(self):
        done = self.run_tool([("lib", HEADER + ROWS), ("expert", HEADER + EXPERT)],
                             "--every-kernel")
        self.assertEqual(done.returncode, 0, done.stderr)
        header = done.stdout.splitlines()[0]
        for label in ("lib#1 s1 dot", "lib#2 s1 lib_bprop_kernel0", "lib#4 s2 lib_bprop_kernel0",
                      "expert#0 s1 dkdv_kernel"):
            self.assertIn(label, header)
        self.assertNotIn("ptxb_", header)
        duration = next(line for line in done.stdout.splitlines()
                        if line.startswith("duration us"))
        self.assertEqual(duration.split()[2:], ["90", "2294", "1302", "1494"])
        ops = next(line for line in done.stdout.splitlines() if line.startswith("bf16->fp32"))
        self.assertEqual(ops.split()[3:], ["0", "1.374e+12", "7.295e+11", "1.1e+12"])

    def test_no_table_fails(self):
        self.assertNotEqual(self.run_tool([("x", "no table\n")]).returncode, 0)


if __name__ == "__main__":
    unittest.main()
