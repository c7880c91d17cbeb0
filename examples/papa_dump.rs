fn main() {
    for p in std::env::args().skip(1) {
        let d = std::fs::read(&p).unwrap();
        match facet::formats::papa::decode(&d) {
            Ok(m) => println!(
                "{p}: T/VB/IB/Mat/Mesh/Sk/Mod/An {}/{}/{}/{}/{}/{}/{}/{} tex={:?} vb={:?} ib={:?} mats={:?} models={:?} anims={:?} warn={:?}",
                m.textures.len(),
                m.vertex_buffers.len(),
                m.index_buffers.len(),
                m.materials.len(),
                m.meshes.len(),
                m.skeletons.len(),
                m.models.len(),
                m.animations.len(),
                m.textures
                    .iter()
                    .map(|t| (
                        t.name.clone(),
                        t.format.map(|f| f.name()),
                        t.width,
                        t.height,
                        t.mips,
                        t.srgb
                    ))
                    .collect::<Vec<_>>(),
                m.vertex_buffers
                    .iter()
                    .map(|v| (v.format, v.count))
                    .collect::<Vec<_>>(),
                m.index_buffers
                    .iter()
                    .map(|v| (v.format, v.indices.len()))
                    .collect::<Vec<_>>(),
                m.materials
                    .iter()
                    .map(|x| (x.shader.clone(), x.vectors.len(), x.textures.len()))
                    .collect::<Vec<_>>(),
                m.models
                    .iter()
                    .map(|x| (x.name.clone(), x.skeleton, x.bindings.len()))
                    .collect::<Vec<_>>(),
                m.animations
                    .iter()
                    .map(|a| (a.bones.len(), a.frames, a.fps_num, a.fps_den))
                    .collect::<Vec<_>>(),
                m.warnings
            ),
            Err(e) => println!("{p}: ERROR {e}"),
        }
    }
}
