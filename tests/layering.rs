//! The modules of `core`, `edge` and `console` read top-down (ARCHITECTURE.md,
//! "Layers"): no module imports, directly or through others, a module that
//! imports it. Every way one module names another counts: `use crate::…`
//! and `use super::…` (`super::super::…`) lines, and paths written in code
//! (`crate::webhooks::enqueue(…)`, `super::queue::claim(…)`). Comments,
//! string literals and test code (`#[cfg(test)]` items) are left out. A
//! module naming its own parent or one of its children is no edge: that is
//! how Rust declares modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn the_core_has_no_import_circle() {
    assert_no_circle("core/src", 60);
}

#[test]
fn the_edge_has_no_import_circle() {
    assert_no_circle("edge/src", 20);
}

#[test]
fn the_console_has_no_import_circle() {
    assert_no_circle("console/src", 10);
}

/// Fails on each import circle among the modules of `src` (a directory of
/// this workspace), naming its modules and the imports that tie them.
fn assert_no_circle(src: &str, at_least: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let graph = graph(&root);
    assert!(graph.len() >= at_least, "read {} modules of {src}", graph.len());
    let circles = circles(&graph);
    let shown: Vec<String> = circles
        .iter()
        .map(|modules| {
            let ties: Vec<String> = modules
                .iter()
                .flat_map(|from| {
                    let targets = graph[from].iter().filter(|to| modules.contains(to));
                    targets.map(move |to| format!("{from} -> {to}"))
                })
                .collect();
            format!("  {}  ({})", modules.join(", "), ties.join("; "))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles in {src} (a module may name only modules below it):\n{}",
        shown.join("\n")
    );
}

/// The module path of the file at `path` under `root`: `deliveries::batch`,
/// and `""` for the crate root.
fn module_of(root: &Path, path: &Path) -> Vec<String> {
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
    parts
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

/// Every module of the crate at `root` with the modules it names, less its
/// ancestors and descendants, and less the crate root (which declares
/// them all).
fn graph(root: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(root, f).join("::")).collect();
    let mut graph = Graph::new();
    for file in &files {
        let module = module_of(root, file);
        let name = module.join("::");
        if name.is_empty() {
            continue;
        }
        let source = std::fs::read_to_string(file).expect("readable source file");
        let targets = named_paths(&source)
            .iter()
            .filter_map(|path| resolve(&modules, &module, path))
            .filter(|target| {
                target != &name
                    && !name.starts_with(&format!("{target}::"))
                    && !target.starts_with(&format!("{name}::"))
            })
            .collect();
        graph.insert(name, targets);
    }
    graph
}

/// A path as written: `crate::` or `super::`(`super::`…) and what follows.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Named {
    /// How many `super`s start it; 0 for `crate::`.
    supers: usize,
    /// The rest, `webhooks::queue::claim`.
    path: String,
}

/// The module of `modules` that `named`, written in `module`, is in: the
/// longest module its path starts with.
fn resolve(modules: &BTreeSet<String>, module: &[String], named: &Named) -> Option<String> {
    let base = match named.supers {
        0 => &[][..],
        supers => &module[..module.len().saturating_sub(supers)],
    };
    let mut parts: Vec<&str> = base.iter().map(String::as_str).collect();
    parts.extend(named.path.split("::").filter(|p| !p.is_empty() && *p != "self"));
    while !parts.is_empty() {
        let candidate = parts.join("::");
        if modules.contains(&candidate) {
            return Some(candidate);
        }
        parts.pop();
    }
    None
}

/// Every `crate::`/`super::` path of `source`, in `use` lines and in code,
/// outside comments, literals and test code.
fn named_paths(source: &str) -> BTreeSet<Named> {
    let code = without_test_items(&code_only(source));
    let mut found = BTreeSet::new();
    for tree in use_trees(&code) {
        if let Some((supers, rest)) = path_start(&tree) {
            let mut paths = Vec::new();
            expand("", rest, &mut paths);
            found.extend(paths.into_iter().map(|path| Named { supers, path }));
        }
    }
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(offset) = code[at..].find("::") {
        let colons = at + offset;
        at = colons + 2;
        // The word before the first `::` of a path: `crate` or `super`.
        let mut start = colons;
        while start > 0 && is_ident(bytes[start - 1]) {
            start -= 1;
        }
        if start > 0 && (is_ident(bytes[start - 1]) || bytes[start - 1] == b':') {
            continue;
        }
        let word = &code[start..colons];
        if word != "crate" && word != "super" {
            continue;
        }
        let mut end = start;
        while end < bytes.len() {
            let segment = bytes[end..].iter().take_while(|b| is_ident(**b)).count();
            if segment == 0 {
                break;
            }
            end += segment;
            if bytes[end..].starts_with(b"::") && bytes.get(end + 2).is_some_and(|b| is_ident(*b)) {
                end += 2;
            } else {
                break;
            }
        }
        if let Some((supers, rest)) = path_start(&code[start..end])
            && !rest.is_empty()
        {
            found.insert(Named {
                supers,
                path: rest.to_owned(),
            });
        }
        at = at.max(end);
    }
    found
}

