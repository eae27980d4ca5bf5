//! The modules of each crate of the service read top-down (ARCHITECTURE.md,
//! "Layers"): no module imports, directly or through others, a module that
//! imports it. The crate root counts as a module too: what it declares
//! itself (`Store`) sits above the modules it names (`db::Reader`), and a
//! module naming it (`crate::Store`) ties them in a circle; an item the root
//! re-exports (`pub use error::CoreError`) is its own module's. Every way one module names another counts: `use crate::…`
//! and `use super::…` (`super::super::…`) lines, and paths written in code
//! (`crate::webhooks::enqueue(…)`, `super::queue::claim(…)`). Comments,
//! string literals and test code (`#[cfg(test)]` items) are left out. A
//! module naming its own parent or one of its children is no edge: that is
//! how Rust declares modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Whether the crate root is read as a module of its own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Root {
    Read,
    /// Left out: the root still holds the handle every module takes.
    Skipped,
}

#[test]
fn the_store_has_no_import_circle() {
    assert_no_circle("store/src", 10, Root::Read);
}

#[test]
fn the_pricing_engine_has_no_import_circle() {
    assert_no_circle("pricing/src", 6, Root::Read);
}

#[test]
fn the_planner_has_no_import_circle() {
    assert_no_circle("planner/src", 4, Root::Read);
}

#[test]
fn identity_has_no_import_circle() {
    assert_no_circle("identity/src", 20, Root::Read);
}

#[test]
fn orders_have_no_import_circle() {
    assert_no_circle("orders/src", 40, Root::Read);
}

/// The core's root declares `Core`, the handle nearly every rule takes;
/// what it holds is declared below the rules (ARCHITECTURE.md "Layers").
#[test]
fn the_core_has_no_import_circle() {
    assert_no_circle("core/src", 15, Root::Read);
}

#[test]
fn the_server_has_no_import_circle() {
    assert_no_circle("server/src", 10, Root::Read);
}

#[test]
fn the_edge_has_no_import_circle() {
    assert_no_circle("edge/src", 20, Root::Read);
}

#[test]
fn the_console_has_no_import_circle() {
    assert_no_circle("console/src", 10, Root::Read);
}

/// ARCHITECTURE.md's diagram of the core's layers ("Layers", the block
/// after "The core, from the top") is true: every module of the core is in
/// it (a module not named sits with its nearest named ancestor), every
/// name in it is a module, and no module imports one on a line above its
/// own.
#[test]
fn the_diagram_of_the_core_is_true() {
    assert_diagram_is_true("The core, from the top", "core/src");
}

/// The same of identity's diagram ("Identity, from the top").
#[test]
fn the_diagram_of_identity_is_true() {
    assert_diagram_is_true("Identity, from the top", "identity/src");
}

/// The same of the orders' diagram ("Orders, from the top").
#[test]
fn the_diagram_of_orders_is_true() {
    assert_diagram_is_true("Orders, from the top", "orders/src");
}

