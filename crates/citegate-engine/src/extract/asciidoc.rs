//! AsciiDoc's include directive, as Asciidoctor and Antora read it: `include::PATH[ATTRS]` on a
//! line of its own (a `\` before it escapes it), the file's lines rendered when the site is built:
//!
//! | written | cites |
//! |---|---|
//! | `include::a.rb[]` | the whole file |
//! | `include::a.rb[lines=10..20]` | lines 10-20 (`1..3;8..9`, or `"1..3,8..9"`: several citations) |
//! | `include::a.rb[lines=10..-1]` | line 10 to the end: the file, checked as a whole |
//! | `include::a.rb[tag=name]`, `tags=a;b` | between `tag::name[]` and `end::name[]`: checked by name |
//!
//! PATH is relative to the doc's folder, after the doc's own attributes (`:sourcedir: ../src`,
//! then `{sourcedir}/a.rb`) are put in; Antora's resource IDs (`example$a.rb`, `partial$b.adoc`,
//! `other-module:example$c.rb`) name the module's family folder (`modules/ROOT/examples/`). An
//! ID of another component, a tag wildcard or a negated tag cites nothing checkable and is skipped.
//! A reference to an attribute the doc does not define is kept as written, and reported missing.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::context::ExtractContext;
use crate::model::{
    Citation, Doc, Extracted, IncludePart, LineRange, LineStyle, Markers, PathStyle, Span, Syntax,
};
use crate::paths::resolve_path;

/// `include::target[attrs]` on a line of its own.
static INCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<escape>\\?)include::(?P<target>[^\[\s][^\[]*)\[(?P<attrs>[^\]]*)\][ \t]*$")
        .expect("include pattern")
});

/// A document attribute entry: `:name: value`.
static ATTRIBUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^:(?P<name>\w[-\w]*):[ \t]*(?P<value>.*?)[ \t]*$").expect("attribute pattern")
});

/// One of an include's attributes: `lines=1..3;5..6`, `tag=name`.
static ATTR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?P<key>\w+)=(?:"(?P<quoted>[^"]*)"|(?P<plain>[^,]*))"#).expect("attr pattern")
});

/// Add an AsciiDoc doc's include directives to its citations.
pub(super) fn includes(doc: &Doc, _ctx: &ExtractContext, ext: &mut Extracted) {
    if !doc.text.contains("include::") {
        return;
    }
    let mut attributes: HashMap<String, String> = HashMap::new();
    let mut found = Vec::new();
    let mut comment = false;
    let mut at = 0;
    for line in doc.text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        if line.starts_with("////") && line.trim_end().chars().all(|c| c == '/') {
            comment = !comment;
            continue;
        }
        if comment || line.starts_with("//") {
            continue;
        }
        if let Some(a) = ATTRIBUTE.captures(line) {
            attributes.insert(a["name"].to_string(), a["value"].to_string());
            continue;
        }
        let Some(caps) = INCLUDE.captures(line) else {
            continue;
        };
        if !caps["escape"].is_empty() {
            continue;
        }
        let target = caps.name("target").expect("target group");
        let attrs = caps.name("attrs").expect("attrs group");
        let directive = Directive {
            doc,
            span: Span::new(start, start + line.len()),
            target: target.as_str(),
            target_at: start + target.start(),
            attrs: attrs.as_str(),
            attrs_at: start + attrs.start(),
        };
        directive.cite(&attributes, &mut found);
    }
    ext.supersede(found, &[]);
}

/// One include directive as written.
struct Directive<'a> {
    doc: &'a Doc,
    span: Span,
    target: &'a str,
    target_at: usize,
    attrs: &'a str,
    attrs_at: usize,
}

