"""Compares CUPTI SASS-metric records of one call with Nsight Compute's per-opcode counts.

RECORDS: function, PC offset, warp and thread counts per line, tab separated
(bench/probes/sass_metrics_gemm_probe.cu). LISTING: `cuobjdump -sass` of the same shared object.
NCU_CSV: `ncu --csv --print-metric-instances details --metrics
sass__inst_executed_per_opcode_with_modifier_all` of the same call, and optionally the
thread-level class counts smsp__sass_thread_inst_executed_op_CLASS_pred_on.sum. Prints, per
kernel, both warp-instruction totals and every opcode whose counts differ (the first token of the
listing's instruction at each PC, predicate left out), then every class ncu reported with the
records' thread counts summed over the opcodes src/instrument/sass_profile.cpp assigns to it.
Exit 0 when every kernel of the ncu log matches in both.
Usage: python3 compare_sass_records.py LISTING RECORDS NCU_CSV
"""

import csv
import re
import sys
from collections import Counter, defaultdict

OPCODE_METRIC = "sass__inst_executed_per_opcode_with_modifier_all"
CLASS_METRIC = re.compile(
    r"^smsp__sass_thread_inst_executed_op_([a-z0-9]+)_pred_on\.sum$"
)
# The opcode's first part -> class, as src/instrument/sass_profile.cpp's flop_class_of.
CLASS_OF = {
    "FFMA": "ffma",
    "FFMA32I": "ffma",
    "FMUL": "fmul",
    "FMUL32I": "fmul",
    "FADD": "fadd",
    "FADD32I": "fadd",
    "HFMA2": "hfma",
    "HFMA2_32I": "hfma",
    "HMUL2": "hmul",
    "HMUL2_32I": "hmul",
    "HADD2": "hadd",
    "HADD2_32I": "hadd",
    "DFMA": "dfma",
    "DMUL": "dmul",
    "DADD": "dadd",
}
INSTRUCTION = re.compile(
    r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]\s+)?([A-Z][A-Za-z0-9_.]*)"
)


def base_name(name: str) -> str:
    """The kernel's own identifier in a mangled or demangled name."""
    if name.startswith("_Z"):
        # the first length-prefixed identifier that is not an anonymous namespace's
        at = 3 if name.startswith("_ZN") else 2
        while at < len(name) and name[at].isdigit():
            end = at
            while name[end].isdigit():
                end += 1
            ident = name[end : end + int(name[at:end])]
            if not ident.startswith("_GLOBAL__N"):
                return ident
            at = end + len(ident)
        return name
    return name.split("(")[0].split("::")[-1]


def listing_opcodes(path: str) -> dict:
    """(function base name, PC offset) -> opcode token."""
    out, function = {}, None
    with open(path) as f:
        for line in f:
            if "Function : " in line:
                function = base_name(line.split("Function : ")[1].strip())
                continue
            m = INSTRUCTION.match(line)
            if m and function:
                out[(function, int(m.group(1), 16))] = m.group(2)
    return out


def record_counts(records: str, opcodes: dict) -> tuple:
    """Function base name -> Counter of warp executions per opcode, and -> Counter of thread
    executions per class."""
    counts, classes = defaultdict(Counter), defaultdict(Counter)
    with open(records) as f:
        for line in f:
            function, pc, executed, threads = line.rstrip("\n").split("\t")
            name = base_name(function)
            opcode = opcodes.get((name, int(pc)), f"?pc{pc}")
            counts[name][opcode] += int(executed)
            cls = CLASS_OF.get(opcode.split(".")[0])
            if cls:
                classes[name][cls] += int(threads)
    return counts, classes


def ncu_counts(path: str) -> tuple:
    """Kernel base name -> Counter of opcodes summed over the kernel's launches, and -> Counter of
    the class metrics ncu reported."""
    counts, classes = defaultdict(Counter), defaultdict(Counter)
    with open(path) as f:
        rows = [line for line in f if line.startswith('"')]
    for row in csv.DictReader(rows):
        cls = CLASS_METRIC.match(row.get("Metric Name", ""))
        if cls:
            value = float(row["Metric Value"].replace(",", ""))
            classes[base_name(row["Kernel Name"])][cls.group(1)] += int(value)
            continue
        if row.get("Metric Name") != OPCODE_METRIC:
            continue
        value = row["Metric Value"]
        inside = value[value.find("(") + 1 : value.rfind(")")] if "(" in value else ""
        for item in filter(None, (p.strip() for p in inside.split(";"))):
            opcode, n = item.rsplit(":", 1)
            counts[base_name(row["Kernel Name"])][opcode.strip()] += int(
                n.replace(",", "")
            )
    return counts, classes


def main() -> int:
    listing, records, ncu = sys.argv[1:4]
    mine, mine_classes = record_counts(records, listing_opcodes(listing))
    theirs, their_classes = ncu_counts(ncu)
    ok = True
    for kernel in sorted(set(mine) | set(theirs)):
        a, b = mine.get(kernel, Counter()), theirs.get(kernel, Counter())
        diff = {k: (a[k], b[k]) for k in set(a) | set(b) if a[k] != b[k]}
        same = not diff
        ok = ok and same
        print(
            f"{kernel}: cupti {sum(a.values())} ncu {sum(b.values())} "
            f"{'same per opcode' if same else f'{len(diff)} opcodes differ'}"
        )
        for k, (x, y) in sorted(diff.items(), key=lambda kv: -abs(kv[1][0] - kv[1][1]))[
            :8
        ]:
            print(f"  {k}: cupti {x} ncu {y}")
    for kernel in sorted(their_classes):
        a, b = mine_classes.get(kernel, Counter()), their_classes[kernel]
        diff = {c: (a[c], b[c]) for c in b if a[c] != b[c]}
        ok = ok and not diff
        listed = " ".join(f"{c} {b[c]}" for c in sorted(b) if b[c])
        print(
            f"{kernel} classes (ncu): {listed or 'all 0'}: "
            f"{'same' if not diff else 'differ: ' + str(diff)}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
