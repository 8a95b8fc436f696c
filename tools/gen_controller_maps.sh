#!/bin/sh
# The controller maps servelint ships, regenerated from the controllers' repositories
# (git directories as the fetch tool gives them: $1 kubeai, $2 production-stack).
set -e
cd "$(dirname "$0")/.."
python tools/gen_controller_maps.py "$1" --repo substratusai/kubeai --name kubeai-model-vllm \
  --group kubeai.org --kind Model --types api/k8s/v1/model_types.go \
  --func-file internal/modelcontroller/engine_vllm.go --func vLLMPodForModel --root m=Model \
  --when 'spec.engine=VLLM@internal/modelcontroller/pod_plan.go:r.vLLMPodForModel' \
  --image-field 'c.Image=spec.image@internal/modelcontroller/model_controller.go:return model.Spec.Image' \
  --install-images 'charts/kubeai/values.yaml:modelServers.VLLM.images=resourceProfiles' \
  --url-parts 'c.Source.url=spec.url@internal/modelcontroller/model_source.go:modelURLRegex'
python tools/gen_controller_maps.py "$2" --repo vllm-project/production-stack \
  --name production-stack-vllmruntime --group production-stack.vllm.ai --kind VLLMRuntime \
  --types operator/api/v1alpha1/vllmruntime_types.go,operator/api/v1alpha1/common.go \
  --func-file operator/internal/controller/vllmruntime_controller.go \
  --func deploymentForVLLMRuntime --root vllmRuntime=VLLMRuntime
