#![no_main]
// Papa decoder + scene conversion (vertex decoding, DXT, skeletons,
// animations): errors are fine, panics and huge allocations are not.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(p) = facet::formats::papa::decode(data) {
        let scene = facet::scene::from_papa::convert(
            &p,
            Default::default(),
            &facet::scene::companions::NoCompanions,
        );
        if let Some(clip) = scene.clips.first() {
            let mut pose = facet::anim::Pose::new(&scene.skeleton);
            pose.evaluate(&scene.skeleton, Some(clip), clip.duration_s * 0.5);
        }
    }
});
