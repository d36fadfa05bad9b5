#!/usr/bin/env bash
# Variants of the GEMM experts (and of the attention ones, `attention_*` below) made by changing
# their constexpr knobs, judged by `ptxbench eval` side by side with the expert they come from,
# interleaved, N rounds; prints the cold speedups per timed shape, then each variant's over its
# expert's in the same round (mean over the rounds). A variant that beats its
# expert on every shape in every round is a candidate for the expert (change the knob in
# kernels/gemm/ or the expert, re-amalgamate).
# Usage (GPU machine, repository root): bench/gemm_dev/variants.sh BIN_DIR OUT [N] [VARIANTS]
#   VARIANTS: comma-separated names of the table below (default: all); the experts of the chosen
#   variants run too
# PTXB_BUDGET_S=S: start no evaluation once S seconds have passed (a device call's limit), and
#   still print the summary of those that ran (a timeout around the script would lose it)
# PTXB_OLD_EXPERTS=DIR: also judge DIR/sm90_gemm_NAME.cu (sm90_NAME.cu for attention_*: an
#   earlier commit's expert) as old_NAME next to each expert that runs
# PTXB_EVIDENCE_ROUNDS=R: the instruction evidence (ncu) in the first R rounds only, later rounds
#   with --no-evidence (their outcome then reads `unavailable` where a target needs R1/R2): the
#   evidence does not change between rounds, and a GEMM evaluation is about 6 s shorter without it
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" rounds="${3:-2}" only="${4:-}"
mkdir -p "$out/src"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
# Knobs (kernels/gemm/*.cuh, amalgamated into the experts; each sed must change its expert, also
# where a variant joins several with "; ").
single='s/^constexpr bool kPersistent = true;/constexpr bool kPersistent = false;/'
sharedstaging='s/^constexpr bool kOwnStaging = true;/constexpr bool kOwnStaging = false;/'
groupm8='s/^constexpr int kGroupM = 16;/constexpr int kGroupM = 8;/'
groupm32='s/^constexpr int kGroupM = 16;/constexpr int kGroupM = 32;/'
cluster2='s/^constexpr int kClusterM = 1;/constexpr int kClusterM = 2;/'
nopairs='s/^constexpr int kClusterM = 2;/constexpr int kClusterM = 1;/'
groupm16from8='s/^constexpr int kGroupM = 8;/constexpr int kGroupM = 16;/'
groupm4from8='s/^constexpr int kGroupM = 8;/constexpr int kGroupM = 4;/'
splitcluster='s/^constexpr bool kSplitCluster = false;/constexpr bool kSplitCluster = true;/'
directstore='s/^constexpr bool kTmaStoreEpilogue = true;/constexpr bool kTmaStoreEpilogue = false;/'
stages3='s/^constexpr int kStages = 4;/constexpr int kStages = 3;/'
fullstaging='s/^constexpr int kStagingCols = kBlockN \/ 2;/constexpr int kStagingCols = kBlockN;/'
persistent='s/^constexpr bool kPersistent = false;/constexpr bool kPersistent = true;/'
tmastore='s/^constexpr bool kTmaStoreEpilogue = false;/constexpr bool kTmaStoreEpilogue = true;/'
l2policy='s/^constexpr bool kSplitL2Policy = false;/constexpr bool kSplitL2Policy = true;/'
split2='s/^\[\[maybe_unused\]\] constexpr int kMinKBlocksPerSplit = 8;/[[maybe_unused]] constexpr int kMinKBlocksPerSplit = 64;/'
nooverlap='s/^constexpr bool kOverlapPromotion = true;/constexpr bool kOverlapPromotion = false;/'
nosplitk='s/^constexpr bool kSplitK = true;/constexpr bool kSplitK = false;/'
nopdl='s/^constexpr bool kSplitPdl = true;/constexpr bool kSplitPdl = false;/'
nostreamk='s/^constexpr bool kStreamKTail = true;/constexpr bool kStreamKTail = false;/'
unbalanced='s/^constexpr bool kBalancedWaves = true;/constexpr bool kBalancedWaves = false;/'
nochainpdl='s/^constexpr bool kChainPdl = true;/constexpr bool kChainPdl = false;/'
serialprefix='s/^constexpr bool kParallelPrefix = true;/constexpr bool kParallelPrefix = false;/'
noprefixpdl='s/^constexpr bool kPrefixPdl = true;/constexpr bool kPrefixPdl = false;/'
records='s/^constexpr bool kTileRecords = false;/constexpr bool kTileRecords = true;/'
loopalways='s/^constexpr int64_t kPersistentMaxK = 4096;/constexpr int64_t kPersistentMaxK = INT64_MAX;/'
loopnever='s/^constexpr int64_t kPersistentMaxK = 4096;/constexpr int64_t kPersistentMaxK = 0;/'
registerstore='s/^constexpr bool kWholeHalfTmaStore = true;/constexpr bool kWholeHalfTmaStore = false;/'
nonarrow='s/^constexpr bool kNarrowFewRows = true;/constexpr bool kNarrowFewRows = false;/'
narrowc2='s/^constexpr int kNarrowCluster = 1;/constexpr int kNarrowCluster = 2;/'
narrowaevictlast='s/^constexpr bool kNarrowAEvictLast = false;/constexpr bool kNarrowAEvictLast = true;/'
narrowstages9='s/^constexpr int kNarrowStages = 8;/constexpr int kNarrowStages = 9;/'
narrownohint='s/^constexpr bool kNarrowBEvictFirst = true;/constexpr bool kNarrowBEvictFirst = false;/'
narrowstages6='s/^constexpr int kNarrowStages = 8;/constexpr int kNarrowStages = 6;/'
directepilogue='s/^constexpr bool kStagedEpilogue = true;/constexpr bool kStagedEpilogue = false;/'
lag1='s/^constexpr int kLag = 2;/constexpr int kLag = 1;/'
prefetch2='s/^constexpr int kL2PrefetchAhead = 0;/constexpr int kL2PrefetchAhead = 2;/'
prefetch4='s/^constexpr int kL2PrefetchAhead = 0;/constexpr int kL2PrefetchAhead = 4;/'
tailfixup='s/^constexpr bool kTailFixup = false;/constexpr bool kTailFixup = true;/'
tailfirst='s/^constexpr bool kTailFirst = false;/constexpr bool kTailFirst = true;/'
lagarrival='s/^constexpr bool kArriveOnCompletion = true;/constexpr bool kArriveOnCompletion = false;/'
dbstore='s/^constexpr bool kDoubleBufferedStore = false;/constexpr bool kDoubleBufferedStore = true;/'
narrowqstep='s/^constexpr bool kWideQStepD64 = true;/constexpr bool kWideQStepD64 = false;/'
# the three kernels everywhere (the fused form and its shared-address stores off)
threekernels='s/^constexpr bool kFusedDq = true;/constexpr bool kFusedDq = false;/; s/^constexpr bool kSharedAddressStores = true;/constexpr bool kSharedAddressStores = false;/'
fuseddqstages3='s/^constexpr int kFusedDqStages = 2;/constexpr int kFusedDqStages = 3;/'
threekernelsd64='s/^constexpr bool kFusedDqD64 = true;/constexpr bool kFusedDqD64 = false;/'
d64dvoverlap='s/^constexpr bool kFusedD64DvBeforeDs = true;/constexpr bool kFusedD64DvBeforeDs = false;/'
shareddqstagings1='s/^constexpr int kSharedDqStagings = 2;/constexpr int kSharedDqStagings = 1;/'
nodqreducer='s/^constexpr bool kDqReducerWarp = true;/constexpr bool kDqReducerWarp = false;/'
nosharedstores='s/^constexpr bool kSharedAddressStores = true;/constexpr bool kSharedAddressStores = false;/'
longestfirst='s/^constexpr bool kLongestFirst = false;/constexpr bool kLongestFirst = true;/'
k1perunit='s/^constexpr bool kPersistentK1 = true;/constexpr bool kPersistentK1 = false;/'
k2perunit='s/^constexpr bool kPersistentK2 = true;/constexpr bool kPersistentK2 = false;/'
# the fused form at D 128 from S 768 as it was measured before kFusedDqMinSeqD128 (S 8192)
fusedallseq='s/^constexpr int kFusedDqMinSeqD128 = 8192;/constexpr int kFusedDqMinSeqD128 = 768;/'
k1fused='s/^constexpr bool kPersistentK1Fused = false;/constexpr bool kPersistentK1Fused = true;/'
fp8bstages4='s/^constexpr int kStages = kStagedScales ? 5 : 6;/constexpr int kStages = kStagedScales ? 4 : 6;/'
fp8stages4='s/^constexpr int kStages = kStagedScales ? 5 : 6;/constexpr int kStages = kStagedScales ? 5 : 4;/'
slicedesc='s/^constexpr bool kStepDescriptors = true;/constexpr bool kStepDescriptors = false;/'
# The warpgroup index through a warp shuffle of lane 0's (warpgroup_index() of kernels/ptx/wgmma.cuh):
# provably warp-uniform, so ptxas keeps what derives from it (descriptors, tile addresses) in
# uniform registers; threadwg undoes it where an expert has it.
uniformwg='s#^  const int warpgroup = threadIdx.x / \(128\|kWgThreads\);#  const int warpgroup = warpgroup_index();#'
threadwg='s#^\(  const int warpgroup = .*\)warpgroup_index();#\1static_cast<int>(threadIdx.x / 128);#'
genericstaging='s/^constexpr bool kStagingStoresShared = true;/constexpr bool kStagingStoresShared = false;/'
checked='s/^constexpr bool kUncheckedInterior = true;/constexpr bool kUncheckedInterior = false;/'
maskmargin='s/^constexpr bool kMaskByMargin = false;/constexpr bool kMaskByMargin = true;/'
diagloop='s/^constexpr bool kDiagonalLoopApart = false;/constexpr bool kDiagonalLoopApart = true;/'
overlap='s/^constexpr bool kOverlapNextStep = false;/constexpr bool kOverlapNextStep = true;/'
statslate='s/^constexpr bool kStatsEarly = true;/constexpr bool kStatsEarly = false;/'
statsfirst='s/^constexpr bool kStatsBeforeProducts = false;/constexpr bool kStatsBeforeProducts = true;/'
fmaexp4='s/^constexpr int kFmaExpEvery = 0;/constexpr int kFmaExpEvery = 4;/'
fmaexp3='s/^constexpr int kFmaExpEvery = 0;/constexpr int kFmaExpEvery = 3;/'
d64uniform='s/^constexpr bool kD64UniformIndex = false;/constexpr bool kD64UniformIndex = true;/'
pingpong='s/^constexpr bool kDkvPingPong = false;/constexpr bool kDkvPingPong = true;/'
dqtogether='s/^constexpr bool kDqPingPong = true;/constexpr bool kDqPingPong = false;/'
dqafter='s/^constexpr bool kDqBesideDkv = true;/constexpr bool kDqBesideDkv = false;/'
dqdrain='s/^constexpr bool kDqOverlapNextStep = true;/constexpr bool kDqOverlapNextStep = false;/'
d64ldg='s/^constexpr bool kStatsSharedAtUse = true;/constexpr bool kStatsSharedAtUse = false;/'
lastslices='s/^constexpr bool kPartialLastKBlock = false;/constexpr bool kPartialLastKBlock = true;/'
fixedslots='s/^constexpr bool kDynamicSlots = true;/constexpr bool kDynamicSlots = false;/'
persistentgrid='s/^constexpr Grid kDefaultGrid = Grid::kPacked;/constexpr Grid kDefaultGrid = Grid::kPersistent;/'
twoconsumers='s/^constexpr bool kThreeConsumersD64 = true;/constexpr bool kThreeConsumersD64 = false;/'
packedonly='s/^constexpr int kPersistentMaxMeanTiles = 4;/constexpr int kPersistentMaxMeanTiles = 0;/'
# name | expert (kernels/reference/sm90_gemm_NAME.cu, or sm90_NAME.cu for attention_*) | task |
# sed program (must change it), or file:PATH, a whole candidate source (bench/gemm_dev), or
# file:PATH|SED, that source with a knob changed
table="
tma_single|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$single; $sharedstaging; $nostreamk
tma_fullstaging3|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$fullstaging; $stages3
tma_groupm8|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$groupm8
tma_groupm32|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$groupm32
tma_dbstore|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$dbstore
tma_cluster2|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$cluster2; $nostreamk; $unbalanced
tma_cluster2_single|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$cluster2; $single; $sharedstaging; $nostreamk
tma_splitcluster|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$splitcluster
tma_directstore|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$directstore; $single; $sharedstaging; $nostreamk
tma_split_l2policy|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$l2policy
tma_split2|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$split2
tma_nonarrow|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$nonarrow
tma_narrow_c2|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$narrowc2
tma_narrow_a_evict_last|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$narrowaevictlast
tma_narrow_stages9|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$narrowstages9
tma_narrow_nohint|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$narrownohint
tma_narrow_stages6|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$narrowstages6
llm_dbstore|bf16_llm|sm90/gemm/bf16-llm|$dbstore
llm_nonarrow|bf16_llm|sm90/gemm/bf16-llm|$nonarrow
llm_split_l2policy|bf16_llm|sm90/gemm/bf16-llm|$l2policy
bwd_nochain_pdl|attention_bwd_bf16|sm90/attention/bwd-bf16|$nochainpdl
bwd_gqa_nochain_pdl|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$nochainpdl
bwd_narrow_qstep|attention_bwd_bf16|sm90/attention/bwd-bf16|$narrowqstep
bwd_gqa_narrow_qstep|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$narrowqstep
bwd_d96_nochain_pdl|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$nochainpdl
bwd_fused_dq_shared|attention_bwd_bf16|sm90/attention/bwd-bf16|$nodqreducer; $nosharedstores; $k1perunit; $fusedallseq; $k2perunit
bwd_gqa_fused_dq_shared|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$nodqreducer; $nosharedstores; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_dq_shared_late|attention_bwd_bf16|sm90/attention/bwd-bf16|$nodqreducer; $nosharedstores; $statslate; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_dq_shared_one_staging|attention_bwd_bf16|sm90/attention/bwd-bf16|$nodqreducer; $nosharedstores; $shareddqstagings1; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_dq_shared3|attention_bwd_bf16|sm90/attention/bwd-bf16|$nodqreducer; $nosharedstores; $shareddqstagings1; $fuseddqstages3; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_dq_shared_reducer|attention_bwd_bf16|sm90/attention/bwd-bf16|$nosharedstores; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_dq_shared_sts|attention_bwd_bf16|sm90/attention/bwd-bf16|$nodqreducer; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_dq_shared_reducer_sts|attention_bwd_bf16|sm90/attention/bwd-bf16|$k1perunit; $fusedallseq; $k2perunit
bwd_gqa_fused_dq_shared_reducer_sts|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$k1perunit; $fusedallseq; $k2perunit
bwd_fused_longest_first|attention_bwd_bf16|sm90/attention/bwd-bf16|$longestfirst; $k1perunit; $fusedallseq; $k2perunit
bwd_gqa_fused_longest_first|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$longestfirst; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_persistent|attention_bwd_bf16|sm90/attention/bwd-bf16|$longestfirst; $fusedallseq; $k1fused; $k2perunit
bwd_gqa_fused_persistent|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$longestfirst; $fusedallseq; $k1fused; $k2perunit
bwd_fused_d64|attention_bwd_bf16|sm90/attention/bwd-bf16|$d64dvoverlap; $longestfirst; $k1perunit; $fusedallseq; $k2perunit
bwd_gqa_fused_d64|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$d64dvoverlap; $longestfirst; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_diagloop|attention_bwd_bf16|sm90/attention/bwd-bf16|$maskmargin; $diagloop; $k1perunit; $fusedallseq; $k2perunit
bwd_gqa_fused_diagloop|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$maskmargin; $diagloop; $k1perunit; $fusedallseq; $k2perunit
bwd_fused_diag_longest_first|attention_bwd_bf16|sm90/attention/bwd-bf16|$maskmargin; $diagloop; $longestfirst; $k1perunit; $fusedallseq; $k2perunit
bwd_gqa_fused_diag_longest_first|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$maskmargin; $diagloop; $longestfirst; $k1perunit; $fusedallseq; $k2perunit
bwd_longest_first|attention_bwd_bf16|sm90/attention/bwd-bf16|$longestfirst
bwd_k1_per_unit|attention_bwd_bf16|sm90/attention/bwd-bf16|$k1perunit; $k2perunit; $threekernels
bwd_gqa_k1_per_unit|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$k1perunit; $k2perunit; $threekernels
bwd_d96_k1_per_unit|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$k1perunit; $k2perunit; $threekernels
bwd_k2_per_unit|attention_bwd_bf16|sm90/attention/bwd-bf16|$k2perunit
bwd_gqa_k2_per_unit|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$k2perunit
bwd_d96_k2_per_unit|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$k2perunit
bwd_three_kernels|attention_bwd_bf16|sm90/attention/bwd-bf16|$threekernels
bwd_gqa_three_kernels|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$threekernels
bwd_three_kernels_d64|attention_bwd_bf16|sm90/attention/bwd-bf16|$threekernelsd64
bwd_gqa_three_kernels_d64|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$threekernelsd64
bwd_fused_d64_overlap|attention_bwd_bf16|sm90/attention/bwd-bf16|$d64dvoverlap
bwd_gqa_fused_d64_overlap|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$d64dvoverlap
bwd_gqa_longest_first|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$longestfirst
bwd_fused_all_lengths|attention_bwd_bf16|sm90/attention/bwd-bf16|$fusedallseq
varlen_persistent|attention_fwd_varlen|sm90/attention/fwd-varlen|$persistentgrid
fwd_d64_two_consumers|attention_fwd_bf16|sm90/attention/fwd-bf16|$twoconsumers
varlen_d64_two_consumers|attention_fwd_varlen|sm90/attention/fwd-varlen|$twoconsumers
varlen_packed_only|attention_fwd_varlen|sm90/attention/fwd-varlen|$packedonly
varlen_fixed|attention_fwd_varlen|sm90/attention/fwd-varlen|$fixedslots
tma_split_nopdl|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$nopdl
tma_nostreamk|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$nostreamk; $unbalanced
tma_unbalanced|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$unbalanced
tma_nostreamk_balanced|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$nostreamk
tma_cluster2_balanced|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$cluster2; $nostreamk
tma_tail_fixup|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$tailfixup
tma_tail_first|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$tailfirst
tma_tail_fixup_first|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$tailfixup; $tailfirst
llm_tail_fixup|bf16_llm|sm90/gemm/bf16-llm|$tailfixup
llm_tail_fixup_first|bf16_llm|sm90/gemm/bf16-llm|$tailfixup; $tailfirst
llm_unbalanced|bf16_llm|sm90/gemm/bf16-llm|$unbalanced
llm_nostreamk|bf16_llm|sm90/gemm/bf16-llm|$nostreamk; $unbalanced
llm_split_nopdl|bf16_llm|sm90/gemm/bf16-llm|$nopdl
llm_single|bf16_llm|sm90/gemm/bf16-llm|$single; $sharedstaging; $nostreamk
llm_splitcluster|bf16_llm|sm90/gemm/bf16-llm|$splitcluster
grouped_persistent|bf16_grouped|sm90/gemm/bf16-grouped|$loopalways
grouped_single|bf16_grouped|sm90/gemm/bf16-grouped|$loopnever
grouped_register_store|bf16_grouped|sm90/gemm/bf16-grouped|$registerstore
grouped_no_prefix_pdl|bf16_grouped|sm90/gemm/bf16-grouped|$noprefixpdl
grouped_serial_prefix|bf16_grouped|sm90/gemm/bf16-grouped|$serialprefix; $noprefixpdl; $registerstore
grouped_records|bf16_grouped|sm90/gemm/bf16-grouped|$records
wgmma_direct|bf16_wgmma|sm90/gemm/bf16-wgmma|$directepilogue
wgmma_lag|bf16_wgmma|sm90/gemm/bf16-wgmma|$lagarrival
wgmma_lag1|bf16_wgmma|sm90/gemm/bf16-wgmma|$lagarrival; $lag1
wgmma_prefetch2|bf16_wgmma|sm90/gemm/bf16-wgmma|$prefetch2
wgmma_prefetch4|bf16_wgmma|sm90/gemm/bf16-wgmma|$prefetch4
wgmma_groupm8|bf16_wgmma|sm90/gemm/bf16-wgmma|$groupm8
wgmma_groupm32|bf16_wgmma|sm90/gemm/bf16-wgmma|$groupm32
fp8_single|fp8_e4m3|sm90/gemm/fp8-e4m3|$single
fp8_directstore|fp8_e4m3|sm90/gemm/fp8-e4m3|$directstore
fp8b_single|fp8_blockwise|sm90/gemm/fp8-blockwise|$single
fp8b_directstore|fp8_blockwise|sm90/gemm/fp8-blockwise|$directstore
fp8_nooverlap|fp8_e4m3|sm90/gemm/fp8-e4m3|$nooverlap
fp8b_nooverlap|fp8_blockwise|sm90/gemm/fp8-blockwise|$nooverlap
fp8_nosplitk|fp8_e4m3|sm90/gemm/fp8-e4m3|$nosplitk
fp8_nonarrow|fp8_e4m3|sm90/gemm/fp8-e4m3|$nonarrow
fp8b_nosplitk|fp8_blockwise|sm90/gemm/fp8-blockwise|$nosplitk
fp8_single_cta|fp8_e4m3|sm90/gemm/fp8-e4m3|$nopairs; $groupm16from8
fp8_groupm16|fp8_e4m3|sm90/gemm/fp8-e4m3|$groupm16from8
fp8_groupm4|fp8_e4m3|sm90/gemm/fp8-e4m3|$groupm4from8
fp8b_groupm16|fp8_blockwise|sm90/gemm/fp8-blockwise|$groupm16from8
fp8b_cluster2|fp8_blockwise|sm90/gemm/fp8-blockwise|$cluster2
fp8b_cluster2_groupm16|fp8_blockwise|sm90/gemm/fp8-blockwise|$cluster2; $groupm16from8
fp8b_stages4|fp8_blockwise|sm90/gemm/fp8-blockwise|$fp8bstages4
fp8_stages4|fp8_e4m3|sm90/gemm/fp8-e4m3|$fp8stages4
fp8b_slicedesc|fp8_blockwise|sm90/gemm/fp8-blockwise|$slicedesc
fp8_slicedesc|fp8_e4m3|sm90/gemm/fp8-e4m3|$slicedesc
bwd_slicedesc_threadwg|attention_bwd_bf16|sm90/attention/bwd-bf16|$slicedesc; $threadwg
bwd_gqa_slicedesc_threadwg|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$slicedesc; $threadwg
bwd_d96_slicedesc_threadwg|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$slicedesc; $threadwg
tma_slicedesc_threadwg|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$slicedesc; $threadwg
wgmma_slicedesc|bf16_wgmma|sm90/gemm/bf16-wgmma|$slicedesc
wgmma_threadwg|bf16_wgmma|sm90/gemm/bf16-wgmma|$threadwg
wgmma_checked|bf16_wgmma|sm90/gemm/bf16-wgmma|$checked
wgmma_checked_threadwg|bf16_wgmma|sm90/gemm/bf16-wgmma|$checked; $threadwg
fp8b_threadwg|fp8_blockwise|sm90/gemm/fp8-blockwise|$threadwg
fp8_threadwg|fp8_e4m3|sm90/gemm/fp8-e4m3|$threadwg
fwd_threadwg|attention_fwd_bf16|sm90/attention/fwd-bf16|$threadwg
fwd_d256_threadwg|attention_fwd_bf16_d256|sm90/attention/fwd-bf16-d256|$threadwg
varlen_uniformwg|attention_fwd_varlen|sm90/attention/fwd-varlen|$uniformwg
grouped_uniformwg|bf16_grouped|sm90/gemm/bf16-grouped|$uniformwg
grouped_slicedesc|bf16_grouped|sm90/gemm/bf16-grouped|$slicedesc
llm_slicedesc_threadwg|bf16_llm|sm90/gemm/bf16-llm|$slicedesc; $threadwg
fp8b_generic_staging|fp8_blockwise|sm90/gemm/fp8-blockwise|$genericstaging
fp8_generic_staging|fp8_e4m3|sm90/gemm/fp8-e4m3|$genericstaging
tma_generic_staging|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$genericstaging
grouped_generic_staging|bf16_grouped|sm90/gemm/bf16-grouped|$genericstaging
bwd_margin|attention_bwd_bf16|sm90/attention/bwd-bf16|$maskmargin
bwd_gqa_margin|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$maskmargin
bwd_d96_margin|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$maskmargin
bwd_diagloop|attention_bwd_bf16|sm90/attention/bwd-bf16|$maskmargin; $diagloop
bwd_gqa_diagloop|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$maskmargin; $diagloop
bwd_d96_diagloop|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$maskmargin; $diagloop
bwd_overlap|attention_bwd_bf16|sm90/attention/bwd-bf16|$overlap; $k1perunit; $k2perunit; $threekernels
bwd_gqa_overlap|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$overlap; $k1perunit; $k2perunit; $threekernels
bwd_d96_overlap|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$overlap; $k1perunit; $k2perunit; $threekernels
bwd_stats_late|attention_bwd_bf16|sm90/attention/bwd-bf16|$statslate
bwd_gqa_stats_late|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$statslate
bwd_d96_stats_late|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$statslate
bwd_stats_first|attention_bwd_bf16|sm90/attention/bwd-bf16|$statsfirst
bwd_fmaexp4|attention_bwd_bf16|sm90/attention/bwd-bf16|$fmaexp4
bwd_fmaexp3|attention_bwd_bf16|sm90/attention/bwd-bf16|$fmaexp3
bwd_gqa_fmaexp4|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$fmaexp4
bwd_gqa_fmaexp3|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$fmaexp3
bwd_d64_ldg|attention_bwd_bf16|sm90/attention/bwd-bf16|$d64ldg
bwd_gqa_d64_ldg|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$d64ldg
bwd_dq_drain|attention_bwd_bf16|sm90/attention/bwd-bf16|$dqdrain
bwd_gqa_dq_drain|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$dqdrain
bwd_d64_uniformwg|attention_bwd_bf16|sm90/attention/bwd-bf16|$d64uniform
bwd_gqa_d64_uniformwg|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$d64uniform
bwd_dq_together|attention_bwd_bf16|sm90/attention/bwd-bf16|$dqtogether
bwd_gqa_dq_together|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$dqtogether
bwd_d96_dq_together|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$dqtogether
bwd_dq_after_dkv|attention_bwd_bf16|sm90/attention/bwd-bf16|$dqafter
bwd_gqa_dq_after_dkv|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$dqafter
bwd_d96_dq_after_dkv|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$dqafter
bwd_all_prepared|attention_bwd_bf16|sm90/attention/bwd-bf16|$pingpong; $d64uniform; $k1perunit; $k2perunit; $threekernels
bwd_gqa_all_prepared|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$pingpong; $d64uniform; $k1perunit; $k2perunit; $threekernels
bwd_pingpong|attention_bwd_bf16|sm90/attention/bwd-bf16|$pingpong; $k1perunit; $k2perunit; $threekernels
bwd_gqa_pingpong|attention_bwd_bf16_gqa|sm90/attention/bwd-bf16-gqa|$pingpong; $k1perunit; $k2perunit; $threekernels
bwd_d96_pingpong|attention_bwd_bf16_d96|sm90/attention/bwd-bf16-d96|$pingpong; $k1perunit; $k2perunit; $threekernels
tma_lastslices|bf16_wgmma_tma|sm90/gemm/bf16-wgmma-tma|$lastslices
llm_lastslices|bf16_llm|sm90/gemm/bf16-llm|$lastslices
wgmma_lastslices|bf16_wgmma|sm90/gemm/bf16-wgmma|$lastslices
grouped_lastslices|bf16_grouped|sm90/gemm/bf16-grouped|$lastslices
"
declare -A task_of
names=()
baseline_of=()  # "variant=its expert's name", for the summary's side-by-side ratios
while IFS='|' read -r name expert task program; do
  [[ -z "$name" ]] && continue
  [[ -n "$only" && ",$only," != *",$name,"* ]] && continue
  stem="gemm_$expert"; [[ "$expert" == attention_* ]] && stem="$expert"
  src="kernels/reference/sm90_$stem.cu"
  if [[ "$program" == file:* ]]; then  # a whole candidate source in place of a knob
    file="${program#file:}"; knob=""
    [[ "$file" == *"|"* ]] && { knob="${file#*|}"; file="${file%%|*}"; }
    cp "$file" "$out/src/$name.cu" || exit 2
    if [[ -n "$knob" ]]; then
      sed -i -e "$knob" "$out/src/$name.cu"
      if cmp -s "$file" "$out/src/$name.cu"; then echo "variant $name changes nothing" >&2; exit 2; fi
    fi
  else
    # Each of the program's "; "-joined knobs must change the source on its own (where one of a
    # variant's knobs had been renamed in its expert, the variant silently measured the others).
    cp "$src" "$out/src/$name.cu"
    IFS=$'\n' read -r -d '' -a knobs < <(printf '%s' "$program" | sed 's/; /\n/g'; printf '\0')
    for knob in "${knobs[@]}"; do
      before="$(cat "$out/src/$name.cu")"
      sed -i -e "$knob" "$out/src/$name.cu" || exit 2
      if [[ "$before" == "$(cat "$out/src/$name.cu")" ]]; then
        echo "variant $name: '$knob' changes nothing" >&2; exit 2
      fi
    done
  fi
  if cmp -s "$src" "$out/src/$name.cu"; then echo "variant $name changes nothing" >&2; exit 2; fi
  if [[ -z "${task_of[expert_$expert]:-}" ]]; then
    cp "$src" "$out/src/expert_$expert.cu"; task_of[expert_$expert]="$task"; names+=("expert_$expert")
    old="${PTXB_OLD_EXPERTS:-}/sm90_$stem.cu"
    if [[ -n "${PTXB_OLD_EXPERTS:-}" && -f "$old" ]]; then
      cp "$old" "$out/src/old_$expert.cu"; task_of[old_$expert]="$task"; names+=("old_$expert")
    fi
  fi
  task_of[$name]="$task"; names+=("$name"); baseline_of+=("$name=expert_$expert")
