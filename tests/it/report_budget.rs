//! Reports that fit where they go: a sweep with 25,000 findings renders a Markdown report within
//! GitHub's issue-body limit, leading with the totals and ending with where the full report is;
//! annotations stay within what GitHub shows per step and say how many were left out.

use citegate::audit::AuditOptions;
use citegate::report::{github, markdown};
use citegate::sweep;
use citegate::testing::Fixture;

fn big_fixture() -> Fixture {
    let mut spec = String::from("@@@ commit v1 code\n@@@ file src/a.rs\nfn a() {}\n");
    for d in 0..50 {
        spec.push_str(&format!("@@@ file docs/d{d:02}.md\n"));
        for i in 0..500 {
            spec.push_str(&format!("Claim {i}: src/missing{d}_{i}.rs:1.\n"));
        }
    }
    spec.push_str("@@@ file docs/warn.md\n`WRONG` is in src/a.rs:1.\n");
    Fixture::build(&spec).unwrap()
}

#[test]
fn a_sweep_of_25000_findings_fits_an_issue_body() {
    let fx = big_fixture();
    let report = fx.audit(&["docs"], AuditOptions::default()).unwrap();
    assert_eq!(report.summary.by_rule["invented-path"], 25_000);
    let text = sweep::render(&report, None, None, markdown::DEFAULT_MAX_BYTES);
    assert!(text.len() <= 65_536, "{} bytes", text.len());
    assert!(text.chars().count() <= 65_536);
    // The totals lead; the counts of what is left out and the pointer to the full report close.
    let head: String = text.lines().take(8).collect::<Vec<_>>().join("\n");
    assert!(head.contains("25001 citations in 51 docs"), "{head}");
    assert!(head.contains("25000 errors, 1 warning"), "{head}");
    assert!(text.contains("| invented | `invented-path` | 25000 |"));
    let last = text.trim_end().lines().last().unwrap();
    assert!(
        last.contains("not shown") && last.contains("--write json="),
        "{last}"
    );
    let shown = text.matches("| `invented-path` | error |").count();
    let left: usize = last
        .trim_start_matches('_')
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(shown + left, 25_000, "every finding is shown or counted");
    // A smaller budget is kept too.
    assert!(sweep::render(&report, None, None, 20_000).len() <= 20_000);
}

#[test]
fn annotations_stay_within_what_github_shows_and_say_what_is_left_out() {
    let fx = big_fixture();
    let report = fx.audit(&["docs"], AuditOptions::default()).unwrap();
    let text = github::render(&report);
    let count = |kind: &str| text.lines().filter(|l| l.starts_with(kind)).count();
    assert_eq!(count("::error "), github::PER_STEP);
    assert_eq!(
        count("::warning "),
        1,
        "the warning is not crowded out by errors"
    );
    let notice = text.lines().last().unwrap();
    assert!(
        notice.starts_with("::notice title=citegate::24990 more findings are not annotated"),
        "{notice}"
    );
}

#[test]
fn a_history_line_with_a_1_mib_date_cannot_push_the_sweep_report_over_its_budget() {
    let fx = Fixture::build("@@@ commit v1\n@@@ file docs/a.md\nSee src/missing.rs:1.\n").unwrap();
    let report = fx.audit(&["docs"], AuditOptions::default()).unwrap();
    let since = sweep::history::Since {
        date: "é".repeat(1 << 19),
        revision: "`|<b>".repeat(1 << 18),
        new: 1,
        fixed: 0,
    };
    let text = sweep::render(&report, None, Some(&since), 60_000);
    assert!(text.len() <= 60_000, "{} bytes", text.len());
    assert!(text.contains("### Since the sweep of"), "{text}");
}
