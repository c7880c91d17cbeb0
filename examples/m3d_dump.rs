fn main() {
    for p in std::env::args().skip(1) {
        let d = std::fs::read(&p).unwrap();
        match facet::formats::m3d::decode(&d) {
            Ok(m) => {
                let tris: usize = m
                    .faces
                    .iter()
                    .map(|f| f.points.len().saturating_sub(2))
                    .sum();
                let no_normals = m
                    .faces
                    .iter()
                    .any(|f| f.points.iter().any(|q| q.normal.is_none()));
                println!(
                    "{p}: verts={} faces={} tris={} nonorm={} mats={} bones={} skins={} actions={:?} voxt={} voxd={} labels={} shapes={} assets={:?} tmap={} cmap={} warn={:?} name={:?}",
                    m.vertices.len(),
                    m.faces.len(),
                    tris,
                    no_normals,
                    m.materials.len(),
                    m.bones.len(),
                    m.skins.len(),
                    m.actions
                        .iter()
                        .map(|a| (a.name.clone(), a.frames.len(), a.duration_ms))
                        .collect::<Vec<_>>(),
                    m.voxel_types.len(),
                    m.voxel_blocks.len(),
                    m.labels.len(),
                    m.shapes.len(),
                    m.assets
                        .iter()
                        .map(|a| (a.name.clone(), a.data.len()))
                        .collect::<Vec<_>>(),
                    m.tmap.len(),
                    m.cmap.len(),
                    m.warnings,
                    m.name
                );
            }
            Err(e) => println!("{p}: ERROR {e}"),
        }
    }
}
