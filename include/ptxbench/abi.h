/* PTXBench submission ABI, version 1. The only header a submission needs from PTXBench.
 *
 * A submission is one CUDA C++ source file that PTXBench compiles itself into a shared object.
 * It must export (extern "C"):
 *
 *   int ptxb_run(const ptxb_args* args);            required: launch the work on args->stream
 *   int ptxb_plan(const ptxb_problem* problem,      optional: per-shape preparation, no data
 *                 uint64_t* workspace_bytes);                  pointers, never timed
 *
 * Contract:
 * - ptxb_plan is called once per problem shape before any ptxb_run for that shape. It may set
 *   kernel attributes, choose tile configurations and report the workspace it needs (at most
 *   PTXB_MAX_WORKSPACE_BYTES). It receives no data pointers, so it cannot precompute outputs.
 *   Kernels it launches to autotune go to the default stream (it gets no stream) and work on
 *   memory of its own (__device__ arrays: it may not allocate); the harness waits for them.
 * - ptxb_run enqueues all device work on args->stream and returns without synchronizing. The
 *   harness times it with events on that stream. It must not allocate device memory, create
 *   streams, or launch work on other streams.
 * - Inputs are read-only. Outputs hold NaN before every call; every output element must be
 *   written. The workspace is uninitialised scratch owned by the caller.
 * - Return PTXB_OK (0) on success; any other value is a failure the harness reports.
 * - Shapes and strides are in elements, outermost dimension first (row-major: the last stride
 *   is 1). Pointers are at least 256-byte aligned.
 * - Tensors and scalars appear in the order the task spec lists them.
 */
#ifndef PTXBENCH_ABI_H_
#define PTXBENCH_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTXB_ABI_VERSION 1u
#define PTXB_MAX_RANK 8
#define PTXB_MAX_WORKSPACE_BYTES (256ull << 20)
#define PTXB_OK 0

typedef enum ptxb_dtype {
  PTXB_BF16 = 1,
  PTXB_F16 = 2,
  PTXB_F32 = 3,
  PTXB_F8E4M3 = 4,
  PTXB_F8E5M2 = 5,
  PTXB_F64 = 6,
  PTXB_I32 = 7, /* integer inputs: offsets, lengths, page tables (values set by the task) */
  PTXB_I64 = 8
} ptxb_dtype;

typedef struct ptxb_tensor_desc {
  int32_t dtype; /* a ptxb_dtype */
  int32_t rank;
  int64_t shape[PTXB_MAX_RANK];   /* elements, outermost first */
  int64_t strides[PTXB_MAX_RANK]; /* elements */
} ptxb_tensor_desc;

typedef struct ptxb_problem {
  uint32_t abi_version; /* PTXB_ABI_VERSION */
  int32_t num_inputs;
  int32_t num_outputs;
  int32_t num_scalars;
  const ptxb_tensor_desc* inputs;
  const ptxb_tensor_desc* outputs;
  const double* scalars; /* e.g. softmax scale; GEMM tasks have none */
} ptxb_problem;

typedef struct ptxb_args {
  const ptxb_problem* problem;
  const void* const* inputs; /* device pointers, problem->num_inputs of them */
  void* const* outputs;      /* device pointers, problem->num_outputs of them */
  void* workspace;           /* device memory of workspace_bytes, or NULL */
  uint64_t workspace_bytes;
  void* stream; /* a cudaStream_t owned by the caller */
} ptxb_args;

typedef int (*ptxb_run_fn)(const ptxb_args* args);
typedef int (*ptxb_plan_fn)(const ptxb_problem* problem, uint64_t* workspace_bytes);

#ifdef __cplusplus
}
#endif

#endif /* PTXBENCH_ABI_H_ */