done <<< "$table"
if [[ -n "$only" ]]; then  # a misspelt name would otherwise judge only the experts
  IFS=',' read -r -a wanted <<< "$only"
  for name in "${wanted[@]}"; do
    [[ -n "${task_of[$name]:-}" ]] || { echo "variants: no variant named $name" >&2; exit 2; }
  done
fi
# PTXB_SOURCES_ONLY=1: stop here, the variants' sources written to OUT/src (bench/gemm_dev/probe.sh).
[[ "${PTXB_SOURCES_ONLY:-0}" == 1 ]] && exit 0
budget="${PTXB_BUDGET_S:-}"
for r in $(seq 1 "$rounds"); do
  for name in "${names[@]}"; do
    if [[ -n "$budget" && $SECONDS -ge $budget ]]; then
      echo "variants: budget of $budget s spent: round $r from $name on not run" >&2; break 2
    fi
    evidence=()
    [[ -n "${PTXB_EVIDENCE_ROUNDS:-}" && $r -gt $PTXB_EVIDENCE_ROUNDS ]] && evidence=(--no-evidence)
    "$bin/ptxbench" eval "$out/src/$name.cu" --task "${task_of[$name]}" ${evidence[@]+"${evidence[@]}"} \
      --json-out "$out/${name}_$r.json" > "$out/${name}_$r.txt" 2>&1
  done
