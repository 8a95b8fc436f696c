# servelint-test: engine=vllm==0.21.0 gpu=b300
vllm serve nvidia/DeepSeek-R1-0528-FP4-V2 --kv-cache-dtype fp8 \
  --attention-backend TOKENSPEED_MLA
