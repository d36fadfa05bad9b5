"""The expert GEMM's tile heuristics decide from the device and the dims, never from a shape the
benchmark happens to time: the functions below may hold no integer literal but 0, 1 and 2 (sizes
come from named constants such as kBlockM or kMinKBlocksPerSplit). A literal such as 8192 or 128
in them would tune the expert to the task's shapes. Also checks that the check finds one.
Run: python3 tests/structure/test_expert_heuristics.py"""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# (expert file, heuristic functions: the signature's start)
HEURISTICS = [
    ("kernels/gemm/sm90_gemm_bf16_tma_ws_gemm.cuh", ["SplitK split_k(", "int balanced_ctas("]),
    ("kernels/gemm/sm90_gemm_bf16_narrow.cuh", ["NarrowPlan plan_narrow("]),
    ("kernels/reference/sm90_gemm_bf16_wgmma_tma.cu",
     ["SplitK split_k(", "NarrowPlan plan_narrow(", "int balanced_ctas("]),
    ("kernels/reference/sm90_gemm_bf16_llm.cu",
     ["SplitK split_k(", "NarrowPlan plan_narrow(", "int balanced_ctas("]),
    ("kernels/reference/sm90_gemm_fp8_e4m3.cu", ["bool use_narrow("]),
    ("kernels/gemm/sm90_gemm_bf16_tail_reduce.cuh", ["TailSchedule ring_tail_schedule("]),
    ("kernels/reference/sm90_gemm_bf16_wgmma.cu", ["SplitK split_k("]),
]
ALLOWED = {"0", "1", "2"}
LITERAL = re.compile(r"(?<![\w.])(\d+)(?:[uUlL]*)(?![\w.])")


def function_body(text: str, signature: str) -> str:
    """The text of the function starting at `signature`, from its first '{' to the matching '}'."""
    start = text.index(signature)
    open_at = text.index("{", start)
    depth = 0
    for i in range(open_at, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[open_at:i + 1]
    raise ValueError(f"unbalanced braces after {signature}")


def shape_literals(body: str) -> list[str]:
    code = "\n".join(line.split("//")[0] for line in body.splitlines())
    return [m.group(1) for m in LITERAL.finditer(code) if m.group(1) not in ALLOWED]


class ExpertHeuristics(unittest.TestCase):
    def test_no_shape_literal_in_the_tile_heuristics(self):
        for path, signatures in HEURISTICS:
            text = (ROOT / path).read_text()
            for signature in signatures:
                with self.subTest(path=path, function=signature):
                    self.assertEqual(shape_literals(function_body(text, signature)), [])

    def test_the_check_finds_a_shape_literal(self):
        body = function_body("int f(int m) {\n  if (m == 128) return 4;  // 8192 in a comment\n"
                             "  return m > 2 ? 1 : 0;\n}\n", "int f(")
        self.assertEqual(shape_literals(body), ["128", "4"])


if __name__ == "__main__":
    unittest.main()
