//! Every WGSL file in shaders/ parses and validates with naga (no GPU needed),
//! as it is compiled (with shaders/oct.wgsl prepended where it is used).

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
