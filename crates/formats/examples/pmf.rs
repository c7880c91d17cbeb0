//! Decodes a PlatinumSrc map and prints what it holds:
//! `cargo run -p facet-formats --example pmf -- FILE.pmf`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: pmf FILE.pmf")?;
    let m = facet_formats::pmf::decode(&std::fs::read(&path)?)?;
    println!(
        "{path}: PMF {}.{} {:?}, {} sectors, {} cubes, {} triangles, {} lightmaps, \
         {} materials, {} entities",
        m.version.0,
        m.version.1,
        m.name,
        m.sectors.len(),
        m.sectors.iter().map(|s| s.cubes.len()).sum::<usize>(),
        m.sectors.iter().map(|s| s.triangles.len()).sum::<usize>(),
        m.sectors.iter().map(|s| s.lightmaps.len()).sum::<usize>(),
        m.materials.len(),
        m.entities.entities.len()
    );
    Ok(())
}
