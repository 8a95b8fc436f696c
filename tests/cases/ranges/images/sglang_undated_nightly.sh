# servelint-test: image=lmsysorg/sglang:dev-nightly-0820
# InferenceX configs/nvidia-master.yaml:932 runs benchmarks/single_node/agentic/dsv4_fp4_b200_sglang_mtp.sh
# on lmsysorg/sglang:dev-nightly-0820 (corpus copy); the lines below are that script's 107, 148-149 and
# its launch. The tag spells a month and day, not the year: the 08-20 nightly of every year SGLang
# released in, never "newer than every release" nor "removed after X" from the newest one.
export SGLANG_OPT_DEEPGEMM_MEGA_MOE_USE_FP4_ACTS=1
CUDA_GRAPH_MAX_BS=$((2 * 32))
CUDA_GRAPH_ARGS=(--cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS")
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp 8 "${CUDA_GRAPH_ARGS[@]}"
