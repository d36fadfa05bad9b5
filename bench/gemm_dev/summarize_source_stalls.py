"""Where a kernel's warps wait, per SASS instruction, from Nsight Compute's source page exported as
CSV (bench/gemm_dev/probe.sh with PTXB_PROBE_NCU=1 writes OUT/NAME.source.csv): the share of the
stall samples per reason, then the instructions with the most samples of the reasons named.
Usage: python3 bench/gemm_dev/summarize_source_stalls.py NAME.source.csv [REASON ...] [--top N]
         [--min-threads T]
  REASON: a column such as stall_long_sb or stall_dispatch (default: stall_long_sb)
  --min-threads T: only instructions that executed with T or more threads on average, e.g. 2 to
    leave out a warp-specialized kernel's single-thread producer code (its waits for a free stage
    are harmless and can outweigh the consumers' stalls)"""
import argparse
import csv
import io
import pathlib
import sys

ALL = "Warp Stall Sampling (All Samples)"
THREADS = "Avg. Threads Executed"


def number(text: str) -> float:
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return 0.0


def read_rows(path: str) -> tuple[list[str], list[list[str]]]:
    """The header and the instruction rows of the export's first table (ncu writes a kernel-name
    line before each table).
    NOTE: the device image's ncu exported a kernel's source page twice, kernel-name line and all
    (--page source --csv --print-source sass -k on a report of two kernels): reading every table
    counted each instruction twice (the shares unchanged, every total and top entry doubled)."""
    lines = pathlib.Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith('"Address"')]
    if not starts:
        raise SystemExit(f"{path}: no instruction table (ncu's source page) in it")
    end = starts[1] if len(starts) > 1 else len(lines)
    rows = list(csv.reader(io.StringIO("\n".join(lines[starts[0]:end]))))
    header = rows[0]
    return header, [r for r in rows[1:] if len(r) == len(header)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("csv")
    parser.add_argument("reasons", nargs="*", default=["stall_long_sb"])
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--min-threads", type=float)
    args = parser.parse_args()
    header, rows = read_rows(args.csv)
    column = {name: i for i, name in enumerate(header)}
    if args.min_threads is not None:
        if THREADS not in column:
            print(f"no column {THREADS} to select by", file=sys.stderr)
            return 2
        rows = [r for r in rows if number(r[column[THREADS]]) >= args.min_threads]
    for reason in args.reasons:
        if reason not in column:
            print(f"no column {reason}; stall columns: "
                  + ", ".join(h for h in header if h.startswith("stall_")), file=sys.stderr)
            return 2
    total = sum(number(r[column[ALL]]) for r in rows)
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    shares = sorted(((sum(number(r[column[h]]) for r in rows), h) for h in reasons), reverse=True)
    print(f"{len(rows)} instructions, {total:.0f} stall samples")
    print("  " + ", ".join(f"{h} {100 * n / total:.1f}%" for n, h in shares[:8] if n > 0))
    for reason in args.reasons:
        print(f"most {reason}:")
        for r in sorted(rows, key=lambda r: -number(r[column[reason]]))[:args.top]:
            print(f"  {r[column['Address']][-5:]}  {number(r[column[reason]]):6.0f} of "
                  f"{number(r[column[ALL]]):6.0f}  {r[column['Source']].strip()[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
