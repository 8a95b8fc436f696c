"""Where each kind of Kubernetes object keeps the containers that start a server.

Every kind is read the same way: the containers are the items of any ``containers`` or
``initContainers`` list (a ``corev1.PodSpec``) and any ``mainContainer`` (a
``corev1.Container``) met walking the object, so a kind not listed here is still read. The
table names the kinds this walk was checked against, with the Go type that puts a pod spec
or a container there (read from each project's public API package), and the kinds whose
server command a controller writes from other fields (those get a note, not a launch).
"""

from __future__ import annotations

from dataclasses import dataclass

CONTAINER_LISTS = ("initContainers", "containers")  # corev1.PodSpec
CONTAINER_KEYS = ("mainContainer",)  # a single corev1.Container (Dynamo ExtraPodSpec)


@dataclass(frozen=True, slots=True)
class KnownKind:
    group: str  # API group ("" for the core group)
    kind: str
    pod_specs: tuple[str, ...]  # where the pod specs (or containers) are, as key paths
    source: str  # the public Go type that says so (repository: path)


KNOWN_KINDS: tuple[KnownKind, ...] = (
    KnownKind("", "Pod", ("spec",), "kubernetes/api: core/v1/types.go Pod.Spec"),
    *(KnownKind("apps", k, ("spec.template.spec",),
                f"kubernetes/api: apps/v1/types.go {k}Spec.Template")
      for k in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")),
    KnownKind("batch", "Job", ("spec.template.spec",),
              "kubernetes/api: batch/v1/types.go JobSpec.Template"),
    KnownKind("batch", "CronJob", ("spec.jobTemplate.spec.template.spec",),
              "kubernetes/api: batch/v1/types.go CronJobSpec.JobTemplate"),
    KnownKind("leaderworkerset.x-k8s.io", "LeaderWorkerSet",
              ("spec.leaderWorkerTemplate.leaderTemplate.spec",
               "spec.leaderWorkerTemplate.workerTemplate.spec"),
              "kubernetes-sigs/lws: api/leaderworkerset/v1/leaderworkerset_types.go "
              "LeaderWorkerTemplate.LeaderTemplate/WorkerTemplate"),
    *(KnownKind("serving.kserve.io", k, ("spec", "spec.workerSpec"),
                "kserve/kserve: pkg/apis/serving/v1alpha1/servingruntime_types.go "
                "ServingRuntimePodSpec (inline), WorkerSpec")
      for k in ("ServingRuntime", "ClusterServingRuntime")),
    KnownKind("serving.kserve.io", "InferenceService",
              ("spec.predictor", "spec.predictor.workerSpec", "spec.transformer"),
              "kserve/kserve: pkg/apis/serving/v1beta1/predictor.go PredictorSpec "
              "(corev1.PodSpec inline)"),
    *(KnownKind("serving.kserve.io", k,
                ("spec.template", "spec.worker", "spec.prefill.template", "spec.prefill.worker"),
                "kserve/kserve: pkg/apis/serving/v1alpha2/llm_inference_service_types.go "
                "WorkloadSpec.Template/Worker (*corev1.PodSpec)")
      for k in ("LLMInferenceService", "LLMInferenceServiceConfig")),
    KnownKind("nvidia.com", "DynamoGraphDeployment",
              ("spec.services.*.extraPodSpec",),
              "ai-dynamo/dynamo: deploy/cloud/operator/api/dynamo/common/common.go "
              "ExtraPodSpec (PodSpec inline + MainContainer)"),
    KnownKind("nvidia.com", "DynamoComponentDeployment", ("spec.extraPodSpec",),
              "ai-dynamo/dynamo: deploy/cloud/operator/api/v1alpha1/"
              "dynamocomponentdeployment_types.go"),
    KnownKind("orchestration.aibrix.ai", "StormService",
              ("spec.template.spec.roles[*].template.spec",),
              "vllm-project/aibrix: api/orchestration/v1alpha1/stormservice_types.go, "
              "roleset_types.go RoleSpec.Template"),
    KnownKind("orchestration.aibrix.ai", "RoleSet", ("spec.roles[*].template.spec",),
              "vllm-project/aibrix: api/orchestration/v1alpha1/roleset_types.go"),
    KnownKind("orchestration.aibrix.ai", "RayClusterFleet",
              ("spec.template.spec.headGroupSpec.template.spec",
               "spec.template.spec.workerGroupSpecs[*].template.spec"),
              "vllm-project/aibrix: api/orchestration/v1alpha1/rayclusterfleet_types.go "
              "(rayv1.RayClusterSpec)"),
    KnownKind("ray.io", "RayCluster",
              ("spec.headGroupSpec.template.spec", "spec.workerGroupSpecs[*].template.spec"),
              "ray-project/kuberay: ray-operator/apis/ray/v1/raycluster_types.go"),
    KnownKind("ray.io", "RayJob", ("spec.rayClusterSpec.headGroupSpec.template.spec",),
              "ray-project/kuberay: ray-operator/apis/ray/v1/rayjob_types.go"),
)

# kinds whose server command their controller writes from fields of its own and that no
# controller map (``kubernetes/controllers.py``) covers: a note says so
CONTROLLER_BUILT: dict[str, str] = {
    "llm-d.ai/ModelService": "llm-d's model service controller builds the pods from the "
    "baseConfig ConfigMap its spec.baseConfigMapRef names: the ModelService's container "
    "args go before the baseConfig's, its command replaces it (llm-d/llm-d-model-service: "
    "internal/controller/merge_transformers.go containerSliceTransformer)",
}


# kinds whose containers their controller merges with another object's before they run:
# a container without a command of its own takes that object's
MERGED_FROM: dict[str, str] = {
    "serving.kserve.io/LLMInferenceService": "KServe merges its pod templates with the "
    "LLMInferenceServiceConfig it names (spec.baseRefs, else its well-known "
    "kserve-config-llm-* configs), whose command is checked where that config is "
    "(kserve/kserve: pkg/controller/v1alpha2/llmisvc/config_merge.go combineBaseRefsConfig)",
    "serving.kserve.io/InferenceService": "KServe merges spec.predictor.model into the "
    "container of the ServingRuntime it selects, whose command is checked where that "
    "runtime is (kserve/kserve: pkg/controller/v1beta1/inferenceservice/utils/utils.go "
    "MergeRuntimeContainers)",
}


def group_of(api_version: str) -> str:
    """The API group of ``apiVersion`` (``apps/v1`` -> ``apps``, ``v1`` -> ``""``)."""
    return api_version.rpartition("/")[0]


def known(api_version: str, kind: str) -> KnownKind | None:
    group = group_of(api_version)
    return next((k for k in KNOWN_KINDS if k.kind == kind and k.group == group), None)


@dataclass(frozen=True, slots=True)
class ShellField:
    """A string field a controller runs as a shell command in one of the object's
    containers (the image is that container's)."""

    group: str
    kind: str
    command: str  # key path of the command string
    image: str  # key path of the image of the container it runs in
    source: str


SHELL_FIELDS: tuple[ShellField, ...] = (
    ShellField("ray.io", "RayJob", "spec.entrypoint",
               "spec.rayClusterSpec.headGroupSpec.template.spec.containers.0.image",
               "ray-project/kuberay: ray-operator/apis/ray/v1/rayjob_types.go "
               "RayJobSpec.Entrypoint (run by `ray job submit` on the head)"),
)
