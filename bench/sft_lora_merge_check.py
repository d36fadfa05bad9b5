"""A saved LoRA adapter against its merged model: the base model with the adapter and the same
model after merge_and_unload give the same logits (fp32) on the first 256 tokens of the first
training row. Usage: sft_lora_merge_check.py BASE_DIR ADAPTER_DIR TRAIN_JSONL OUT_JSON"""
from __future__ import annotations

import json
import pathlib
import sys

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer


def main() -> None:
    base_dir, adapter_dir, rows, out = sys.argv[1:5]
    tokenizer = AutoTokenizer.from_pretrained(base_dir)
    with open(rows) as f:
        row = json.loads(f.readline())
    text = row["prompt"][-1]["content"] + row["completion"][0]["content"]
    ids = tokenizer(text, return_tensors="pt").input_ids[:, :256]
    base = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32)
    model = PeftModel.from_pretrained(base, adapter_dir).eval()
    trained = max(p.abs().max().item() for n, p in model.named_parameters() if "lora_B" in n)
    with torch.no_grad():
        adapter_logits = model(input_ids=ids).logits
        merged_logits = model.merge_and_unload()(input_ids=ids).logits
    pathlib.Path(out).write_text(json.dumps({
        "tokens": ids.shape[1],
        "max_abs_lora_B": trained,  # 0 would mean an adapter that never trained
        "max_abs_diff": (adapter_logits - merged_logits).abs().max().item(),
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
