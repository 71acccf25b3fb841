//! `citegate fix`: apply the safe fixes (or print their diff).

use std::process::ExitCode;

use citegate::args::*;
use citegate::escape::printable;
use citegate::fix;

use super::common::*;

pub fn fix_command(args: FixArgs) -> ExitCode {
    let (session, report) = match audit_in_session(args.selection, false, args.repin) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let plan = citegate::audit::fixpoint::plan(&session, &report, args.repin);
    let mut out = String::new();
    let mut failed = false;
    let mut fixed = 0;
    for doc_fix in &plan.docs {
        let doc = &report.docs[doc_fix.doc].doc;
        if args.diff {
            out.push_str(&printable(
                &fix::unified_diff(&doc.name, &doc.text, &doc_fix.after),
                true,
            ));
            continue;
        }
        match fix::write_atomic(&doc.fs_path, doc.text.as_bytes(), doc_fix.after.as_bytes()) {
            Ok(()) => {
                fixed += doc_fix.applied;
                let pins = match doc_fix.pins {
                    0 => String::new(),
                    n => format!(" and moved {n} pin{} to the target", plural(n)),
                };
                out.push_str(&format!(
                    "{}: fixed {} citation{}{pins}\n",
                    printable(&doc.name, false),
                    doc_fix.applied,
                    plural(doc_fix.applied)
                ));
            }
            Err(e) => {
                failed = true;
                eprintln!("citegate: error: {}: {e}", doc.fs_path.display());
            }
        }
    }
    for (doc, b) in &plan.blocked {
        let doc = &report.docs[*doc].doc;
        let line = doc.lines.line(b.edit.byte_start);
        let what = match &b.fix {
            Some(f) => format!("not moved to {}", f.label()),
            // A doc pin's own edit, held with its citations.
            None => "the pin not moved".to_string(),
        };
        out.push_str(&format!(
            "{}:{line}: {}: a citation on this line stays failing, and editing the line would hide it\n",
            printable(&doc.name, false),
            printable(&what, false),
        ));
    }
    for m in report.pin_moves.iter().filter(|m| m.blocked()) {
        out.push_str(&format!(
            "{}: the doc's pin stays where it is: these citations cannot move with it: {}\n",
            printable(&report.docs[m.doc].doc.name, false),
            printable(&m.blocked_by.join(", "), false)
        ));
    }
    if !args.diff {
        out.push_str(&format!(
            "{fixed} citation{} fixed in {} doc{}\n",
            plural(fixed),
            plan.docs.len(),
            plural(plan.docs.len())
        ));
    }
    let code = if failed {
        ExitCode::from(2)
    } else if args.diff && !plan.docs.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    print_out(&out, code)
}
