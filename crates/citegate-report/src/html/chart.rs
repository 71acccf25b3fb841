//! The trend as an inline SVG chart: findings and stale citations per sweep, no script, no
//! external resource; each point says its date and counts in a `<title>` (shown on hover, read
//! by screen readers).

use maud::{html, Markup};

/// One sweep of the trend.
#[derive(Debug, Clone)]
pub struct Point {
    pub date: String,
    /// Short SHA.
    pub revision: String,
    pub findings: usize,
    pub stale: usize,
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 180.0;
const PAD: f64 = 36.0;

/// The chart of `points` (oldest first), or nothing with fewer than two.
pub(super) fn trend(points: &[Point]) -> Option<Markup> {
    if points.len() < 2 {
        return None;
    }
    let top = points.iter().map(|p| p.findings).max().unwrap_or(0).max(1) as f64;
    let x = |i: usize| PAD + (WIDTH - 2.0 * PAD) * i as f64 / (points.len() - 1) as f64;
    let y = |n: usize| HEIGHT - PAD + (2.0 * PAD - HEIGHT) * n as f64 / top;
    let line = |value: &dyn Fn(&Point) -> usize| {
        (points.iter().enumerate())
            .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(value(p))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let all = line(&|p| p.findings);
    let stale = line(&|p| p.stale);
    let label = format!(
        "Findings per sweep, from {} to {}: {} then {}; stale: {} then {}",
        points[0].date,
        points[points.len() - 1].date,
        points[0].findings,
        points[points.len() - 1].findings,
        points[0].stale,
        points[points.len() - 1].stale,
    );
    Some(html! {
        svg.chart viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" aria-label=(label) {
            line.axis x1=(PAD) y1=(HEIGHT - PAD) x2=(WIDTH - PAD) y2=(HEIGHT - PAD) {}
            line.axis x1=(PAD) y1=(PAD) x2=(PAD) y2=(HEIGHT - PAD) {}
            text.tick x=(PAD - 6.0) y=(PAD + 4.0) text-anchor="end" { (top as usize) }
            text.tick x=(PAD - 6.0) y=(HEIGHT - PAD + 4.0) text-anchor="end" { "0" }
            text.tick x=(PAD) y=(HEIGHT - 10.0) { (points[0].date) }
            text.tick x=(WIDTH - PAD) y=(HEIGHT - 10.0) text-anchor="end" { (points[points.len() - 1].date) }
            polyline.all points=(all) {}
            polyline.stale points=(stale) {}
            @for (i, p) in points.iter().enumerate() {
                circle.all cx=(format!("{:.1}", x(i))) cy=(format!("{:.1}", y(p.findings))) r="3" {
                    title { (p.date) " · " (p.revision) ": " (p.findings) " findings, " (p.stale) " stale" }
                }
            }
        }
    })
}