/// The diagram after `heading` in ARCHITECTURE.md is true of the crate at
/// `src`.
fn assert_diagram_is_true(heading: &str, src: &str) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(manifest.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let diagram = text
        .split_once(heading)
        .and_then(|(_, after)| after.split_once("```\n"))
        .and_then(|(_, block)| block.split_once("```"))
        .map(|(block, _)| block)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has a diagram after {heading:?}"));
    let graph = graph(&manifest.join(src), Root::Read);
    let mut line_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut unknown = Vec::new();
    for (line, row) in diagram.lines().enumerate() {
        for name in diagram_names(row, graph.keys()) {
            if graph.contains_key(&name) {
                line_of.insert(name, line);
            } else {
                unknown.push(name);
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "the diagram of {src} names what is no module of it: {unknown:?}"
    );
    let placed = |module: &str| -> Option<usize> {
        let mut parts: Vec<&str> = module.split("::").collect();
        while !parts.is_empty() {
            if let Some(line) = line_of.get(&parts.join("::")) {
                return Some(*line);
            }
            parts.pop();
        }
        None
    };
    let is_test = |m: &str| {
        m.rsplit("::")
            .next()
            .is_some_and(|name| name == "tests" || name.ends_with("_tests"))
    };
    let missing: Vec<&String> = graph.keys().filter(|m| !is_test(m) && placed(m).is_none()).collect();
    assert!(
        missing.is_empty(),
        "modules of {src} missing from its diagram: {missing:?}"
    );
    let upward: Vec<String> = graph
        .iter()
        .filter(|(from, _)| !is_test(from))
        .flat_map(|(from, targets)| targets.iter().map(move |to| (from, to)))
        .filter(|(from, to)| placed(from) > placed(to))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(
        upward.is_empty(),
        "the diagram of {src} puts these imports' targets above their importers:\n  {}",
        upward.join("\n  ")
    );
}

/// The modules a row of the diagram names, before its description (three
/// spaces or more): `a`, `a(+b, c)` (`a`, `a::b`, `a::c`), `a::{b, c}`
/// (`a::b`, `a::c`), `a::*` (`a` and every module below it) and `lib` (the
/// crate root), two spaces apart.
fn diagram_names<'a>(row: &str, modules: impl Iterator<Item = &'a String> + Clone) -> Vec<String> {
    let entries = row.split("   ").next().unwrap_or_default();
    let mut names = Vec::new();
    for entry in entries.split("  ").map(str::trim).filter(|e| !e.is_empty()) {
        if entry == "lib" {
            names.push(String::new());
        } else if let Some(parent) = entry.strip_suffix("::*") {
            let below = format!("{parent}::");
            names.push(parent.to_owned());
            names.extend(modules.clone().filter(|m| m.starts_with(&below)).cloned());
        } else if let Some((parent, rest)) = entry.split_once("(+") {
            names.push(parent.to_owned());
            let children = rest.trim_end_matches(')').split(',');
            names.extend(children.map(|c| format!("{parent}::{}", c.trim())));
        } else if let Some((parent, rest)) = entry.split_once("::{") {
            let children = rest.trim_end_matches('}').split(',');
            names.extend(children.map(|c| format!("{parent}::{}", c.trim())));
        } else {
            names.push(entry.to_owned());
        }
    }
    names
}

/// Fails on each import circle among the modules of `src` (a directory of
/// this workspace), naming its modules and the imports that tie them.
fn assert_no_circle(src: &str, at_least: usize, crate_root: Root) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let graph = graph(&root, crate_root);
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
            let named: Vec<&str> = modules
                .iter()
                .map(|m| if m.is_empty() { "(crate root)" } else { m })
                .collect();
            format!("  {}  ({})", named.join(", "), ties.join("; "))
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
/// ancestors and descendants; the crate root (`""`) too where `crate_root`
/// says so, less only itself, with the paths it writes to its modules
/// without `crate::` (`db::Reader`).
fn graph(root: &Path, crate_root: Root) -> Graph {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(root, f).join("::")).collect();
    let tops: BTreeSet<String> = modules
        .iter()
        .filter_map(|m| m.split("::").next())
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect();
    let root_file = files.iter().find(|f| module_of(root, f).is_empty());
    let root_source = root_file.map(|f| std::fs::read_to_string(f).expect("readable source file"));
    let crate_items = CrateItems {
        read: crate_root == Root::Read,
        reexports: root_source
            .as_deref()
            .map(|s| reexports(s, &modules, &tops))
            .unwrap_or_default(),
    };
    let mut graph = Graph::new();
    for file in &files {
        let module = module_of(root, file);
        let name = module.join("::");
        let is_root = name.is_empty();
        if is_root && !crate_items.read {
            continue;
        }
        let source = std::fs::read_to_string(file).expect("readable source file");
        let relative = if is_root { tops.clone() } else { BTreeSet::new() };
        let targets = named_paths(&source, &relative)
            .iter()
            .filter_map(|path| resolve(&modules, &crate_items, &module, path))
            .filter(|target| {
                target != &name
                    && (is_root
                        || (!name.starts_with(&format!("{target}::")) && !target.starts_with(&format!("{name}::"))))
            })
            .collect();
        graph.insert(name, targets);
    }
    graph
}

