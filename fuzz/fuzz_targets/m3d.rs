#![no_main]
// M3D decoder + scene conversion (voxel meshing, skins, frame sequences):
// errors are fine, panics, hangs and huge allocations are not. The inflated
// payload is capped low here so that the fuzzer explores parsing, not zlib.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(m) = facet::formats::m3d::decode_with_limit(data, 1 << 20) {
        let scene = facet::scene::from_m3d::convert(
            &m,
            Default::default(),
            &facet::scene::companions::NoCompanions,
        );
        if let Some(clip) = scene.clips.first() {
            let mut pose = facet::anim::Pose::new(&scene.skeleton);
            pose.evaluate(&scene.skeleton, Some(clip), clip.duration_s * 0.37);
        }
    }
});
