//! Decodes a Planetary Annihilation papa file and prints what it holds:
//! `cargo run -p facet-formats --example papa -- FILE.papa`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: papa FILE.papa")?;
    let p = facet_formats::papa::decode(&std::fs::read(&path)?)?;
    println!(
        "{path}: Papa, {} models, {} meshes, {} vertex buffers, {} index buffers, \
         {} materials, {} textures, {} skeletons, {} animations",
        p.models.len(),
        p.meshes.len(),
        p.vertex_buffers.len(),
        p.index_buffers.len(),
        p.materials.len(),
        p.textures.len(),
        p.skeletons.len(),
        p.animations.len()
    );
    for w in &p.warnings {
        println!("  warning: {w}");
    }
    Ok(())
}
