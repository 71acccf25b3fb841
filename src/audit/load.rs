//! Loading docs: read each file (bounded in size, checked for binary and UTF-8), extract it, and
//! apply the configuration's syntax switches and path remaps. A doc that cannot be read becomes a
//! `malformed-doc` problem, never a failed run.

use crate::config::Config;
use crate::discover::DocFile;
use crate::extract::{self, ExtractContext};
use crate::model::{AuditedDoc, CitedPath, Doc, Extracted, Span, Syntax};
use crate::registry::RuleId;
use crate::resolve::CodeRepo;

/// Docs larger than this are reported, not read.
pub const MAX_DOC_BYTES: u64 = 16 << 20;

/// Read a doc file and extract it. Unreadable docs become a `malformed-doc` problem.
/// `keep` decides, from the doc's name and bytes, whether it is audited at all (`--since`).
pub fn read_and_extract(
    file: &DocFile,
    repo: &CodeRepo,
    ctx: &ExtractContext,
    keep: &(dyn Fn(&str, &[u8]) -> bool + Sync),
) -> Option<AuditedDoc> {
    let rel = repo.relative(&file.path);
    let name = rel
        .clone()
        .unwrap_or_else(|| file.path.to_string_lossy().replace('\\', "/"));
    let repo_dir = rel.map(|r| match r.rsplit_once('/') {
        Some((dir, _)) => dir.to_string(),
        None => String::new(),
    });
    let broken = |text: String, at: usize, message: String| {
        let doc = Doc::new(
            file.path.clone(),
            name.clone(),
            repo_dir.clone(),
            file.kind,
            text,
        );
        let mut extracted = Extracted::default();
        extracted.problem(RuleId::MalformedDoc, Span::new(at, at), message);
        keep(&name, doc.text.as_bytes()).then(|| AuditedDoc::new(doc, extracted))
    };
    match std::fs::metadata(&file.path) {
        Ok(m) if m.len() > MAX_DOC_BYTES => {
            return broken(
                String::new(),
                0,
                format!(
                    "the doc is {} MiB, over the {} MiB limit",
                    m.len() >> 20,
                    MAX_DOC_BYTES >> 20
                ),
            )
        }
        Err(e) => return broken(String::new(), 0, format!("cannot read the doc: {e}")),
        _ => {}
    }
    let bytes = match std::fs::read(&file.path) {
        Ok(b) => b,
        Err(e) => return broken(String::new(), 0, format!("cannot read the doc: {e}")),
    };
    if !keep(&name, &bytes) {
        return None;
    }
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return broken(String::new(), 0, "the doc is a binary file".to_string());
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy text has the same bytes up to the first invalid one.
            return broken(lossy, at, "the doc is not valid UTF-8".to_string());
        }
    };
    let doc = Doc::new(file.path.clone(), name, repo_dir, file.kind, text);
    let extracted = extract::extract(&doc, ctx);
    Some(AuditedDoc::new(doc, extracted))
}

/// Drop the citations of syntaxes the configuration turns off, and apply path remaps.
pub fn configure(d: &mut AuditedDoc, config: &Config) {
    d.extracted.retain_citations(|c| config.syntax_on(c.syntax));
    for remap in &config.remap {
        if !d.doc.name.starts_with(remap.docs.as_str()) {
            continue;
        }
        for c in &mut d.extracted.citations {
            if c.syntax == Syntax::Permalink {
                continue;
            }
            if let CitedPath::Repo(p) = &c.path {
                c.path = crate::extract::resolve_path(p, Some(&remap.repo), false);
                // A rename fix would write the remapped path back: none is offered.
                c.path_span = None;
            }
        }
    }
}
