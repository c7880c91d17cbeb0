//! Decodes a P3M model and prints what it holds:
//! `cargo run -p facet-formats --example p3m -- FILE.p3m`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: p3m FILE.p3m")?;
    let m = facet_formats::p3m::decode(&std::fs::read(&path)?)?;
    println!(
        "{path}: P3M ({} layout), {} parts, {} vertices, {} triangles, {} materials, \
         {} textures, {} bones, {} animations, {} actions",
        m.layout.name(),
        m.parts.len(),
        m.parts.iter().map(|p| p.positions.len()).sum::<usize>(),
        m.parts.iter().map(|p| p.indices.len() / 3).sum::<usize>(),
        m.materials.len(),
        m.textures.len(),
        m.bones.len(),
        m.animations.len(),
        m.actions.len()
    );
    Ok(())
}
