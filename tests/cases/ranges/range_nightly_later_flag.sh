# servelint-test: image=vllm/vllm-openai:nightly-dev-20260527-abcdef0
# a build of 2026-05-27 is at or after vllm 0.21.0 (released 2026-05-14); --enable-cumem-allocator
# first appears in 0.22.0 (2026-05-29), which the nightly may already hold: a warning saying so
vllm serve Qwen/Qwen3-8B --enable-cumem-allocator
