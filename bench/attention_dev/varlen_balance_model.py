"""How evenly the varlen forward's persistent grid spreads a batch's query tiles over the SMs: a
model, not a measurement. A tile's cost is `overhead` plus its key tiles (128 keys each; causal:
those up to its last row), the same for every head; the SMs take the tiles in the persistent
kernel's order, either fixed (slot x to CTA x mod SMs, kv-head-major as schedule_jobs numbers
them) or dynamically (the next tile to whichever SM is free first, slot-major as kDynamicSlots
numbers them; and sorted by cost, the lower bound). Prints each schedule's busiest SM against
the mean.
Usage: varlen_offsets B T S | python3 bench/attention_dev/varlen_balance_model.py H HKV BLOCK_M
         CAUSAL [SMS=132] [OVERHEAD=1.0]
  (bench/attention_dev/varlen_offsets.cpp prints the offsets PTXBench draws for a shape;
   BLOCK_M: 192 at D 64 with three consumer warpgroups, 128 at D 128)"""
import heapq
import sys

KEY_TILE = 128


def tile_costs(offsets: list[int], block_m: int, causal: bool, overhead: float) -> dict[int, float]:
    """Cost per packed slot of one head (slot b + cu_seqlens[b] // block_m + i holds the
    sequence's tile n - 1 - i, as tile_of_slot maps them)."""
    costs = {}
    for b in range(len(offsets) - 1):
        first, length = offsets[b], offsets[b + 1] - offsets[b]
        tiles = (length + block_m - 1) // block_m
        for i in range(tiles):
            m = tiles - 1 - i
            keys = min(length, (m + 1) * block_m) if causal else length
            costs[b + first // block_m + i] = overhead + (keys + KEY_TILE - 1) // KEY_TILE
    return costs


def fixed(costs: list[float], sms: int) -> float:
    load = [0.0] * sms
    for x, cost in enumerate(costs):
        load[x % sms] += cost
    return max(load)


def dynamic(costs: list[float], sms: int) -> float:
    free_at = [0.0] * sms
    for cost in costs:
        if cost > 0:
            heapq.heappush(free_at, heapq.heappop(free_at) + cost)
    return max(free_at)


def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    heads, kv_heads, block_m = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    causal = sys.argv[4] not in ("0", "false")
    sms = int(sys.argv[5]) if len(sys.argv) > 5 else 132
    overhead = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
    offsets = [int(v) for v in sys.stdin.read().split()]
    slots = offsets[-1] // block_m + len(offsets) - 1
    per_slot = tile_costs(offsets, block_m, causal, overhead)
    group = heads // kv_heads
    kv_major = [per_slot.get(s, 0.0) for kv in range(kv_heads) for s in range(slots)
                for _ in range(group)]
    slot_major = [per_slot.get(s, 0.0) for s in range(slots) for _ in range(heads)]
    mean = sum(slot_major) / sms
    print(f"{sum(1 for c in slot_major if c > 0)} tiles on {sms} SMs, mean load {mean:.1f}")
    print(f"fixed, kv-head-major:   busiest SM {fixed(kv_major, sms) / mean:.3f} x the mean")
    print(f"dynamic, slot-major:    busiest SM {dynamic(slot_major, sms) / mean:.3f} x the mean")
    print(f"dynamic, sorted (bound): busiest SM "
          f"{dynamic(sorted(slot_major, reverse=True), sms) / mean:.3f} x the mean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
