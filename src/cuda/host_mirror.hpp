// Host copies of small integer device inputs (group offsets), kept where the worker's trusted code
// uploads them, so that a library baseline can be handed the group sizes on the host (the
// harness's advantage over a candidate, which sees them on the device only; docs/tasks.md)
// without reading device memory inside its timed call. Keyed by device address. Not thread-safe:
// the worker uses it from its one thread.
#pragma once

#include <cstdint>
#include <vector>

namespace ptxb {

/// Records `values` as the current contents of the device buffer at `device`.
void mirror_host_integers(const void* device, std::vector<int64_t> values);
/// The recorded contents of the buffer at `device`, nullptr when none is recorded.
const std::vector<int64_t>* mirrored_host_integers(const void* device);
/// Drops the record of `device` (its buffer is freed or rewritten another way).
void forget_mirror(const void* device);

}  // namespace ptxb
