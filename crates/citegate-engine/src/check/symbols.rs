//! The names of the functions, methods and types that enclose a cited line, found with
//! tree-sitter, so that a claim about `loadConfig()` is supported by a line inside `loadConfig`.

use tree_sitter::{Language, Node, Parser};

/// The grammar for a file, by extension.
pub(crate) fn language_for(path: &str) -> Option<Language> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => tree_sitter_rust::LANGUAGE.into(),
        "py" | "pyi" => tree_sitter_python::LANGUAGE.into(),
        "js" | "mjs" | "cjs" | "jsx" => tree_sitter_javascript::LANGUAGE.into(),
        "ts" | "mts" | "cts" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "go" => tree_sitter_go::LANGUAGE.into(),
        "java" => tree_sitter_java::LANGUAGE.into(),
        "c" | "h" => tree_sitter_c::LANGUAGE.into(),
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => tree_sitter_cpp::LANGUAGE.into(),
        _ => return None,
    })
}

/// A named definition and its 1-based first and last lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// Its name: the last identifier of what it is named by (`name` of `a::b::name`).
    pub name: String,
    /// Its first line (1-based).
    pub start: usize,
    /// Its last line, inclusive.
    pub end: usize,
}

/// A parsed source file, kept for every citation of the same blob.
pub struct Symbols {
    tree: tree_sitter::Tree,
}

impl Symbols {
    /// Parse `source`, or `None` for languages without a grammar here.
    pub fn parse(path: &str, source: &str) -> Option<Symbols> {
        let language = language_for(path)?;
        let mut parser = Parser::new();
        parser.set_language(&language).ok()?;
        let tree = parser.parse(source, None)?;
        Some(Symbols { tree })
    }

    /// Every named definition (function, method, type, impl, class…), outer ones before those
    /// they hold, in source order.
    pub fn definitions(&self, source: &str) -> Vec<Definition> {
        let mut out = Vec::new();
        let mut stack = vec![self.tree.root_node()];
        let mut cursor = self.tree.walk();
        while let Some(node) = stack.pop() {
            if let Some(name) = definition_name(node, source) {
                out.push(Definition {
                    name,
                    start: node.start_position().row + 1,
                    end: node.end_position().row + 1,
                });
            }
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        out
    }

    /// Names of the definitions that enclose 1-based `line` of `source`, innermost first.
    pub fn enclosing(&self, source: &str, line: usize) -> Vec<String> {
        let Some(offset) = first_code_byte(source, line) else {
            return Vec::new();
        };
        let mut node = self
            .tree
            .root_node()
            .descendant_for_byte_range(offset, offset);
        let mut names = Vec::new();
        while let Some(n) = node {
            if let Some(name) = definition_name(n, source) {
                names.push(name);
            }
            node = n.parent();
        }
        names
    }
}

/// The 1-based first and last lines of the Python class or function `qualname` (`Class.method`)
/// of `source`, as Sphinx's `:pyobject:` includes it: from its first decorator to its last line
/// that is not blank or only a comment. `None` when there is no such object.
pub(crate) fn python_object(source: &str, qualname: &str) -> Option<(usize, usize)> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(source, None)?;
    let mut scope = tree.root_node();
    let mut found = None;
    for part in qualname.split('.') {
        let mut cursor = scope.walk();
        let (outer, definition) = scope.named_children(&mut cursor).find_map(|child| {
            let definition = match child.kind() {
                "decorated_definition" => child.child_by_field_name("definition")?,
                _ => child,
            };
            let is_object = matches!(
                definition.kind(),
                "function_definition" | "class_definition"
            );
            let name = definition.child_by_field_name("name")?;
            (is_object && name.utf8_text(source.as_bytes()).ok()? == part)
                .then_some((child, definition))
        })?;
        scope = definition.child_by_field_name("body")?;
        found = Some(outer);
    }
    let node = found?;
    let lines: Vec<&str> = source.lines().collect();
    let start = node.start_position().row;
    let mut end = node.end_position().row.min(lines.len().saturating_sub(1));
    let idle = |l: &str| l.trim().is_empty() || l.trim_start().starts_with('#');
    while end > start && idle(lines[end]) {
        end -= 1;
    }
    Some((start + 1, end + 1))
}

fn first_code_byte(source: &str, line: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        source.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let rest = &source[start..];
    let end = rest.find('\n').unwrap_or(rest.len());
    let indent = rest[..end].len() - rest[..end].trim_start().len();
    Some(start + indent)
}

