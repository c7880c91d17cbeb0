//! The render sweep: the mutation sweep's changed files (tests/common/
//! mutate.rs, glTF files' JSON changed value by value included) taken on
//! to the GPU as the thumbnailer takes a file it was never shown: every
//! variant that loads is uploaded and drawn on the
//! software adapter in the rest pose, and, when it has clips, posed by its
//! first clip. tests/mutation_sweep.rs stops at the scene; what a hostile
//! scene can do to the upload (its index and vertex lists, bounds, bone
//! counts, textures) and to the draw is tried here. No case may panic or
//! raise a GPU error outside the upload, and a refused upload must name
//! the file.
//!
//! `FACET_RENDER_SWEEP_CASES=N` sets the cases per file (default below),
//! `FACET_SWEEP_SEED=S` sweeps other cases, as in the mutation sweep, and
//! `FACET_TEST_ADAPTER` names another adapter than the software one (a
//! real GPU's driver meets the same hostile scenes).

mod common;

use common::mutate::{Rng, cases_for, from_env, mutate, mutate_gltf, sweep_inputs};
use facet::cli::headless::{self, RenderRequest};

/// Cases per file when `FACET_RENDER_SWEEP_CASES` is not set: about 1,800
/// draws, some 4 seconds on two cores (2,000 a file, about 24,700 draws a
/// seed before the inflated M3D files were added, found nothing when the
/// sweep was written).
const DEFAULT_CASES: usize = 100;

/// The thumbnail's square in pixels: small, the draw is not what is tested.
const SIDE: u32 = 64;

#[test]
fn every_mutated_file_that_loads_draws_without_panicking() {
    let gpu = common::gpu_under_test();
    let renderer = headless::thumbnail_renderer(&gpu);
    let cases = from_env("FACET_RENDER_SWEEP_CASES", DEFAULT_CASES);
    let seed = from_env("FACET_SWEEP_SEED", 0) as u64;
    let (mut loaded_cases, mut drawn, mut posed, mut refused) = (0, 0, 0, 0);
    for (name, bytes) in sweep_inputs() {
        let mut rng = Rng::for_file(0xD1B5_4A32_D192_ED03, bytes.len(), seed);
        let gltf = name.ends_with(".glb") || name.ends_with(".gltf");
        for case in 0..cases_for(bytes.len(), cases) {
            // glTF: every other case a value of the JSON, as in the
            // mutation sweep.
            let (variant, what) = if gltf && case % 2 == 1 {
                mutate_gltf(&bytes, &mut rng)
            } else {
                mutate(&bytes, &mut rng)
            };
            let label = match seed {
                0 => format!("{name} case {case} ({what})"),
                _ => format!("{name} case {case} of seed {seed} ({what})"),
            };
            let Ok(loaded) = facet::load::load_bytes(&name, &variant, None) else {
                continue; // the mutation sweep checks the errors
            };
            loaded_cases += 1;
            let scene = &loaded.scene;
            let rest = RenderRequest {
                width: SIDE,
                height: SIDE,
                camera: Some((30.0, 20.0, 1.15)),
                ..Default::default()
            };
            let clip = scene.clips.first().map(|c| RenderRequest {
                clip: Some(c.name.clone()),
                time: c.duration_s * 0.4,
                ..rest.clone()
            });
            for req in std::iter::once(&rest).chain(&clip) {
                // The upload's own errors are its answer (a refusal, below);
                // any other GPU error while drawing is a failure.
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    gpu.capture(|| headless::render_with(&gpu, &renderer, scene, req))
                }))
                .unwrap_or_else(|_| panic!("{label}: panicked drawing {:?}", req.clip))
                .unwrap_or_else(|e| panic!("{label}: a GPU error drawing {:?}: {e}", req.clip));
                match r {
                    Ok((img, _)) => {
                        assert_eq!(img.dimensions(), (SIDE, SIDE), "{label}");
                        drawn += 1;
                        posed += usize::from(req.clip.is_some());
                    }
                    Err(e) => {
                        let e = e.to_string();
                        assert!(
                            e.starts_with(&name),
                            "{label}: error without the file's name: {e}"
                        );
                        refused += 1;
                    }
                }
            }
        }
    }
    eprintln!("{loaded_cases} variants loaded: {drawn} draws ({posed} posed), {refused} refused");
    assert!(drawn >= 10 * cases.min(100), "only {drawn} draws ran");
    assert!(posed > 0, "no variant with a clip was drawn posed");
}
