# servelint-test: gpu=h100
# The launch of ../shared/corpus/seeds/dsr1_fp4_b300_vllm.sh (InferenceX at 895c106), cut to
# its two findings, with no image pinned and run on an H100. TokenSpeed MLA needs compute
# capability 10.x (vllm/v1/attention/backends/mla/tokenspeed_mla.py) and the flag or value is
# unknown before 0.13.0: it fails on every release. The tokenizer mode "fastokens" is
# registered up to 0.21.0 (vllm/tokenizers/registry.py): that finding fails on 0.22.0 and
# later only, a warning, even though the launch as a whole fails everywhere.
vllm serve nvidia/DeepSeek-R1-0528-FP4-V2 --kv-cache-dtype fp8 \
    --attention-backend TOKENSPEED_MLA \
    --tokenizer-mode fastokens
