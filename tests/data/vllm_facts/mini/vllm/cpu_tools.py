import os

SIM = os.environ.get("VLLM_CPU_SIM_FLAG")
