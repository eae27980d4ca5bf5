//! The core's modules read top-down: this test reads every `use crate::…`
//! of `core/src` (test code left out) and fails on an import circle, naming
//! the modules in it (ARCHITECTURE.md, "Layers").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`deliveries::batch`) of the file at `path` under `root`.
fn module_of(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path).with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|last| ["mod", "lib", "main"].contains(&last.as_str()))
    {
        parts.pop();
    }
    parts.join("::")
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The paths each `use crate::…` item names: `use crate::{a::{B, c}, d}`
/// gives `a::B`, `a::c` and `d` (enough to find the module each lives in).
fn imported_paths(source: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("use crate::") {
        let after = &rest[start + "use crate::".len()..];
        let end = after.find(';').unwrap_or(after.len());
        expand("", &after[..end], &mut paths);
        rest = &after[end..];
    }
    paths
}

fn expand(prefix: &str, tree: &str, paths: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = tree[open + 1..].trim_end().trim_end_matches('}');
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut item_start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&prefix, &inner[item_start..i], paths);
                    item_start = i + 1;
                }
                _ => {}
            }
        }
        expand(&prefix, &inner[item_start..], paths);
    } else if !tree.is_empty() {
        let name = tree.split(" as ").next().unwrap_or(tree).trim();
        if name != "self" {
            paths.push(join(prefix, name));
        } else {
            paths.push(prefix.to_owned());
        }
    }
}

fn join(prefix: &str, name: &str) -> String {
    match (prefix.is_empty(), name.is_empty()) {
        (true, _) => name.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{name}"),
    }
}

/// The longest module of `modules` that `path` is in.
fn resolve(modules: &BTreeSet<String>, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = path.split("::").collect();
    while !parts.is_empty() {
        let candidate = parts.join("::");
        if modules.contains(&candidate) {
            return Some(candidate);
        }
        parts.pop();
    }
    None
}

/// Module → modules it imports, leaving out its own ancestors and
/// descendants (a parent declares its children; a child may use its
/// parent's items).
fn graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(root, f)).collect();
    let mut edges = BTreeMap::new();
    for file in &files {
        let module = module_of(root, file);
        let source = std::fs::read_to_string(file).expect("readable source file");
        let source = source.split("#[cfg(test)]").next().unwrap_or_default();
        let targets: BTreeSet<String> = imported_paths(source)
            .iter()
            .filter_map(|path| resolve(&modules, path))
            .filter(|target| {
                target != &module
                    && !target.is_empty()
                    && !module.starts_with(&format!("{target}::"))
                    && !target.starts_with(&format!("{module}::"))
            })
            .collect();
        edges.insert(module, targets);
    }
    edges
}

/// Every import circle of `graph`, each as its modules in order.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
    ) {
        marks.insert(module.to_owned(), Mark::Open);
        stack.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            match marks.get(next) {
                Some(Mark::Open) => {
                    let from = stack.iter().position(|m| m == next).unwrap_or(0);
                    found.push(stack[from..].to_vec());
                }
                Some(Mark::Done) => {}
                None => visit(next, graph, marks, stack, found),
            }
        }
        stack.pop();
        marks.insert(module.to_owned(), Mark::Done);
    }
    let (mut marks, mut stack, mut found) = (BTreeMap::new(), Vec::new(), Vec::new());
    for module in graph.keys() {
        if !marks.contains_key(module) {
            visit(module, graph, &mut marks, &mut stack, &mut found);
        }
    }
    found
}

#[test]
fn use_trees_name_every_path() {
    let paths =
        imported_paths("use crate::{Core, db, deliveries::{self, Delivery as D, cache::Ticket}};\nuse crate::ids;");
    assert_eq!(
        paths,
        [
            "Core",
            "db",
            "deliveries",
            "deliveries::Delivery",
            "deliveries::cache::Ticket",
            "ids"
        ]
    );
}

#[test]
fn a_circle_is_found() {
    let graph: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
            .into_iter()
            .map(|(m, to)| (m.to_owned(), to.into_iter().map(str::to_owned).collect()))
            .collect();
    assert_eq!(circles(&graph), vec![vec!["a".to_owned(), "b".into(), "c".into()]]);
}

#[test]
fn the_core_has_no_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph(&root);
    assert!(graph.len() > 30, "read {} modules", graph.len());
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "import circles (a module may import only modules below it):\n{}",
        found
            .iter()
            .map(|c| format!("  {} → {}", c.join(" → "), c[0]))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
