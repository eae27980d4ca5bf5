//! `deploy/kubernetes` (docs/deploy.md): every `COURIER_*` variable a
//! container gets, set in its `env` or from the Secret it reads, is one its
//! binary reads (`courier::env`), so that no setting is silently ignored.
//! CI validates the manifests against the Kubernetes schemas (`.ci/run`).

use std::collections::{BTreeSet, HashMap};

use clap::Args;
use serde::Deserialize;
use serde_json::Value;

const MANIFESTS: &[(&str, &str)] = &[
    ("secret.yaml", include_str!("../../deploy/kubernetes/secret.yaml")),
    (
        "migrate-job.yaml",
        include_str!("../../deploy/kubernetes/migrate-job.yaml"),
    ),
    ("core-api.yaml", include_str!("../../deploy/kubernetes/core-api.yaml")),
    (
        "core-workers.yaml",
        include_str!("../../deploy/kubernetes/core-workers.yaml"),
    ),
    ("edge.yaml", include_str!("../../deploy/kubernetes/edge.yaml")),
    ("console.yaml", include_str!("../../deploy/kubernetes/console.yaml")),
    (
        "courier-app.yaml",
        include_str!("../../deploy/kubernetes/courier-app.yaml"),
    ),
    ("redis.yaml", include_str!("../../deploy/kubernetes/redis.yaml")),
    ("ingress.yaml", include_str!("../../deploy/kubernetes/ingress.yaml")),
    ("namespace.yaml", include_str!("../../deploy/kubernetes/namespace.yaml")),
];

/// The `env = "COURIER_…"` names of the flags declared in a binary's
/// `main.rs` (its own flags beside its library's configuration).
fn declared_in(source: &str) -> Vec<String> {
    source
        .split("env = \"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|name| name.starts_with("COURIER_"))
        .map(str::to_owned)
        .collect()
}

/// The `COURIER_*` variables each binary reads.
fn read_by_binary() -> HashMap<&'static str, BTreeSet<String>> {
    let of_args = |command: clap::Command| courier::env::read_by(&command);
    let core = of_args(courier_store::config::CoreConfig::augment_args(clap::Command::new(
        "core",
    )));
    let edge = of_args(courier_edge::config::EdgeConfig::augment_args(clap::Command::new(
        "edge",
    )));
    let front = || {
        of_args(courier::client_address::FrontArgs::augment_args(clap::Command::new(
            "front",
        )))
    };
    let everywhere = [courier::logging::FILTER_VARIABLE.to_owned()];
    let binaries = [
        ("courier-core", core, include_str!("../../server/src/main.rs")),
        ("courier-edge", edge, include_str!("../../edge/src/main.rs")),
        ("courier-console", front(), include_str!("../../console/src/main.rs")),
        ("courier-app", front(), include_str!("../../courier-app/src/main.rs")),
    ];
    binaries
        .into_iter()
        .map(|(binary, library, main)| {
            let names = library.into_iter().chain(declared_in(main)).chain(everywhere.clone());
            (binary, names.collect())
        })
        .collect()
}

