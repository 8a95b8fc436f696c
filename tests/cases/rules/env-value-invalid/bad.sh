# servelint-test: engine=vllm==0.27.1
export VLLM_KV_CACHE_LAYOUT=NCHW
export VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS=container,web_search_preview
vllm serve Qwen/Qwen3-8B
