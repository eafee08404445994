//! Benchmark floor: read stdin, parse it as JSON, print nothing.
use std::io::Read;

fn main() {
    let mut buf = Vec::new();
    if std::io::stdin().lock().read_to_end(&mut buf).is_err() {
        std::process::exit(2);
    }
    match serde_json::from_slice::<serde_json::Value>(&buf) {
        Ok(v) => {
            std::hint::black_box(&v);
        }
        Err(_) => std::process::exit(2),
    }
}
