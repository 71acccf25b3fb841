//! Build a fixture repository from its text description (see `citegate::fixture`), for the
//! bundled example and the benchmarks: `cargo run --example fixture --features testing -- SPEC DIR`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [spec, dir] = args.as_slice() else {
        eprintln!("usage: fixture SPEC DIR");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(spec) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("fixture: {spec}: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = std::path::Path::new(dir);
    if dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        eprintln!("fixture: {}: not empty; remove it first", dir.display());
        return ExitCode::from(2);
    }
    match citegate::fixture::build(&text, dir) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fixture: {spec}: {e}");
            ExitCode::from(2)
        }
    }
}
