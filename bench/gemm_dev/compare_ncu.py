"""Kernels side by side from Nsight Compute's raw page exported as CSV (bench/gemm_dev/probe.sh
with PTXB_PROBE_NCU=1 writes OUT/NAME.raw.csv, PTXB_PROBE_NCU_LIBRARY=1 also OUT/cublaslt.raw.csv):
one row per metric of a fixed list (time, clock, pipes, memory, warp stalls per issued
instruction), one column per file. A metric a report lacks prints as "-". With --every-kernel, one
column per kernel row of each file (REPORT#ROW sSHAPE NAME: SHAPE counts the evidence markers
before the row, plus one), the marker and FLOP-control kernels (names starting "ptxb_") left out: a
library call of several kernels beside an expert's.
Usage: python3 bench/gemm_dev/compare_ncu.py A.raw.csv B.raw.csv ... [--stalls N] [--every-kernel]"""
import argparse
import csv
import pathlib
import sys

# (label, metric): the metrics that tell a tensor-core GEMM's limiter apart.
METRICS = [
    ("duration us", "gpu__time_duration.sum"),
    ("SM clock MHz", "smsp__cycles_elapsed.avg.per_second"),
    ("grid", "launch__grid_size"),
    ("registers/thread", "launch__registers_per_thread"),
    ("shared KB/block", "launch__shared_mem_per_block_dynamic"),
    ("tensor pipe % of active", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"),
    ("tensor pipe % of elapsed", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("SM busy %", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("issue active %", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("warp instr executed", "smsp__inst_executed.sum"),
    ("DRAM %", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
    ("DRAM read GB", "dram__bytes_read.sum"),
    ("DRAM write GB", "dram__bytes_write.sum"),
    ("wgmma (warp instr)", "sm__inst_executed_pipe_tensor_op_gmma.sum"),
    ("bf16->fp32 tensor ops", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"),
    ("global red (warp instr)", "smsp__inst_executed_op_global_red.sum"),
    ("TMA red (instr)", "smsp__sass_inst_executed_op_tma_red.sum"),
    ("L2 red sectors", "lts__t_sectors_op_red.sum"),
    ("L2 atom sectors", "lts__t_sectors_op_atom.sum"),
    ("L2 hit %", "lts__t_sector_hit_rate.pct"),
    ("L2 % of peak", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("L2->SM read GB", "lts__t_sectors_srcunit_tex_op_read.sum"),
    ("L2->L1 read GB", "l1tex__m_xbar2l1tex_read_bytes.sum"),
    ("shared (LSU) %", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"),
    ("shared bank reads %", "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed"),
    ("shared bank writes %", "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed"),
    ("L1 throughput %", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
]
STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_SUFFIX = "_per_issue_active.ratio"


def read_rows(path: str) -> list[dict[str, tuple[str, str]]]:
    """metric -> (value, unit) of each kernel row of one raw-page export, in launch order."""
    lines = pathlib.Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise SystemExit(f"{path}: no raw-page table (ncu --page raw --csv) in it")
    rows = list(csv.reader(lines[start:]))
    if len(rows) < 3:
        raise SystemExit(f"{path}: no kernel row (did the kernel filter match?)")
    header, units = rows[0], rows[1]
    return [{h: (r[i], units[i]) for i, h in enumerate(header) if i < len(r)} for r in rows[2:] if r]


def short_name(kernel: str) -> str:
    """A kernel's name without its return type, namespaces, template arguments or parameters."""
    name = kernel.removeprefix("void ")
    for anonymous in ("(anonymous namespace)::", "<unnamed>::"):
        name = name.replace(anonymous, "")
    return name.split("(")[0].split("<")[0].split("::")[-1][:28]


# The label's unit for each metric printed in one, and the factor of each unit ncu writes.
TARGET_UNIT = {"gpu__time_duration.sum": 1e-6, "smsp__cycles_elapsed.avg.per_second": 1e6,
               "launch__shared_mem_per_block_dynamic": 1024.0, "dram__bytes_read.sum": 1e9,
               "dram__bytes_write.sum": 1e9, "l1tex__m_xbar2l1tex_read_bytes.sum": 1e9}
UNIT = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3,
        "s": 1.0, "second": 1.0, "hz": 1.0, "khz": 1e3,
        "mhz": 1e6, "ghz": 1e9, "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9}


def scaled(metric: str, value: str, unit: str) -> str:
    """The value in the label's unit where the metric has one (us, MHz, KB, GB)."""
    try:
        x = float(value.replace(",", ""))
    except ValueError:
        return value
    if metric == "lts__t_sectors_srcunit_tex_op_read.sum":
        return f"{x * 32 / 1e9:.3f}"  # 32-byte sectors, in GB
    if metric in TARGET_UNIT:
        factor = UNIT.get(unit.lower().split("/")[0])
        if factor is None:
            return f"{x:.4g} {unit}"
        return f"{x * factor / TARGET_UNIT[metric]:.4g}"
    return f"{x:.4g}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--stalls", type=int, default=8, help="stall reasons shown (largest first)")
    parser.add_argument("--every-kernel", action="store_true",
                        help="a column per kernel row, not only each report's first")
    args = parser.parse_args()
    reports, names = [], []
    for path in args.reports:
        stem = pathlib.Path(path).name.removesuffix(".raw.csv")
        rows = read_rows(path)
        if not args.every_kernel:
            reports.append(rows[0])
            names.append(stem)
            continue
        shape = 1  # evidence markers (ptxbench-library-profile run) end each shape's kernels
        for i, r in enumerate(rows):
            kernel = r.get("Kernel Name", ("?", ""))[0]
            if kernel.startswith("ptxb_evidence_marker"):
                shape += 1
            if kernel.startswith("ptxb_"):
                continue
            reports.append(r)
            names.append(f"{stem}#{i} s{shape} {short_name(kernel)}")
    width = max(24, *(len(n) + 2 for n in names))
    print("metric".ljust(28) + "".join(n.rjust(width) for n in names))

    def row(label: str, metric: str) -> None:
        cells = []
        for r in reports:
            value, unit = r.get(metric, ("-", ""))
            cells.append(scaled(metric, value, unit) if value != "-" else "-")
        print(label.ljust(28) + "".join(c.rjust(width) for c in cells))

    for label, metric in METRICS:
        row(label, metric)
    stalls: dict[str, float] = {}
    for r in reports:
        for metric, (value, _) in r.items():
            if metric.startswith(STALL_PREFIX) and metric.endswith(STALL_SUFFIX):
                try:
                    stalls[metric] = max(stalls.get(metric, 0.0), float(value.replace(",", "")))
                except ValueError:
                    pass
    print("warp cycles stalled per issued instruction, by reason:")
    for metric in sorted(stalls, key=lambda m: -stalls[m])[:args.stalls]:
        row("  " + metric[len(STALL_PREFIX):-len(STALL_SUFFIX)], metric)
    return 0


if __name__ == "__main__":
    sys.exit(main())
