# Shape of alint77/jupiter-glm52-vllm-worklog experiments/2026-07-17-end-to-end-tuning/
# run-server.sh (c954a35): the engine is the project's own environment (a fork built from
# source), not a release: flags no vLLM release has are warnings, never "fails on every
# release" errors.
exec .venv/bin/vllm serve org/model --enable-tiered-moe --tiered-moe-backend uva
