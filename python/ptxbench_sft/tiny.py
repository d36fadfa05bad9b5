"""Offline stand-ins for tests and smoke runs: a local BPE tokenizer and a random Qwen3 model.

``make-tiny`` writes a byte-level BPE tokenizer trained here and a random-weight Qwen3-family
model to a directory that ``from_pretrained`` loads.

Nothing is downloaded. The tokenizer mirrors what the training code relies on in the real Qwen3.x
vocabulary: ``<|endoftext|>``, ``<|im_start|>``, ``<|im_end|>`` are special tokens, ``<think>`` and
``</think>`` are single (non-special) added tokens, eos is ``<|im_end|>``, pad is
``<|endoftext|>``, and the chat template is ``chat_template.jinja`` of this package.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .errors import InputError

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
THINK_TOKENS = ["<think>", "</think>"]
EOS_TOKEN = "<|im_end|>"
PAD_TOKEN = "<|endoftext|>"
CHAT_TEMPLATE_PATH = Path(__file__).with_name("chat_template.jinja")

# Pre-tokenizer split: words and numbers with an optional leading space, punctuation runs, and
# newline runs kept whole (with the blanks before them), so a prompt ending in "\n\n" tokenizes
# the same alone as when a completion follows it: the prompt/completion boundary stays a token
# boundary.
SPLIT_PATTERN = r" ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|[^\S\r\n]*[\r\n]+|\s+(?!\S)|\s+"

DEFAULT_VOCAB = {"tiny": 1024, "smoke": 16384, "large": 16384}
KINDS = ("qwen3", "qwen3_5")
SIZES = ("tiny", "smoke", "large")
DTYPES = ("float32", "bfloat16")

# A few lines of the text the models will see: CUDA, PTX, harness feedback, chat framing.
BUILTIN_CORPUS = [
    "#include <cuda_bf16.h>\n#include <cuda_runtime.h>\n#include <cstdint>\n",
    "__global__ void gemm_kernel(const __nv_bfloat16* __restrict__ A,\n"
    "    const __nv_bfloat16* __restrict__ B, float* C, int M, int N, int K) {\n"
    "  int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (row >= M || col >= N) return;\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < K; ++k) acc += __bfloat162float(A[row * K + k]) * "
    "__bfloat162float(B[k * N + col]);\n"
    "  C[row * N + col] = acc;\n}\n",
    "extern \"C\" __global__ void __launch_bounds__(128)\n"
    "attention_fwd(const float* q, float* o) {\n"
    "  __shared__ float smem[128][64];\n  __syncthreads();\n}\n",
    "asm volatile(\"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1}, %2, %3;\\n\"\n"
    "             : \"+f\"(d0), \"+f\"(d1) : \"l\"(desc_a), \"l\"(desc_b));\n",
    "asm volatile(\"wgmma.fence.sync.aligned;\\n\" ::: \"memory\");\n"
    "asm volatile(\"wgmma.commit_group.sync.aligned;\\n\" ::: \"memory\");\n"
    "asm volatile(\"wgmma.wait_group.sync.aligned 0;\\n\" ::: \"memory\");\n",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
    "[%0], [%1, {%2, %3}], [%4];\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
    "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n",
    "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];\n"
    "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n",
    "```cuda\n__global__ void add(float* x, const float* y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] += y[i];\n}\n```\n",
    "You are an expert GPU kernel engineer. Write a CUDA kernel for the task below.\n",
    "PTXBench judged your previous answer:\n\nVerdict: incorrect\nmax abs error 3.2e-01 at "
    "index 17 (expected 1.0, got 0.68)\nThe kernel compiled, but the output is wrong.\n",
    "Verdict: compile_error\nerror: identifier \"__nv_bfloat16\" is undefined\n",
    "Verdict: slow\nspeedup 0.42x against cuBLAS at M=4096 N=4096 K=4096\n",
    "The bug was a missing __syncthreads() between the shared-memory store and the load; "
    "the fixed kernel follows.\n",
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nFix the kernel.<|im_end|>\n"
    "<|im_start|>assistant\n<think>\nThe index is off by one.\n</think>\n\n"
    "Here is the fix.<|im_end|>\n",
]


# --------------------------------------------------------------------------- tokenizer


def chat_template() -> str:
    """The package's ChatML template (Qwen3-family rendering), see ``chat_template.jinja``."""
    return CHAT_TEMPLATE_PATH.read_text(encoding="utf-8")


def row_texts(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Every message text of SFT rows (prompt and completion content and reasoning)."""
    for row in rows:
        for message in list(row.get("prompt") or []) + list(row.get("completion") or []):
            for key in ("content", "reasoning_content"):
                text = message.get(key)
                if isinstance(text, str) and text:
                    yield text


def build_tokenizer(corpus_texts: Iterable[str], out_dir: str | Path | None = None,
                    vocab_size: int = DEFAULT_VOCAB["tiny"]):
    """Train a byte-level BPE on ``corpus_texts`` + the built-in corpus and wrap it as a
    transformers fast tokenizer with the package chat template; saved to ``out_dir`` if given."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SPLIT_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator([*BUILTIN_CORPUS, *corpus_texts], trainer)
    # NOTE: as in the Qwen3.x vocabulary, the think markers are added tokens but not special ones,
    # so decode(skip_special_tokens=True) keeps them.
    tok.add_tokens([AddedToken(t, normalized=False, special=False) for t in THINK_TOKENS])
    hf = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS_TOKEN, pad_token=PAD_TOKEN)
    hf.chat_template = chat_template()
    if out_dir is not None:
        hf.save_pretrained(str(out_dir))
    return hf


