# Check of the attention-shape refactor: GPU tests and the attention experts' evals.
export PATH=/usr/local/cuda/bin:$PATH PTXBENCH_HOME=$PWD PTXBENCH_TASKS_DIR=$PWD/tasks PTXBENCH_CACHE_DIR=/tmp/vc
b=.carry/bin; o=$OUT
timeout 240 $b/ptxbench_gpu_tests > $o/gpu_tests.log 2>&1; echo "gpu tests exit $?"; tail -1 $o/gpu_tests.log
timeout 150 $b/ptxbench eval kernels/reference/sm90_attention_fwd_bf16.cu --task sm90/attention/fwd-bf16 \
  --no-evidence --json-out $o/eval_fwd.json > $o/eval_fwd.txt 2>&1; echo "eval fwd exit $?"; grep -E "outcome|TFLOP" $o/eval_fwd.txt | head -8
