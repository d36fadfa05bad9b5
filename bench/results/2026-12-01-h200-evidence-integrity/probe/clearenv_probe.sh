export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:$LD_LIBRARY_PATH
m="sass__inst_executed_per_opcode_with_modifier_all,sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_fma.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
for w in early late; do
  PROBE_CLEARENV=$w timeout 120 ncu --clock-control none --profile-from-start off --metrics $m --csv --log-file $OUT/env_$w.csv .carry/bin/ptxbench-range-probe $PWD/tasks .carry/expert_tma.so ncu > $OUT/env_$w.log 2>&1
  echo "clearenv $w: exit $? kernels $(grep -c gmma $OUT/env_$w.csv) $(grep -E 'ERROR' $OUT/env_$w.csv $OUT/env_$w.log | head -2)"
done
