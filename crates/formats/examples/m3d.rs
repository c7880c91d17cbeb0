//! Decodes a Model 3D file and prints what it holds:
//! `cargo run -p facet-formats --example m3d -- FILE.m3d`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: m3d FILE.m3d")?;
    let m = facet_formats::m3d::decode(&std::fs::read(&path)?)?;
    println!(
        "{path}: M3D {:?}{}, {} vertices, {} faces, {} materials, {} bones, {} skins, \
         {} actions, {} voxel blocks, {} inlined assets",
        m.name,
        if m.compressed { " (zlib)" } else { "" },
        m.vertices.len(),
        m.faces.len(),
        m.materials.len(),
        m.bones.len(),
        m.skins.len(),
        m.actions.len(),
        m.voxel_blocks.len(),
        m.assets.len()
    );
    Ok(())
}