done
python3 - "$out" "${#names[@]}" "${names[@]}" ${baseline_of[@]+"${baseline_of[@]}"} <<'PY'
import glob, json, os, sys
out, count = sys.argv[1], int(sys.argv[2])
names, pairs = sys.argv[3:3 + count], dict(p.split("=", 1) for p in sys.argv[3 + count:])
speedups = {}  # (name, round) -> [median speedup per timed shape]
for name in names:
    for f in sorted(glob.glob(os.path.join(out, f"{name}_[0-9]*.json"))):
        try:
            v = json.load(open(f))
        except Exception as e:
            print(f"{os.path.basename(f):32s} unreadable: {e}"); continue
        medians = [t["speedup"]["median"] for t in v.get("timing", []) if "speedup" in t]
        speedups[(name, f[:-5].rsplit("_", 1)[1])] = medians
        print(f"{os.path.basename(f):32s} {v['outcome']:14s} " + " / ".join(f"{m:.3f}" for m in medians))
# Each variant's speedups over its expert's in the same round, per timed shape, then their mean
# over the rounds both finished: above 1 the variant is faster there.
lines = []
for name, expert in pairs.items():
    rounds = [r for (n, r) in speedups if n == name and (expert, r) in speedups]
    ratios = [[a / b for a, b in zip(speedups[(name, r)], speedups[(expert, r)]) if b > 0]
              for r in sorted(rounds)]
    ratios = [r for r in ratios if r]
    if not ratios:
        continue
    shapes = min(len(r) for r in ratios)
    means = [sum(r[i] for r in ratios) / len(ratios) for i in range(shapes)]
    lines.append(f"{name:32s} {len(ratios)} round(s)  " + " / ".join(f"{m:.3f}" for m in means))
if lines:
    print("variant / its expert, same round (mean over rounds):")
    print("\n".join(lines))
PY
