//! One finding, one line: `doc:line:column: severity[rule]: message`, as compilers print a
//! diagnostic. What a site build prints for a finding (the mdBook preprocessor on stderr, the
//! Docusaurus plugin in its build log): a build log shows one line per problem and a reader's
//! editor jumps to `doc:line:column`. Control characters are escaped, as the terminal output is.

use crate::escape::printable;
use crate::model::{Finding, Report};

/// `docs/src/setup.md:12:5: error[invented-path]: src/main.rs does not exist at abcd1234`.
pub fn finding(report: &Report, f: &Finding) -> String {
    let doc = &report.docs[f.doc].doc;
    let text = format!(
        "{}:{}:{}: {}[{}]: {}",
        doc.name,
        f.at.line,
        f.at.column,
        f.severity.as_str(),
        f.rule,
        f.message
    );
    printable(&text, false).into_owned()
}

/// Every finding on its line, in the report's order, then the summary line.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&finding(report, f));
        out.push('\n');
    }
    out.push_str(&super::human::summary_line(report));
    out
}
