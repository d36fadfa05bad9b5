"""FSDP2 on CPU (gloo) with the tiny Qwen3.6-architecture model: what accelerate cannot run
without GPUs (it turns `use_cpu` into plain data parallelism). Every process loads the model,
wraps each decoder layer and then the root with `fully_shard` (the shipped config's
TRANSFORMER_BASED_WRAP on `Qwen3_5DecoderLayer`), and trains STEPS steps of AdamW on the same
global batches (each rank its share); rank 0 writes the losses, the share of parameters held as
shards, and a sharded checkpoint round trip (torch.distributed.checkpoint: saved, loaded into a
freshly sharded model, logits compared). Run with one process it trains the unsharded model on
the whole batches: the reference the sharded losses must match.

Usage: torchrun --nproc_per_node N bench/fsdp2_cpu_smoke.py MODEL_DIR TRAIN_JSONL OUT_JSON
  [--steps 10] [--tokens 2048]"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import tempfile

import torch
import torch.distributed as dist


def batches(tokenizer, rows_file: str, steps: int, tokens: int) -> list[torch.Tensor]:
    """`steps` global batches of 2 sequences of `tokens` tokens each (2 per step whatever the
    process count, split between ranks), cut from the rendered training rows in order."""
    with open(rows_file) as f:
        rows = [json.loads(line) for line in f]
    text = "".join(r["prompt"][-1]["content"] + r["completion"][0]["content"] for r in rows)
    ids = tokenizer(text, return_tensors="pt").input_ids[0]
    need = steps * 2 * tokens
    ids = ids.repeat(need // ids.numel() + 1)[:need]
    return list(ids.view(steps, 2, tokens))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("rows")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--tokens", type=int, default=2048)
    args = ap.parse_args()
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor import DTensor
    from transformers import AutoModelForCausalLM, AutoTokenizer

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo")
    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(args.model)

    def load():
        model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
        if world > 1:
            mesh = dist.device_mesh.init_device_mesh("cpu", (world,))
            for layer in model.model.layers:
                fully_shard(layer, mesh=mesh)
            fully_shard(model, mesh=mesh)
        return model

    model = load()
    optim = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    losses = []
    for batch in batches(tokenizer, args.rows, args.steps, args.tokens):
        mine = batch if world == 1 else batch[rank::world]
        loss = model(input_ids=mine, labels=mine).loss
        loss.backward()  # FSDP2 averages the gradients over ranks: the whole batch's mean
        optim.step()
        optim.zero_grad()
        total = loss.detach().clone()
        if world > 1:
            dist.all_reduce(total)
            total /= world
        losses.append(total.item())
    share = sum(p.numel() for p in model.parameters() if isinstance(p, DTensor)) / sum(
        p.numel() for p in model.parameters())
    probe = batch[:1, :256]
    model.eval()
    with torch.no_grad():
        logits = model(input_ids=probe).logits
    round_trip = None
    if world > 1:  # a sharded checkpoint, loaded into a fresh sharded model
        import torch.distributed.checkpoint as dcp
        from torch.distributed.checkpoint.state_dict import (
            get_model_state_dict,
            set_model_state_dict,
        )

        folder = [tempfile.mkdtemp(prefix="fsdp2-dcp-") if rank == 0 else None]
        dist.broadcast_object_list(folder)
        dcp.save(get_model_state_dict(model), checkpoint_id=folder[0])
        fresh = load()
        state = get_model_state_dict(fresh)
        dcp.load(state, checkpoint_id=folder[0])
        set_model_state_dict(fresh, state)
        fresh.eval()
        with torch.no_grad():
            again = fresh(input_ids=probe).logits
        round_trip = (again - logits).abs().max().item()
        files = sorted(p.name for p in pathlib.Path(folder[0]).iterdir())
    if rank == 0:
        pathlib.Path(args.out).write_text(json.dumps({
            "processes": world, "losses": losses, "sharded_parameter_share": share,
            "checkpoint_round_trip_max_abs_logit_diff": round_trip,
            "checkpoint_files": files if world > 1 else None,
            "torch": torch.__version__}, indent=2) + "\n")
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