/// What a path that names no module resolves to: an item of the crate root.
#[derive(Default)]
struct CrateItems {
    /// Whether the root is a module of the graph (else such paths name none).
    read: bool,
    /// Items the root re-exports, with the module that holds them (`None`:
    /// another crate).
    reexports: BTreeMap<String, Option<String>>,
}

/// The items the crate root `source` imports, with the module that holds
/// each: one of its own (`pub use error::{CoreError, CoreResult}`), or
/// `None` for another crate's (`pub use courier_store::Store`), which
/// names nothing of this crate.
fn reexports(source: &str, modules: &BTreeSet<String>, tops: &BTreeSet<String>) -> BTreeMap<String, Option<String>> {
    let code = without_test_items(&code_only(source));
    let mut items = BTreeMap::new();
    for tree in use_trees(&code) {
        let tree = tree.strip_prefix("crate::").unwrap_or(&tree);
        let own = tops.iter().any(|top| tree.starts_with(&format!("{top}::")));
        let mut paths = Vec::new();
        expand("", tree, &mut paths);
        for path in paths {
            let item = path.rsplit("::").next().unwrap_or(&path).to_owned();
            if !own {
                items.insert(item, None);
                continue;
            }
            let named = Named { supers: 0, path };
            if let Some(module) = resolve(modules, &CrateItems::default(), &[], &named) {
                items.insert(item, Some(module));
            }
        }
    }
    items
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
/// longest module its path starts with; for a path to an item of the crate
/// root, the module that holds it when the root re-exports it, else the
/// root itself (when it is read).
fn resolve(modules: &BTreeSet<String>, crate_items: &CrateItems, module: &[String], named: &Named) -> Option<String> {
    let base = match named.supers {
        0 => &[][..],
        supers => &module[..module.len().saturating_sub(supers)],
    };
    let mut parts: Vec<&str> = base.iter().map(String::as_str).collect();
    parts.extend(named.path.split("::").filter(|p| !p.is_empty() && *p != "self"));
    let first = parts.first().map(|p| (*p).to_owned());
    while !parts.is_empty() {
        let candidate = parts.join("::");
        if modules.contains(&candidate) {
            return Some(candidate);
        }
        parts.pop();
    }
    match first.and_then(|item| crate_items.reexports.get(&item)) {
        Some(holder) => holder.clone(),
        None => crate_items.read.then(String::new),
    }
}

/// Every `crate::`/`super::` path of `source`, in `use` lines and in code,
/// outside comments, literals and test code; and every path that starts
/// with one of `relative` (the crate root's own modules, as the root names
/// them).
fn named_paths(source: &str, relative: &BTreeSet<String>) -> BTreeSet<Named> {
    let code = supers_of_the_file(&without_test_items(&code_only(source)));
    let mut found = BTreeSet::new();
    for tree in use_trees(&code) {
        if let Some((supers, rest)) = path_start(&tree, relative) {
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
        if word != "crate" && word != "super" && !relative.contains(word) {
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
        if let Some((supers, rest)) = path_start(&code[start..end], relative)
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

/// `crate::a::b` → `(0, "a::b")`, `super::super::a` → `(2, "a")`, and
/// `a::b` → `(0, "a::b")` where `a` is one of `relative`; `None` for any
/// other path.
fn path_start<'a>(path: &'a str, relative: &BTreeSet<String>) -> Option<(usize, &'a str)> {
    let path = path.trim();
    if let Some(rest) = path.strip_prefix("crate::") {
        return Some((0, rest.trim()));
    }
    if relative.iter().any(|top| path.starts_with(&format!("{top}::"))) {
        return Some((0, path));
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

/// `code` with each `super::` written inside an inline module (`mod act {
/// use super::Act; }`) that names the file's own module dropped, so that
/// every path left is as the file's module would write it.
fn supers_of_the_file(code: &str) -> String {
    let bytes = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    // Brace depths at which the inline modules around `at` opened.
    let mut modules: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut at = 0;
    while at < bytes.len() {
        let rest = &code[at..];
        let starts_word = at == 0 || !is_ident(bytes[at - 1]);
        if starts_word && rest.starts_with("mod ") {
            let name_end = rest[4..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(rest.len(), |e| 4 + e);
            if rest[name_end..].trim_start().starts_with('{') {
                modules.push(depth + 1);
            }
        }
        if starts_word && !modules.is_empty() && rest.starts_with("super::") {
            // Up to one `super` per inline module around it names the file.
            let mut supers: usize = 0;
            while code[at..].starts_with("super::") {
                at += "super::".len();
                supers += 1;
            }
            out.push_str(&"super::".repeat(supers.saturating_sub(modules.len())));
            continue;
        }
        match bytes[at] {
            b'{' => depth += 1,
            b'}' => {
                if modules.last() == Some(&depth) {
                    modules.pop();
                }
                depth -= 1;
            }
            _ => {}
        }
        let len = rest.chars().next().map_or(1, char::len_utf8);
        out.push_str(&rest[..len]);
        at += len;
    }
    out
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
        named_paths(source, &BTreeSet::new())
            .into_iter()
            .map(|n| (n.supers, n.path))
            .collect()
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
            resolve(&modules, &CrateItems::default(), &module, &named)
        };
        assert_eq!(at(1, "queue::claim").as_deref(), Some("webhooks::queue"));
        assert_eq!(at(0, "events::entity::Model").as_deref(), Some("events::entity"));
        assert_eq!(at(2, "events::EventType").as_deref(), Some("events"));
        assert_eq!(at(0, "Core"), None);
        let root_read = CrateItems {
            read: true,
            reexports: [("CoreError".to_owned(), Some("events".to_owned()))].into(),
        };
        let at_root = |path: &str| {
            let named = Named {
                supers: 0,
                path: path.to_owned(),
            };
            resolve(&modules, &root_read, &module, &named)
        };
        assert_eq!(at_root("Core").as_deref(), Some(""));
        assert_eq!(at_root("CoreError").as_deref(), Some("events"));
    }

    #[test]
    fn a_super_inside_an_inline_module_names_the_file_s_own_module() {
        let source = "pub struct Act; pub mod act { use super::Act; fn f() { super::super::b::g(); } } \
                      fn h() { super::c::i(); }";
        assert_eq!(named(source), vec![(1, "b::g".to_owned()), (1, "c::i".to_owned())]);
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
        let graph = graph(&root, Root::Skipped);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(
            edges(&graph),
            [("a", vec![]), ("a::inner", vec!["b"]), ("b", vec!["a::inner"])]
        );
        assert_eq!(circles(&graph), vec![vec!["a::inner".to_owned(), "b".into()]]);
    }

    #[test]
    fn the_crate_root_is_a_module_above_those_it_names() {
        let root = std::env::temp_dir().join(format!("courier-layering-root-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            std::fs::create_dir_all(&root).expect("directory");
            std::fs::write(root.join(path), text).expect("written");
        };
        write(
            "lib.rs",
            "pub mod a; pub mod b; pub mod c; pub use c::Error; pub use other::Clock; \
             pub struct Handle { pool: b::Pool }",
        );
        write(
            "a.rs",
            "fn f(h: &crate::Handle, c: crate::Clock) -> Result<(), crate::Error> { Ok(()) }",
        );
        write(
            "b.rs",
            "pub struct Pool; fn g(c: crate::Clock) -> Option<crate::Error> { None }",
        );
        write("c.rs", "pub struct Error;");
        let read = graph(&root, Root::Read);
        let skipped = graph(&root, Root::Skipped);
        write("b.rs", "pub struct Pool; fn g(h: &crate::Handle) {}");
        let tied = graph(&root, Root::Read);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(
            edges(&read),
            [
                ("", vec!["b", "c"]),
                ("a", vec!["", "c"]),
                ("b", vec!["c"]),
                ("c", vec![])
            ]
        );
        assert!(circles(&read).is_empty());
        assert_eq!(edges(&skipped), [("a", vec!["c"]), ("b", vec!["c"]), ("c", vec![])]);
        assert_eq!(circles(&tied), vec![vec!["".to_owned(), "b".into()]]);
    }

    fn edges(graph: &Graph) -> Vec<(&str, Vec<&str>)> {
        graph
            .iter()
            .map(|(m, to)| (m.as_str(), to.iter().map(String::as_str).collect()))
            .collect()
    }
}
