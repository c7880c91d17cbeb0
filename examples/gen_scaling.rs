//! Writes one of the scaling benchmark's generated files:
//! `cargo run --release --features generators --example gen_scaling --
//! p3m|m3d|papa TRIANGLES OUT`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [format, triangles, out] = &args[..] else {
        eprintln!("usage: gen_scaling p3m|m3d|papa TRIANGLES OUT");
        std::process::exit(2);
    };
    let n: usize = triangles.parse().expect("a number of triangles");
    let bytes = match format.as_str() {
        "p3m" => facet::generators::scaling::p3m_bytes(n),
        "m3d" => facet::generators::scaling::m3d_bytes(n),
        "papa" => facet::generators::scaling::papa_bytes(n),
        f => panic!("{f}: p3m, m3d or papa"),
    };
    std::fs::write(out, bytes).expect("writing the file");
}