/// Kinds of nodes that define a named function, method or type in the grammars above.
fn is_definition(kind: &str) -> bool {
    kind.ends_with("function_item")
        || kind.ends_with("function_definition")
        || kind.ends_with("function_declaration")
        || kind.ends_with("method_definition")
        || kind.ends_with("method_declaration")
        || kind.ends_with("constructor_declaration")
        || kind.ends_with("class_definition")
        || kind.ends_with("class_declaration")
        || kind.ends_with("class_specifier")
        || kind.ends_with("struct_specifier")
        || kind.ends_with("interface_declaration")
        || kind.ends_with("enum_declaration")
        || kind.ends_with("type_declaration")
        || kind == "type_spec"
        || matches!(
            kind,
            "struct_item" | "enum_item" | "trait_item" | "impl_item" | "mod_item" | "union_item"
        )
        || kind == "variable_declarator"
        || kind == "lexical_declaration"
}

fn definition_name(node: Node<'_>, source: &str) -> Option<String> {
    let kind = node.kind();
    if !is_definition(kind) {
        return None;
    }
    let named = node
        .child_by_field_name("name")
        .or_else(|| {
            (kind == "impl_item")
                .then(|| node.child_by_field_name("type"))
                .flatten()
        })
        .or_else(|| declarator_name(node));
    let text = named?.utf8_text(source.as_bytes()).ok()?;
    // `impl Foo<T>` or `a::b::name`: the last identifier is the name.
    let last = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .rfind(|s| !s.is_empty())?;
    Some(last.to_string())
}

/// C and C++ put a function's name inside nested declarators.
fn declarator_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.child_by_field_name("declarator")?;
    loop {
        match current.child_by_field_name("declarator") {
            Some(inner) => current = inner,
            None => return Some(current),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_object_is_found_by_its_dotted_name_as_sphinx_includes_it() {
        let source = "import os\n\n\nclass Greeter:\n    @staticmethod\n    def hello():\n        return 1\n\n    # trailing comment\n\n    def bye(self):\n        return 2\n\n\ndef hello():\n    pass\n";
        assert_eq!(python_object(source, "Greeter"), Some((4, 12)));
        assert_eq!(python_object(source, "Greeter.hello"), Some((5, 7)));
        assert_eq!(python_object(source, "Greeter.bye"), Some((11, 12)));
        assert_eq!(python_object(source, "hello"), Some((15, 16)));
        assert_eq!(python_object(source, "Greeter.missing"), None);
        assert_eq!(python_object(source, "os"), None);
        assert_eq!(python_object(source, "bye"), None);
    }

    #[test]
    fn finds_enclosing_functions_and_types() {
        let rust = "struct Cache;\nimpl Cache {\n    fn load_config(&self) {\n        let x = 1;\n    }\n}\n";
        let s = Symbols::parse("a.rs", rust).unwrap();
        assert_eq!(s.enclosing(rust, 4), vec!["load_config", "Cache"]);

        let ts = "export class Store {\n  setMode(m: string) {\n    this.m = m;\n  }\n}\n";
        let s = Symbols::parse("a.ts", ts).unwrap();
        assert_eq!(s.enclosing(ts, 3), vec!["setMode", "Store"]);

        let c = "static int load(void) {\n  return 1;\n}\n";
        let s = Symbols::parse("a.c", c).unwrap();
        assert_eq!(s.enclosing(c, 2), vec!["load"]);

        let py = "class A:\n    def run(self):\n        pass\n";
        let s = Symbols::parse("a.py", py).unwrap();
        assert_eq!(s.enclosing(py, 3), vec!["run", "A"]);

        let go = "package p\nfunc Load() int {\n\treturn 1\n}\n";
        let s = Symbols::parse("a.go", go).unwrap();
        assert_eq!(s.enclosing(go, 3), vec!["Load"]);
    }

    #[test]
    fn definitions_are_listed_outer_first_with_their_lines() {
        let rust = "const A: u8 = 1;\nstruct Cache;\nimpl Cache {\n    fn get(&self) {\n    }\n}\n";
        let s = Symbols::parse("a.rs", rust).unwrap();
        let got: Vec<(String, usize, usize)> = s
            .definitions(rust)
            .into_iter()
            .map(|d| (d.name, d.start, d.end))
            .collect();
        let want = [("Cache", 2, 2), ("Cache", 3, 6), ("get", 4, 5)];
        let want: Vec<(String, usize, usize)> = want
            .iter()
            .map(|(n, a, b)| (n.to_string(), *a, *b))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn unknown_languages_have_no_symbols() {
        assert!(Symbols::parse("a.txt", "x").is_none());
    }
}
