//! Regenerates the synthetic transactions behind `sample-data/fraud`.
//!
//! `cargo run --release --example generate_fraud -- OUT.csv [ROWS] [SEED]`
//! (defaults: 50000 rows, seed 7).

use std::io::BufWriter;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: generate_fraud OUT.csv [ROWS] [SEED]");
        std::process::exit(2);
    };
    let rows = args.next().and_then(|r| r.parse().ok()).unwrap_or(50_000);
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(7);
    let mut file = BufWriter::new(std::fs::File::create(out)?);
    eval_dag::dataset::synthetic::write_fraud_csv(rows, seed, &mut file)
}
