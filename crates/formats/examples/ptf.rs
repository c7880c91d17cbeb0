//! Reads a PTF texture's header (no texels inflated) and prints it:
//! `cargo run -p facet-formats --example ptf -- FILE.ptf`

use facet_formats::ptf::{self, Texels};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: ptf FILE.ptf")?;
    let t = ptf::decode_with(&std::fs::read(&path)?, Texels::HeadersOnly)?;
    println!(
        "{path}: PTF ({}), {}x{} {}, {} channel(s)",
        t.layout.describe(),
        t.width,
        t.height,
        t.format.name(),
        t.format.channels()
    );
    Ok(())
}
