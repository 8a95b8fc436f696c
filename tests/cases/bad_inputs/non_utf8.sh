#!/bin/bash
vllm serve org/m --served-model-name café
