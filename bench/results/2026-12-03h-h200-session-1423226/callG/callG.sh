#!/usr/bin/env bash
# Call G (the command as given to the device; the last 34 s of the session's GPU budget): the GQA
# task's expert with kWideQStepD64, one evaluation (the budget stops variants.sh before its variant).
PTXB_BUDGET_S=5 timeout 70 bench/gemm_dev/variants.sh .carry/bin-ad50de9 /tmp/g 1 bwd_gqa_narrow_qstep > /tmp/g.log 2>&1; tail -4 /tmp/g.log; mkdir -p $OUT/g; cp /tmp/g/*.json $OUT/g/ 2>/dev/null; cp /tmp/g.log $OUT/
