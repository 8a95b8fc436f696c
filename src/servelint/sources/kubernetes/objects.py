"""Typed views of the Kubernetes objects a file holds: each object's containers with the pod
spec around them (its volumes), and the ConfigMaps the file defines."""

from __future__ import annotations

from dataclasses import dataclass, field

from servelint.sources.common.yamlpos import Map, Node, Scalar, Seq
from servelint.sources.kubernetes.schema import CONTAINER_KEYS, CONTAINER_LISTS

MAX_WALK = 20_000  # nodes walked per object


@dataclass(slots=True)
class K8sObject:
    """One object of a manifest: ``apiVersion``, ``kind``, name and its root mapping."""

    api_version: str
    kind: str
    name: str
    root: Map


@dataclass(slots=True)
class ContainerAt:
    """A container found in an object: where (key path), the container mapping, and the
    pod spec that holds it (its volumes), if any."""

    where: str
    container: Map
    pod: Map | None
    init: bool = False
    shared_env: list[Node] = field(default_factory=list)  # env lists the kind adds (Dynamo)


def as_object(node: Node) -> K8sObject | None:
    """The object a document holds, when it has ``apiVersion`` and ``kind`` strings."""
    if not isinstance(node, Map):
        return None
    api, kind = node.get("apiVersion"), node.get("kind")
    if not (isinstance(api, Scalar) and isinstance(kind, Scalar)):
        return None
    if not (isinstance(api.value, str) and isinstance(kind.value, str)):
        return None
    meta = node.get("metadata")
    name = meta.get("name") if isinstance(meta, Map) else None
    text = str(name.value) if isinstance(name, Scalar) and name.value is not None else ""
    return K8sObject(api.value, kind.value, text, node)


def objects_of(node: Node) -> list[K8sObject]:
    """The objects of a document: itself, or the items of a ``List`` (``kubectl get -o
    yaml``)."""
    obj = as_object(node)
    if obj is None:
        return []
    if obj.kind.endswith("List"):
        items = obj.root.get("items")
        return [o for i in (items.items if isinstance(items, Seq) else [])
                if (o := as_object(i)) is not None]
    return [obj]


def containers_of(obj: K8sObject) -> list[ContainerAt]:
    """Every container of ``obj``, in document order (see ``schema``)."""
    found: list[ContainerAt] = []
    stack: list[tuple[Node, str, Map | None, list[Node]]] = [(obj.root, "", None, [])]
    walked = 0
    while stack and walked < MAX_WALK:
        node, where, pod, envs = stack.pop()
        walked += 1
        if isinstance(node, Seq):
            for i in reversed(range(len(node.items))):
                stack.append((node.items[i], f"{where}[{i}]", pod, envs))
            continue
        if not isinstance(node, Map):
            continue
        is_pod = any(isinstance(node.get(k), Seq) for k in CONTAINER_LISTS) or any(
            isinstance(node.get(k), Map) for k in CONTAINER_KEYS)
        here = node if is_pod else pod
        shared = envs + [e for e in (node.get("envs"),) if isinstance(e, Seq)]
        children: list[tuple[Node, str, Map | None, list[Node]]] = []
        for key, value in node.items():
            path = f"{where}.{key}" if where else key
            if is_pod and key in CONTAINER_LISTS and isinstance(value, Seq):
                for i, item in enumerate(value.items):
                    if isinstance(item, Map):
                        found.append(ContainerAt(f"{path}[{i}]", item, here,
                                                 key == "initContainers", shared))
                continue
            if is_pod and key in CONTAINER_KEYS and isinstance(value, Map):
                found.append(ContainerAt(path, value, here, False, shared))
                continue
            children.append((value, path, here, shared))
        stack.extend(reversed(children))
    return found


def config_maps(objs: list[K8sObject]) -> dict[str, Map]:
    """The ``data`` of every ConfigMap defined, by name."""
    out: dict[str, Map] = {}
    for obj in objs:
        if obj.kind == "ConfigMap" and obj.api_version == "v1":
            data = obj.root.get("data")
            if isinstance(data, Map):
                out[obj.name] = data
    return out
