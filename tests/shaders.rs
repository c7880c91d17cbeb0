//! Every WGSL file in shaders/ parses and validates with naga (no GPU needed),
//! as it is compiled (with the shared files prepended where they are used);
//! the material slot the shaders share has the Rust struct's layout.

#[test]
fn every_shader_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "wgsl") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        // What is compiled is the file, possibly after shaders/oct.wgsl.
        let (_, compiled) = facet::gpu::SHADERS
            .iter()
            .find(|(n, s)| *n == name && s.ends_with(&src))
            .unwrap_or_else(|| panic!("{name} is not listed in facet::gpu::SHADERS"));
        let src = compiled.to_string();
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&src)));
        seen += 1;
    }
    assert_eq!(seen, facet::gpu::SHADERS.len());
}

#[test]
fn the_material_slot_has_one_layout_in_wgsl_and_in_rust() {
    use facet::gpu::materials::{MaterialUniform, SLOT_STRIDE};
    use naga::{ScalarKind, TypeInner, VectorSize};
    use std::mem::{offset_of, size_of};
    // The Rust side, as the compiler lays it out (`repr(C)`): every field
    // four 4-byte scalars of the kind named.
    let rust = [
        (
            "base_color",
            offset_of!(MaterialUniform, base_color),
            ScalarKind::Float,
        ),
        (
            "emission",
            offset_of!(MaterialUniform, emission),
            ScalarKind::Float,
        ),
        (
            "params",
            offset_of!(MaterialUniform, params),
            ScalarKind::Float,
        ),
        (
            "uv_offset",
            offset_of!(MaterialUniform, uv_offset),
            ScalarKind::Float,
        ),
        (
            "layers",
            offset_of!(MaterialUniform, layers),
            ScalarKind::Sint,
        ),
        (
            "tex_rect",
            offset_of!(MaterialUniform, tex_rect),
            ScalarKind::Float,
        ),
        (
            "matcap_rect",
            offset_of!(MaterialUniform, matcap_rect),
            ScalarKind::Float,
        ),
    ];
    // The WGSL side, as naga lays out each shader that uses it.
    for shader in ["mesh.wgsl", "material_anim.wgsl"] {
        let src = facet::gpu::shader_source(shader);
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).unwrap();
        let struct_named = |name: &str| {
            module
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some(name))
                .unwrap_or_else(|| panic!("{shader}: no struct {name}"))
        };
        let (_, material) = struct_named("Material");
        let TypeInner::Struct { members, span } = &material.inner else {
            panic!("{shader}: Material is not a struct");
        };
        assert_eq!(members.len(), rust.len(), "{shader}");
        for (m, (name, offset, kind)) in members.iter().zip(rust) {
            assert_eq!(m.name.as_deref(), Some(name), "{shader}");
            assert_eq!(m.offset as usize, offset, "{shader}: {name}");
            match module.types[m.ty].inner {
                TypeInner::Vector { size, scalar } => {
                    assert_eq!(size, VectorSize::Quad, "{shader}: {name}");
                    assert_eq!((scalar.kind, scalar.width), (kind, 4), "{shader}: {name}");
                }
                ref t => panic!("{shader}: {name} is {t:?}"),
            }
        }
        assert_eq!(*span as usize, size_of::<MaterialUniform>(), "{shader}");
        if shader == "material_anim.wgsl" {
            // The compute pass writes whole slots: one per stride.
            let (slot, _) = struct_named("Slot");
            assert_eq!(layouter[slot].size as u64, SLOT_STRIDE);
        }
    }
    // One definition: no shader file declares the struct again.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let src = std::fs::read_to_string(&path).unwrap();
        let declares = src.contains("struct Material {");
        let is_home = path.file_name().unwrap() == "material.wgsl";
        assert_eq!(declares, is_home, "{}", path.display());
    }
}