fn documents() -> Vec<(&'static str, Value)> {
    MANIFESTS
        .iter()
        .flat_map(|(file, text)| {
            serde_yaml_ng::Deserializer::from_str(text)
                .map(|document| {
                    (
                        *file,
                        Value::deserialize(document).unwrap_or_else(|e| panic!("{file}: {e}")),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_courier_variable_the_manifests_set_is_read_by_its_binary() {
    let _timing = crate::harness::Timing::start();
    let read = read_by_binary();
    let documents = documents();
    let secrets: HashMap<&str, Vec<String>> = documents
        .iter()
        .filter(|(_, d)| d["kind"] == "Secret")
        .map(|(_, d)| {
            let keys = d["stringData"].as_object().map(|data| data.keys().cloned().collect());
            (d["metadata"]["name"].as_str().expect("name"), keys.unwrap_or_default())
        })
        .collect();
    let mut checked = 0;
    for (file, document) in &documents {
        let pod = &document["spec"]["template"]["spec"];
        for container in pod["containers"].as_array().into_iter().flatten() {
            let binary = container["command"][0].as_str().unwrap_or_default();
            let Some(known) = read.get(binary) else {
                // Not one of ours (Redis).
                assert!(
                    container["image"] != "courier",
                    "{file}: a courier container runs {binary:?}"
                );
                continue;
            };
            let mut names: Vec<String> = (container["env"].as_array().into_iter().flatten())
                .filter_map(|variable| variable["name"].as_str().map(str::to_owned))
                .collect();
            for source in container["envFrom"].as_array().into_iter().flatten() {
                let secret = source["secretRef"]["name"].as_str().expect("a Secret");
                names.extend(
                    secrets
                        .get(secret)
                        .unwrap_or_else(|| panic!("{file}: no Secret {secret}"))
                        .clone(),
                );
            }
            for name in names.iter().filter(|name| name.starts_with("COURIER_")) {
                assert!(known.contains(name), "{file}: {binary} does not read {name}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} variables checked");

    // The check has teeth: a misspelt variable is not read by anyone.
    assert!(!read.values().any(|names| names.contains("COURIER_DATABASE_UR")));
    // And it knows the flags the binaries declare themselves.
    assert!(read["courier-core"].contains("COURIER_ROLE"));
    assert!(read["courier-console"].contains("COURIER_CORE_URL"));
}

#[test]
fn the_manifests_run_every_binary_on_postgresql_with_probes() {
    let _timing = crate::harness::Timing::start();
    let documents = documents();
    let secret = documents
        .iter()
        .find(|(_, d)| d["kind"] == "Secret")
        .expect("the Secret");
    let database = secret.1["stringData"]["COURIER_DATABASE_URL"]
        .as_str()
        .expect("a database URL");
    assert!(database.starts_with("postgres://"), "{database}");
    let deployments: Vec<&Value> = documents
        .iter()
        .map(|(_, d)| d)
        .filter(|d| d["kind"] == "Deployment")
        .collect();
    for deployment in &deployments {
        let name = deployment["metadata"]["name"].as_str().expect("name");
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert!(container["readinessProbe"].is_object(), "{name}");
        assert!(container["livenessProbe"].is_object(), "{name}");
        let has = |kind: &str| {
            documents
                .iter()
                .any(|(_, d)| d["kind"] == kind && d["metadata"]["name"] == name)
        };
        assert!(has("PodDisruptionBudget"), "{name} has no PodDisruptionBudget");
        if container["image"] == "courier" {
            assert!(has("HorizontalPodAutoscaler"), "{name} has no HorizontalPodAutoscaler");
        }
    }
    let roles: BTreeSet<String> = deployments
        .iter()
        .filter_map(|d| {
            let command = d["spec"]["template"]["spec"]["containers"][0]["command"].as_array()?;
            let role = command.iter().position(|arg| arg == "--role")?;
            Some(command[role + 1].as_str()?.to_owned())
        })
        .collect();
    assert_eq!(roles, BTreeSet::from(["api".to_owned(), "workers".to_owned()]));
    // The fronts' probes are their HTTP endpoints, the core's its gRPC health.
    for front in ["courier-edge", "courier-console", "courier-app"] {
        let deployment = deployments
            .iter()
            .find(|d| d["metadata"]["name"] == front)
            .expect(front);
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/readyz", "{front}");
        assert_eq!(container["livenessProbe"]["httpGet"]["path"], "/healthz", "{front}");
    }
    let core = deployments
        .iter()
        .find(|d| d["metadata"]["name"] == "courier-core")
        .expect("core");
    assert!(core["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"].is_object());
    let headless = documents
        .iter()
        .find(|(_, d)| d["kind"] == "Service" && d["metadata"]["name"] == "courier-core")
        .expect("the core's Service");
    assert_eq!(headless.1["spec"]["clusterIP"], "None");
}