/// `crate::a::b` → `(0, "a::b")`, `super::super::a` → `(2, "a")`; `None`
/// for any other path.
fn path_start(path: &str) -> Option<(usize, &str)> {
    let path = path.trim();
    if let Some(rest) = path.strip_prefix("crate::") {
        return Some((0, rest.trim()));
    }
    let mut supers = 0;
    let mut rest = path;
    while let Some(after) = rest.strip_prefix("super::") {
        supers += 1;
        rest = after.trim_start();
    }
    (supers > 0).then_some((supers, rest.trim()))
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The tree of each `use` declaration: `use crate::{a, b::c};` gives
/// `crate::{a, b::c}`.
fn use_trees(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut trees = Vec::new();
    let mut at = 0;
    while let Some(offset) = code[at..].find("use") {
        let start = at + offset;
        at = start + 3;
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(start + 3).copied();
        if before.is_some_and(is_ident) || !after.is_some_and(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        trees.push(code[at..end].split_whitespace().collect::<Vec<_>>().join(" "));
        at = end;
    }
    trees
}

/// The paths a use tree names: `{a::{B, c}, d as e, self}` under `x` gives
/// `x::a::B`, `x::a::c`, `x::d` and `x`.
fn expand(prefix: &str, tree: &str, paths: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = tree[open + 1..].trim_end();
        let inner = inner.strip_suffix('}').unwrap_or(inner);
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
        let name = name.trim_end_matches("::*").trim_end_matches('*');
        paths.push(join(prefix, if name == "self" { "" } else { name }));
    }
}

fn join(prefix: &str, name: &str) -> String {
    let name = name.replace(' ', "");
    match (prefix.is_empty(), name.is_empty()) {
        (true, _) => name,
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{name}"),
    }
}

/// `source` with comments, string and character literals blanked out
/// (lifetimes stay), so that only code is read.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let next_is = |i: usize, text: &str| text.chars().enumerate().all(|(k, c)| chars.get(i + k) == Some(&c));
    while i < chars.len() {
        let c = chars[i];
        let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if next_is(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if next_is(i, "/*") {
            let mut depth = 0;
            while i < chars.len() {
                if next_is(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if next_is(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && !after_ident && matches!(chars.get(i + 1), Some('"' | '#')) {
            // A raw string: r"…", r#"…"#.
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            i += 2 + hashes;
            while i < chars.len() && !next_is(i, &close) {
                i += 1;
            }
            i += close.chars().count();
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (chars.get(i + 1) == Some(&'\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('a', '\n', '\''); a lifetime has no
            // closing quote.
            i += if chars.get(i + 1) == Some(&'\\') { 3 } else { 2 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `code` without each item marked `#[cfg(test)]` (a `mod tests { … }`, a
/// test-only function or `mod` declaration).
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(start) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..start]);
        let item = &rest[start + "#[cfg(test)]".len()..];
        let mut depth = 0;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 && c == '}' {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The import circles of `graph`: each set of modules that all reach one
/// another (a strongly connected component of more than one module).
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(module) = todo.pop() {
            for next in graph.get(&module).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|m| (m, reaches(m))).collect();
    let mut placed = BTreeSet::new();
    let mut circles = Vec::new();
    for module in graph.keys() {
        if placed.contains(module) || !reach[module].contains(module) {
            continue;
        }
        let circle: Vec<String> = reach[module]
            .iter()
            .filter(|other| reach.get(other).is_some_and(|r| r.contains(module)))
            .cloned()
            .collect();
        placed.extend(circle.iter().cloned());
        circles.push(circle);
    }
    circles
}

mod reading {
    use super::*;

    fn named(source: &str) -> Vec<(usize, String)> {
        named_paths(source).into_iter().map(|n| (n.supers, n.path)).collect()
    }

    #[test]
    fn use_trees_name_every_path() {
        let source = "use crate::{Core, db, deliveries::{self, Delivery as D, cache::Ticket}};\n\
                      pub(crate) use super::super::ids;\nuse super::*;\nuse std::sync::Arc;";
        assert_eq!(
            named(source),
            [
                (0, "Core".to_owned()),
                (0, "db".into()),
                (0, "deliveries".into()),
                (0, "deliveries::Delivery".into()),
                (0, "deliveries::cache::Ticket".into()),
                (1, "".into()),
                (2, "ids".into()),
            ]
        );
    }

    #[test]
    fn paths_in_code_count() {
        let source = "fn f() { crate::webhooks::enqueue(db, &rows); let x = super::queue::claim(); \
                      super::super::audit::record(); Vec::<crate::ids::Id>::new(); my_crate::x(); }";
        assert_eq!(
            named(source),
            [
                (0, "ids::Id".to_owned()),
                (0, "webhooks::enqueue".into()),
                (1, "queue::claim".into()),
                (2, "audit::record".into()),
            ]
        );
    }

    #[test]
    fn comments_literals_and_test_code_do_not_count() {
        let source = r####"
            // use crate::a;
            /* crate::b::c() /* nested */ crate::d */
            /// See [`crate::e`].
            const URL: &str = "http://x/crate::f";
            const RAW: &str = r#"super::g "quoted" "#;
            const QUOTE: char = '"';
            const ESCAPED: char = '\'';
            fn h<'a>(x: &'a str) -> &'a str { crate::kept::path(x) }
            #[cfg(test)]
            mod tests { use crate::i; fn j() { super::k(); } }
            #[cfg(test)]
            mod helpers;
            fn l() { crate::also_kept(); }
        "####;
        assert_eq!(named(source), [(0, "also_kept".to_owned()), (0, "kept::path".into())]);
    }

    #[test]
    fn paths_resolve_to_the_module_they_are_in() {
        let modules: BTreeSet<String> = ["webhooks", "webhooks::queue", "events", "events::entity"]
            .map(str::to_owned)
            .into();
        let module = ["webhooks".to_owned(), "dispatch".to_owned()];
        let at = |supers: usize, path: &str| {
            let named = Named {
                supers,
                path: path.to_owned(),
            };
            resolve(&modules, &module, &named)
        };
        assert_eq!(at(1, "queue::claim").as_deref(), Some("webhooks::queue"));
        assert_eq!(at(0, "events::entity::Model").as_deref(), Some("events::entity"));
        assert_eq!(at(2, "events::EventType").as_deref(), Some("events"));
        assert_eq!(at(0, "Core"), None);
    }

    #[test]
    fn a_circle_is_found_with_every_module_in_it() {
        let graph: Graph = [
            ("a", vec!["b"]),
            ("b", vec!["c"]),
            ("c", vec!["a", "d"]),
            ("d", vec![]),
            ("e", vec!["a"]),
        ]
        .into_iter()
        .map(|(m, to)| (m.to_owned(), to.into_iter().map(str::to_owned).collect()))
        .collect();
        assert_eq!(circles(&graph), vec![vec!["a".to_owned(), "b".into(), "c".into()]]);
    }

    #[test]
    fn a_parent_and_its_children_are_no_edge() {
        let root = std::env::temp_dir().join(format!("courier-layering-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("directory");
            std::fs::write(path, text).expect("written");
        };
        write("lib.rs", "pub mod a; pub mod b; use crate::a::x;");
        write(
            "a/mod.rs",
            "pub mod inner; use inner::y; fn f() { crate::a::inner::y(); }",
        );
        write("a/inner.rs", "use super::Thing; fn g() { crate::b::z(); }");
        write("b.rs", "fn z() { crate::a::inner::y(); }");
        let graph = graph(&root);
        let _ = std::fs::remove_dir_all(&root);
        let edges: Vec<(&str, Vec<&str>)> = graph
            .iter()
            .map(|(m, to)| (m.as_str(), to.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(edges, [("a", vec![]), ("a::inner", vec!["b"]), ("b", vec!["a::inner"])]);
        assert_eq!(circles(&graph), vec![vec!["a::inner".to_owned(), "b".into()]]);
    }
}
