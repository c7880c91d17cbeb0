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

/// One member of a struct as laid out: name, byte offset, and the scalar
/// kind of a vector or matrix (4-byte scalars only).
type Member = (String, usize, Option<naga::ScalarKind>);

/// How naga lays out struct `name` of `shader` (as compiled): its members
/// and its size.
fn wgsl_layout(shader: &str, name: &str) -> (Vec<Member>, usize) {
    use naga::TypeInner;
    let src = facet::gpu::shader_source(shader);
    let module = naga::front::wgsl::parse_str(src).unwrap();
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("{shader}: no struct {name}"));
    let TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{shader}: {name} is not a struct");
    };
    let members = members
        .iter()
        .map(|m| {
            let kind = match module.types[m.ty].inner {
                TypeInner::Vector { scalar, .. } | TypeInner::Matrix { scalar, .. } => {
                    assert_eq!(scalar.width, 4, "{shader}: {name}.{:?}", m.name);
                    Some(scalar.kind)
                }
                _ => None,
            };
            (m.name.clone().unwrap(), m.offset as usize, kind)
        })
        .collect();
    (members, *span as usize)
}

/// The shared struct `name` is declared in `home` alone.
fn declared_once(name: &str, home: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let src = std::fs::read_to_string(&path).unwrap();
        let declares = src.contains(&format!("struct {name} {{"));
        assert_eq!(
            declares,
            path.file_name().unwrap() == home,
            "{}",
            path.display()
        );
    }
}

#[test]
fn the_frame_uniforms_have_one_layout_in_wgsl_and_in_rust() {
    use facet::gpu::renderer::Globals;
    use naga::ScalarKind::{Float, Uint};
    use std::mem::{offset_of, size_of};
    let rust: Vec<Member> = vec![
        (
            "view_proj".into(),
            offset_of!(Globals, view_proj),
            Some(Float),
        ),
        ("view".into(), offset_of!(Globals, view), Some(Float)),
        (
            "light_dir".into(),
            offset_of!(Globals, light_dir),
            Some(Float),
        ),
        ("params".into(), offset_of!(Globals, params), Some(Float)),
        ("eye".into(), offset_of!(Globals, eye), Some(Float)),
        (
            "team_primary".into(),
            offset_of!(Globals, team_primary),
            Some(Float),
        ),
        (
            "team_secondary".into(),
            offset_of!(Globals, team_secondary),
            Some(Float),
        ),
        (
            "view_mode".into(),
            offset_of!(Globals, view_mode),
            Some(Uint),
        ),
    ];
    for shader in ["mesh.wgsl", "lines.wgsl", "bones.wgsl"] {
        assert_eq!(
            wgsl_layout(shader, "Globals"),
            (rust.clone(), size_of::<Globals>()),
            "{shader}"
        );
    }
    declared_once("Globals", "globals.wgsl");
}

#[test]
fn the_material_slot_has_one_layout_in_wgsl_and_in_rust() {
    use facet::gpu::materials::{MaterialUniform, SLOT_STRIDE};
    use naga::ScalarKind::{Float, Sint, Uint};
    use std::mem::{offset_of, size_of};
    // The Rust side as the compiler lays it out (`repr(C)`).
    let rust: Vec<Member> = vec![
        (
            "base_color".into(),
            offset_of!(MaterialUniform, base_color),
            Some(Float),
        ),
        (
            "emission".into(),
            offset_of!(MaterialUniform, emission),
            Some(Float),
        ),
        (
            "params".into(),
            offset_of!(MaterialUniform, params),
            Some(Float),
        ),
        (
            "uv_offset".into(),
            offset_of!(MaterialUniform, uv_offset),
            Some(Float),
        ),
        (
            "layers".into(),
            offset_of!(MaterialUniform, layers),
            Some(Sint),
        ),
        (
            "tex_rect".into(),
            offset_of!(MaterialUniform, tex_rect),
            Some(Float),
        ),
        (
            "matcap_rect".into(),
            offset_of!(MaterialUniform, matcap_rect),
            Some(Float),
        ),
        (
            "specular".into(),
            offset_of!(MaterialUniform, specular),
            Some(Float),
        ),
        ("maps".into(), offset_of!(MaterialUniform, maps), Some(Uint)),
        (
            "extra".into(),
            offset_of!(MaterialUniform, extra),
            Some(Float),
        ),
    ];
    for shader in ["mesh.wgsl", "material_anim.wgsl"] {
        assert_eq!(
            wgsl_layout(shader, "Material"),
            (rust.clone(), size_of::<MaterialUniform>()),
            "{shader}"
        );
    }
    // The compute pass writes whole slots: one per stride.
    let (slot, size) = wgsl_layout("material_anim.wgsl", "Slot");
    assert_eq!(slot[0].1, 0);
    assert_eq!(size as u64, SLOT_STRIDE);
    declared_once("Material", "material.wgsl");
}

/// The value of a `const NAME: u32` in a shader.
fn wgsl_u32_const(shader: &str, name: &str) -> u32 {
    let src = facet::gpu::shader_source(shader);
    let module = naga::front::wgsl::parse_str(src).unwrap();
    let (_, c) = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("{shader} declares no {name}"));
    match module.global_expressions[c.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        ref e => panic!("{name} is {e:?}"),
    }
}

#[test]
fn map_bits_and_channels_are_the_same_numbers_in_wgsl_and_in_rust() {
    use facet::gpu::frame::Channel;
    use facet::gpu::materials::map_bits::*;
    for (name, rust) in [
        ("MAP_TEAM", TEAM),
        ("MAP_MATERIAL", MATERIAL),
        ("MAP_MATERIAL_GLOW", MATERIAL_GLOW),
        ("MAP_NORMAL_2CH", NORMAL_2CH),
        ("MAP_NORMAL_RGB", NORMAL_RGB),
        ("MAP_HEIGHT", HEIGHT),
        ("MAP_EMISSION", EMISSION),
        ("MAP_SPECULAR", SPECULAR),
        ("BLEND_ALPHA", BLEND_ALPHA),
    ] {
        assert_eq!(wgsl_u32_const("mesh.wgsl", name), rust, "{name}");
    }
    for (name, c) in [
        ("CHANNEL_SHADED", Channel::Shaded),
        ("CHANNEL_DIFFUSE", Channel::Diffuse),
        ("CHANNEL_MASK", Channel::Mask),
        ("CHANNEL_MATERIAL", Channel::Material),
        ("CHANNEL_NORMAL", Channel::Normal),
        ("CHANNEL_WEIGHTS", Channel::Weights),
        ("CHANNEL_UVS", Channel::Uvs),
        ("CHANNEL_FACES", Channel::Faces),
    ] {
        assert_eq!(wgsl_u32_const("mesh.wgsl", name), c as u32, "{name}");
    }
}
