//! Loading docs: read each file (bounded in size, checked for binary and UTF-8), extract it, and
//! apply the configuration's syntax switches and path remaps. A doc that cannot be read becomes a
//! `malformed-doc` problem, never a failed run.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::discover::DocFile;
use crate::extract::{self, ExtractContext};
use crate::model::{AuditedDoc, CitedPath, Doc, DocKind, Extracted, FileStat, Span, Syntax};
use crate::registry::RuleId;
use crate::resolve::CodeRepo;

/// Docs larger than this are reported, not read.
pub const MAX_DOC_BYTES: u64 = 16 << 20;

/// Read a doc file and extract it. Unreadable docs become a `malformed-doc` problem.
/// `keep` decides, from the doc's name and bytes, whether it is audited at all (`--since`).
pub(crate) fn read_and_extract(
    file: &DocFile,
    repo: &CodeRepo,
    ctx: &ExtractContext,
    keep: &(dyn Fn(&str, &[u8]) -> bool + Sync),
) -> Option<AuditedDoc> {
    let (name, repo_dir) = name_and_dir(repo, &file.path);
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
    let (bytes, stat) = match read_bytes(&file.path) {
        Ok(read) => read,
        Err(message) => return broken(String::new(), 0, message),
    };
    if !keep(&name, &bytes) {
        return None;
    }
    let text = match decode(bytes) {
        Ok(t) => t,
        Err((text, at, message)) => return broken(text, at, message),
    };
    let mut doc = Doc::new(file.path.clone(), name, repo_dir, file.kind, text);
    doc.stat = stat;
    let extracted = extract::extract(&doc, ctx);
    Some(AuditedDoc::new(doc, extracted))
}

/// A doc held in memory (an editor's buffer) as if read from `path`: named, placed and extracted
/// as `read_and_extract` would the file, with the configuration applied. A text over
/// [`MAX_DOC_BYTES`] is a `malformed-doc` problem, as the file would be.
pub fn from_text(
    path: &Path,
    kind: DocKind,
    text: String,
    repo: &CodeRepo,
    ctx: &ExtractContext,
    config: &Config,
) -> AuditedDoc {
    let (name, repo_dir) = name_and_dir(repo, path);
    named(path.to_path_buf(), name, repo_dir, kind, text, ctx, config)
}

/// The one builder of a doc held in memory, named `name` (its file `fs_path`, its folder in the
/// repository `repo_dir`): the size cap, extraction and the configuration, as every doc read
/// from disk gets them. The language server, the gate, `regenerate` and the MCP server build
/// their docs here.
pub fn named(
    fs_path: PathBuf,
    name: String,
    repo_dir: Option<String>,
    kind: DocKind,
    text: String,
    ctx: &ExtractContext,
    config: &Config,
) -> AuditedDoc {
    if text.len() as u64 > MAX_DOC_BYTES {
        let doc = Doc::new(fs_path, name, repo_dir, kind, String::new());
        let mut extracted = Extracted::default();
        let message = format!(
            "the doc is {} MiB, over the {} MiB limit",
            text.len() >> 20,
            MAX_DOC_BYTES >> 20
        );
        extracted.problem(RuleId::MalformedDoc, Span::new(0, 0), message);
        return AuditedDoc::new(doc, extracted);
    }
    let doc = Doc::new(fs_path, name, repo_dir, kind, text);
    let extracted = extract::extract(&doc, ctx);
    let mut doc = AuditedDoc::new(doc, extracted);
    configure(&mut doc, config);
    doc
}

/// `doc` with another text (its fixes applied, to check them): named and placed as `doc`,
/// extracted and configured again.
pub(crate) fn with_text(
    doc: &Doc,
    text: String,
    ctx: &ExtractContext,
    config: &Config,
) -> AuditedDoc {
    let again = Doc::new(
        doc.fs_path.clone(),
        doc.name.clone(),
        doc.repo_dir.clone(),
        doc.kind,
        text,
    );
    let extracted = extract::extract(&again, ctx);
    let mut again = AuditedDoc::new(again, extracted);
    configure(&mut again, config);
    again
}

/// The name a doc at `path` is reported under, and its folder in the repository when inside it.
fn name_and_dir(repo: &CodeRepo, path: &Path) -> (String, Option<String>) {
    let repo_dir = repo.relative(path).map(|r| match r.rsplit_once('/') {
        Some((dir, _)) => dir.to_string(),
        None => String::new(),
    });
    (doc_name(repo, path), repo_dir)
}

/// Drop the citations of syntaxes the configuration turns off, and apply path remaps.
pub(crate) fn configure(d: &mut AuditedDoc, config: &Config) {
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
                c.path = crate::paths::resolve_path(p, Some(&remap.repo), false);
                // A rename fix would write the remapped path back: none is offered.
                c.path_span = None;
            }
        }
    }
}

/// The name a doc is reported under: repo-relative when it is inside the repository, else its path
/// as given.
pub fn doc_name(repo: &CodeRepo, path: &Path) -> String {
    repo.relative(path)
        .unwrap_or_else(|| path.to_string_lossy().replace('\\', "/"))
}

/// The bytes of a doc, read only when it is a regular file within the size limit: a symbolic
/// link is never followed (it could lead out of the repository, and `fix` would replace it), nor
/// is a folder on its way that is one, and a FIFO or device is never opened (reading one can
/// block forever). With the bytes, the file's stat data taken after reading them (see
/// [`FileStat`]).
fn read_bytes(path: &Path) -> Result<(Vec<u8>, Option<FileStat>), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read the doc: {e}"))?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err("the doc is a symbolic link: not followed".to_string());
    }
    // A committed `wiki/sub -> ../../outside`: the doc's real place is elsewhere, and `fix` would
    // write there.
    if let Err(crate::output::OutputError::ThroughLink(link)) =
        crate::output::refuse_links_on_the_way(path)
    {
        return Err(format!(
            "the doc is behind a symbolic link ({}): not followed",
            link.display()
        ));
    }
    if !kind.is_file() {
        return Err(
            "the doc is not a regular file (a FIFO, socket or device): not read".to_string(),
        );
    }
    if meta.len() > MAX_DOC_BYTES {
        return Err(format!(
            "the doc is {} MiB, over the {} MiB limit",
            meta.len() >> 20,
            MAX_DOC_BYTES >> 20
        ));
    }
    let failed = |e: std::io::Error| format!("cannot read the doc: {e}");
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(failed)?;
    let stat = file.metadata().ok().as_ref().and_then(FileStat::of);
    Ok((bytes, stat))
}

/// A doc's bytes as text; or what can be shown of it, where it goes wrong, and why.
fn decode(bytes: Vec<u8>) -> Result<String, (String, usize, String)> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        let message = "the doc is UTF-16 (it starts with a UTF-16 byte-order mark): citegate reads UTF-8; convert it (`iconv -f UTF-16 -t UTF-8`)";
        return Err((String::new(), 0, message.to_string()));
    }
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err((String::new(), 0, "the doc is a binary file".to_string()));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        // The lossy text has the same bytes up to the first invalid one.
        let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
        (lossy, at, "the doc is not valid UTF-8".to_string())
    })
}
