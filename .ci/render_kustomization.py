#!/usr/bin/env python3
"""Renders a kustomization the way `kubectl kustomize` does for the features
deploy/kubernetes uses (resources, namespace, labels without selectors,
images), for CI machines without kubectl. Prints the documents as YAML."""

import pathlib
import sys

import yaml

# Kinds without a namespace among those the manifests use.
CLUSTER_KINDS = {"Namespace"}


def render(directory):
    root = pathlib.Path(directory)
    kustomization = yaml.safe_load((root / "kustomization.yaml").read_text())
    allowed = {"apiVersion", "kind", "namespace", "labels", "images", "resources"}
    unknown = set(kustomization) - allowed
    if unknown:
        sys.exit(f"render_kustomization.py does not know {sorted(unknown)}: use kubectl kustomize")
    images = {image["name"]: image for image in kustomization.get("images", [])}
    documents = []
    for resource in kustomization["resources"]:
        for document in yaml.safe_load_all((root / resource).read_text()):
            if document is None:
                continue
            metadata = document.setdefault("metadata", {})
            if "namespace" in kustomization and document["kind"] not in CLUSTER_KINDS:
                metadata["namespace"] = kustomization["namespace"]
            for label in kustomization.get("labels", []):
                if label.get("includeSelectors"):
                    sys.exit("labels with includeSelectors: use kubectl kustomize")
                metadata.setdefault("labels", {}).update(label["pairs"])
            for container in containers(document):
                image = images.get(container["image"].split(":")[0])
                if image:
                    container["image"] = f"{image.get('newName', image['name'])}:{image.get('newTag', 'latest')}"
            documents.append(document)
    return documents


def containers(document):
    spec = document.get("spec", {})
    template = spec.get("template") or spec.get("jobTemplate", {}).get("spec", {}).get("template")
    if not template:
        return []
    pod = template.get("spec", {})
    return pod.get("containers", []) + pod.get("initContainers", [])


if __name__ == "__main__":
    yaml.safe_dump_all(render(sys.argv[1]), sys.stdout, sort_keys=False)