# --------------------------------------------------------------------------- model


def _dims(size: str) -> dict[str, int]:
    """Shared shape of a size; "smoke" is ~150M parameters with a 16K vocabulary; "large" has
    Qwen3.6-27B's width (hidden 5120, MLP 17408, 40 heads of 128, 8 KV heads) and half its depth:
    ~11.8B parameters in the hybrid form, too many for full fine-tuning on one 141 GB GPU (bf16
    weights and gradients plus fp32 master weights and Adam moments: 16 bytes a parameter)."""
    if size == "tiny":
        return dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, head_dim=16)
    if size == "smoke":
        return dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=12,
                    num_attention_heads=16, num_key_value_heads=8, head_dim=64)
    if size == "large":
        return dict(hidden_size=5120, intermediate_size=17408, num_hidden_layers=32,
                    num_attention_heads=40, num_key_value_heads=8, head_dim=128)
    raise ValueError(f"unknown size {size!r}, expected one of {SIZES}")


def hybrid_available() -> bool:
    """Whether this transformers has the Qwen3.5/3.6 hybrid Gated-DeltaNet text model."""
    try:
        from transformers import Qwen3_5ForCausalLM, Qwen3_5TextConfig  # noqa: F401
    except ImportError:
        return False
    return True


def build_config(tokenizer, kind: str = "qwen3", size: str = "tiny"):
    """Config of a random model sized for ``tokenizer``; token ids follow the tokenizer."""
    dims = _dims(size)
    common = dict(vocab_size=len(tokenizer), max_position_embeddings=65536,
                  eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                  bos_token_id=None, tie_word_embeddings=False, **dims)
    if kind == "qwen3":
        from transformers import Qwen3Config

        return Qwen3Config(**common)
    if kind == "qwen3_5":
        if not hybrid_available():
            raise InputError("kind qwen3_5 needs a transformers with Qwen3_5TextConfig")
        from transformers import Qwen3_5TextConfig

        layers = dims["num_hidden_layers"]
        # Alternate linear (Gated DeltaNet) and full attention, ending on full attention.
        layer_types = ["linear_attention" if i % 2 == 0 else "full_attention"
                       for i in range(layers)]
        heads = dims["num_attention_heads"]
        return Qwen3_5TextConfig(layer_types=layer_types, linear_num_key_heads=heads // 2,
                                 linear_num_value_heads=heads, linear_key_head_dim=dims["head_dim"],
                                 linear_value_head_dim=dims["head_dim"], **common)
    raise ValueError(f"unknown kind {kind!r}, expected one of {KINDS}")


def build_model(tokenizer, kind: str = "qwen3", size: str = "tiny", seed: int = 0,
                dtype: str = "float32"):
    """A random-weight causal LM (``Qwen3ForCausalLM`` or ``Qwen3_5ForCausalLM``) in ``dtype``
    (bfloat16 halves the memory and the saved size of a large model)."""
    import torch
    from transformers import AutoModelForCausalLM

    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}, expected one of {DTYPES}")
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(build_config(tokenizer, kind, size),
                                             dtype=getattr(torch, dtype))
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def make_tiny(out: str | Path, kind: str = "qwen3", size: str = "tiny",
              corpus_rows: Iterable[dict[str, Any]] = (),
              vocab_size: int | None = None, dtype: str = "float32") -> dict[str, Any]:
    """Write tokenizer + random model to ``out``; the tokenizer also learns the corpus rows."""
    tokenizer = build_tokenizer(list(row_texts(corpus_rows)), out,
                                vocab_size or DEFAULT_VOCAB[size])
    model = build_model(tokenizer, kind, size, dtype=dtype)
    model.save_pretrained(str(out))
    return {"out": str(out), "kind": kind, "size": size, "dtype": dtype, "vocab": len(tokenizer),
            "params": sum(p.numel() for p in model.parameters())}


# --------------------------------------------------------------------------- CLI


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--kind", choices=KINDS, default="qwen3")
    p.add_argument("--size", choices=SIZES, default="tiny")
    p.add_argument("--corpus", default=None, metavar="TRAIN_JSONL",
                   help="SFT rows (build-data train.jsonl) whose texts the tokenizer learns")
    p.add_argument("--vocab-size", type=int, default=None, metavar="N",
                   help="BPE vocabulary target; default 1024 (tiny) or 16384 (smoke, large)")
    p.add_argument("--dtype", choices=DTYPES, default="float32",
                   help="the weights' type (bfloat16 for the large size: 24 GB instead of 47)")


def run_cli(args: argparse.Namespace) -> int:
    from .train import read_rows  # validates the rows; InputError on bad input

    rows = read_rows(args.corpus) if args.corpus else []
    print(json.dumps(make_tiny(args.out, args.kind, args.size, rows, args.vocab_size,
                               args.dtype), sort_keys=True))
    return 0