impl Directive<'_> {
    fn cite(&self, attributes: &HashMap<String, String>, found: &mut Vec<Citation>) {
        if self.target.contains("://") {
            return;
        }
        let Some((base, path)) = self.resolve(&substitute(self.target, attributes)) else {
            return;
        };
        let cited = resolve_path(&path, Some(&base), false);
        // A path written with an attribute or a resource ID is not rewritten by a fix.
        let plain = path == self.target;
        let citation = || {
            let mut c = Citation::new(
                Syntax::AsciidocInclude,
                self.span,
                self.target,
                cited.clone(),
            );
            c.path_span = plain.then(|| {
                let span = Span::new(self.target_at, self.target_at + self.target.len());
                let base = base.clone();
                (
                    span,
                    PathStyle::Include {
                        base,
                        rooted: false,
                    },
                )
            });
            c
        };
        let mut attrs = ATTR.captures_iter(self.attrs);
        let attr = attrs.find(|a| ["lines", "tag", "tags"].contains(&&a["key"]));
        let Some(attr) = attr else {
            found.push(citation());
            return;
        };
        let value = attr.name("quoted").or(attr.name("plain")).expect("a value");
        let value_at = self.attrs_at + value.start();
        if &attr["key"] != "lines" {
            let tags: Vec<&str> = value.as_str().split([';', ',']).map(str::trim).collect();
            if tags.iter().any(|t| t.is_empty() || t.contains(['*', '!'])) {
                return; // A wildcard or a negated tag: what is left is not one named section.
            }
            for tag in tags {
                let mut c = citation();
                c.include = Some(IncludePart::Section(Markers::AsciiDoc(tag.to_string())));
                found.push(c);
            }
            return;
        }
        let mut offset = value_at;
        for raw in value.as_str().split([';', ',']) {
            let lead = raw.len() - raw.trim_start().len();
            let part = raw.trim();
            let span = Span::new(offset + lead, offset + lead + part.len());
            offset += raw.len() + 1;
            let mut c = citation();
            let number = |s: &str| s.parse::<i64>().ok();
            match part.split_once("..") {
                None => match number(part) {
                    Some(n) => c.lines = Some(LineRange::single(n)),
                    None => c.bad_lines = Some(part.to_string()),
                },
                Some((s, "-1" | "")) => match number(s) {
                    Some(n) => c.include = Some(IncludePart::From(n)),
                    None => c.bad_lines = Some(part.to_string()),
                },
                Some((s, e)) => match number(s).zip(number(e)) {
                    Some((s, e)) => c.lines = Some(LineRange::new(s, e)),
                    None => c.bad_lines = Some(part.to_string()),
                },
            }
            if c.lines.is_some() {
                c.lines_span = Some((span, LineStyle::Dots));
            }
            found.push(c);
        }
    }

    /// The folder the target is relative to and the target, an Antora resource ID made a path
    /// from the component's root; `None` for another component's.
    fn resolve(&self, target: &str) -> Option<(String, String)> {
        let dir = self.doc.repo_dir.clone().unwrap_or_default();
        let Some((id, path)) = target.split_once('$') else {
            return Some((dir, target.to_string()));
        };
        let (module, family) = match id.rsplit_once(':') {
            Some((module, family)) if !module.contains(['@', ':']) => (Some(module), family),
            Some(_) => return None,
            None => (None, id),
        };
        // The page's own module: `…/modules/NAME/pages/…`.
        let parts: Vec<&str> = dir.split('/').collect();
        let at = parts.iter().rposition(|p| *p == "modules")?;
        let root = parts[..at].join("/");
        let module = module.or(parts.get(at + 1).copied())?;
        let folder = match family {
            "example" => "examples",
            "partial" => "partials",
            "page" => "pages",
            "attachment" => "attachments",
            "image" => "images",
            _ => return None,
        };
        let base = [root.as_str(), "modules", module, folder]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        Some((base, path.to_string()))
    }
}

/// The target with the doc's attributes put in (`{sourcedir}`); an unknown one is kept.
fn substitute(target: &str, attributes: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(target.len());
    let mut rest = target;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..open + close];
        match attributes.get(name) {
            Some(value) => out.push_str(value),
            None => out.push_str(&rest[open..=open + close]),
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DocKind;

    fn read(name: &str, text: &str) -> Vec<Citation> {
        let dir = name.rsplit_once('/').map(|(d, _)| d.to_string());
        let doc = Doc::new(
            name.into(),
            name.into(),
            dir,
            DocKind::AsciiDoc,
            text.into(),
        );
        let mut ext = Extracted::default();
        includes(&doc, &ExtractContext::default(), &mut ext);
        ext.citations.to_vec()
    }

    #[test]
    fn includes_with_lines_tags_attributes_and_antora_ids() {
        let text = "= Page\n:sourcedir: ../../../../src\n\ninclude::{sourcedir}/a.rb[lines=2..4;9]\n\n[source,ruby]\n----\ninclude::example$hello.rb[tag=greet]\n----\n\ninclude::other:partial$p.adoc[]\ninclude::comp:mod:example$x.rb[]\n\\include::escaped.rb[]\n// include::commented.rb[]\ninclude::gone.rb[lines=\"1..2,5..-1\"]\n";
        let found = read("docs/modules/ROOT/pages/index.adoc", text);
        let cited: Vec<String> = found.iter().map(Citation::label).collect();
        assert_eq!(
            cited,
            [
                "src/a.rb:2-4",
                "src/a.rb:9",
                "docs/modules/ROOT/examples/hello.rb",
                "docs/modules/other/partials/p.adoc",
                "docs/modules/ROOT/pages/gone.rb:1-2",
                "docs/modules/ROOT/pages/gone.rb",
            ]
        );
        assert!(found[0].path_span.is_none());
        let (span, style) = found[0].lines_span.unwrap();
        assert_eq!(&text[span.start..span.end], "2..4");
        assert_eq!(style.render(LineRange::new(3, 5)), "3..5");
        assert_eq!(
            found[2].include,
            Some(IncludePart::Section(Markers::AsciiDoc("greet".into())))
        );
        assert_eq!(found[5].include, Some(IncludePart::From(5)));
        let (span, _) = found[4].path_span.clone().unwrap();
        assert_eq!(&text[span.start..span.end], "gone.rb");
    }
}
