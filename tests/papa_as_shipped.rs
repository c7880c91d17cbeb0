//! Papa files laid out as Planetary Annihilation ships them (issue 14): an
//! animation papa opened on its own, media paths inside a mod folder, and
//! counts that describe the file. Real files from `../shared/fixtures/papa`
//! are laid out in temporary trees at test time (never copied into the
//! project).

mod common;
use facet::formats::papa;
use facet::scene::TextureSource;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    common::shared().join("fixtures/papa").join(name)
}

/// A fresh folder under target/test-output with `files` copied in as
/// (fixture, path inside the folder).
fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = common::output_dir().join(format!("papa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (from, to) in files {
        let to = root.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixture(from), to).unwrap();
    }
    root
}

fn clip_name(s: &facet::scene::Scene) -> &str {
    &s.clips[s.start_clip.expect("a start clip")].name
}

#[test]
fn an_animation_beside_its_model_opens_on_it_playing() {
    // The shared folder holds bot_sun.papa beside bot_sun_anim_idle.papa.
    let l = facet::load::load_file(&fixture("bot_sun_anim_idle.papa")).unwrap();
    let s = &l.scene;
    assert_eq!(clip_name(s), "idle");
    assert!(
        s.added.clip(s.start_clip.unwrap()).is_none(),
        "the file's own clip"
    );
    assert!(!s.meshes.is_empty() && s.skeleton.bones.len() == 14);
    let p = s.provenance.as_deref().unwrap();
    assert!(
        p.contains("bot_sun.papa") && p.contains("by its name"),
        "{p}"
    );
    assert_eq!(s.source.file_name, "bot_sun_anim_idle.papa");
    // The timeline opens on that clip, playing.
    let t = facet::anim::timeline::Timeline::for_scene(s);
    assert_eq!(t.clip, s.start_clip);
    assert!(t.playing);
    // The pose at 1 s differs from the rest pose: the model moves.
    let pose = facet::cli::info::pose_json(s, "idle", 1.0).unwrap();
    let rest = facet::cli::info::pose_json(s, "idle", 0.0).unwrap();
    assert_ne!(pose["bones"], rest["bones"]);
}

#[test]
fn a_model_with_every_bone_is_found_in_the_folder_then_above() {
    // No model of the same name: any model papa whose skeleton has every
    // bone the animation names, in the animation's folder...
    let root = tree(
        "by-bones",
        &[
            ("bot_sun_anim_idle.papa", "units/walker_anim_idle.papa"),
            ("radar_jammer.papa", "units/a_radar.papa"),
            ("bot_sun.papa", "units/b_sun.papa"),
        ],
    );
    let l = facet::load::load_file(&root.join("units/walker_anim_idle.papa")).unwrap();
    let p = l.scene.provenance.clone().unwrap();
    // a_radar.papa comes first by name but lacks bot_sun's bones.
    assert!(
        p.contains("b_sun.papa") && p.contains("all 14 bones"),
        "{p}"
    );
    assert_eq!(clip_name(&l.scene), "idle");
    // ...then in the folder above.
    let root = tree(
        "above",
        &[
            ("bot_sun_anim_idle.papa", "unit/anims/walker_anim_idle.papa"),
            ("bot_sun.papa", "unit/walker_body.papa"),
        ],
    );
    let l = facet::load::load_file(&root.join("unit/anims/walker_anim_idle.papa")).unwrap();
    let p = l.scene.provenance.clone().unwrap();
    assert!(
        p.contains("walker_body.papa") && p.contains("folder above"),
        "{p}"
    );
}

#[test]
fn without_a_model_the_skeleton_plays_alone() {
    let root = tree(
        "alone",
        &[(
            "artillery_comet_anim_aimUp.papa",
            "x/artillery_comet_anim_aimUp.papa",
        )],
    );
    let path = root.join("x/artillery_comet_anim_aimUp.papa");
    let l = facet::load::load_file(&path).unwrap();
    let s = &l.scene;
    assert!(s.meshes.is_empty());
    assert_eq!(s.skeleton.bones.len(), 8);
    assert_eq!(clip_name(s), "aimUp");
    let p = s.provenance.as_deref().unwrap();
    assert!(p.starts_with("no model found"), "{p}");
    // It says where it looked: the same-name model, the folder, its parent.
    let x = root.join("x");
    assert!(
        p.contains(&x.join("artillery_comet.papa").display().to_string()),
        "{p}"
    );
    assert!(p.contains(&root.display().to_string()), "{p}");
    // Framed by its bones, drawn as the skeleton overlay, playing.
    assert!(!s.bounds(None).is_empty());
    assert!(facet::gpu::ViewOptions::for_scene(s).skeleton);
    assert!(facet::anim::timeline::Timeline::for_scene(s).playing);
}

#[test]
fn info_counts_what_each_file_holds() {
    let summary = |p: &Path| {
        let l = facet::load::load_file(p).unwrap();
        facet::cli::info::to_json(&l)["summary"].clone()
    };
    // An animation papa: 1 clip, the 14 bones it names; the model is added.
    let s = summary(&fixture("bot_sun_anim_idle.papa"));
    assert_eq!(
        (s["clips"].as_u64(), s["bones"].as_u64()),
        (Some(1), Some(14))
    );
    assert_eq!(
        (s["parts"].as_u64(), s["vertices"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(s["added"]["parts"], 1);
    assert_eq!(s["added"]["vertices"], 946);
    // A texture papa: one texture; the quad it is shown on is added.
    let s = summary(&fixture("bot_sun_diffuse.papa"));
    assert_eq!(s["textures"], 1);
    assert_eq!(
        (s["parts"].as_u64(), s["vertices"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(
        (s["triangles"].as_u64(), s["materials"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(s["added"]["vertices"], 4);
    assert_eq!(s["added"]["triangles"], 2);
    assert_eq!(s["added"]["materials"], 1);
    // A unit model: SOURCES.md says 0 textures and 2 materials; the
    // diffuse and team-colour mask found by PA's naming convention and the
    // sibling idle animation are added.
    let s = summary(&fixture("bot_sun.papa"));
    assert_eq!(
        (s["textures"].as_u64(), s["materials"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(
        (s["clips"].as_u64(), s["bones"].as_u64()),
        (Some(0), Some(14))
    );
    assert_eq!(s["added"]["textures"], 2);
    assert_eq!(s["added"]["clips"], 1);
    // flower_03: SOURCES.md lists 3 textures and 3 materials.
    let s = summary(&fixture("flower_03.papa"));
    assert_eq!(
        (s["textures"].as_u64(), s["materials"].as_u64()),
        (Some(3), Some(3))
    );
}

#[test]
fn m3d_counts_exclude_the_viewers_default_material() {
    // m3d.h's own count (fixtures/m3d/reference) is the truth.
    for name in ["cube", "cube_usemtl", "suzanne", "CesiumMan", "WusonBlitz0"] {
        let r = common::m3d_reference(name);
        let l = facet::load::load_file(&common::shared().join(format!("fixtures/m3d/{name}.m3d")))
            .unwrap();
        let s = &facet::cli::info::to_json(&l)["summary"];
        assert_eq!(s["materials"], r["nummaterial"], "{name}");
        assert_eq!(s["bones"], r["numbone"], "{name}");
        assert_eq!(s["clips"], r["numaction"], "{name}");
    }
}

#[test]
fn linked_textures_resolve_through_media_roots() {
    // A mod laid out like the game's media: basic_cube names
    // /pa/terrain/earth_csg/textures/moon_tile_diffuse.papa.
    let root = tree(
        "media",
        &[
            (
                "basic_cube.papa",
                "mymod/pa/terrain/platonic_csg/fbx/basic_cube.papa",
            ),
            (
                "gray_diffuse.papa",
                "mymod/pa/terrain/earth_csg/textures/moon_tile_diffuse.papa",
            ),
        ],
    );
    let l = facet::load::load_file(&root.join("mymod/pa/terrain/platonic_csg/fbx/basic_cube.papa"))
        .unwrap();
    let t = &l.scene.textures[0];
    assert_eq!(
        t.source,
        TextureSource::External(
            root.join("mymod/pa/terrain/earth_csg/textures/moon_tile_diffuse.papa")
        )
    );
    assert_eq!((t.width, t.height), (256, 256));
    assert!(
        t.compressed.as_ref().is_some_and(|c| c.levels.len() == 8),
        "every mip level"
    );
    assert!(l.scene.warnings.is_empty(), "{:?}", l.scene.warnings);
}

#[test]
fn every_texture_table_entry_is_listed_and_marked() {
    // The CSG layout of the terrain model: a table with a repeated
    // path, NO_TEXTURE and an entry no material names. The file is
    // basic_cube with its table replaced (the writer serves conversion
    // here; the decoder's reading is tested against the fixtures).
    let mut p = papa::decode(&std::fs::read(fixture("basic_cube.papa")).unwrap()).unwrap();
    let linked = common::linked_papa_texture;
    let moon = "/pa/terrain/earth_csg/textures/moon_tile_diffuse.papa";
    p.textures = vec![
        linked(moon),
        linked("NO_TEXTURE"),
        linked(moon),
        linked("/pa/terrain/earth_csg/textures/unused.papa"),
    ];
    p.materials[0].textures = vec![("DiffuseTexture".into(), 0), ("NormalTexture".into(), 2)];
    let root = tree(
        "table",
        &[(
            "gray_diffuse.papa",
            "mymod/pa/terrain/earth_csg/textures/moon_tile_diffuse.papa",
        )],
    );
    let path = root.join("mymod/pa/terrain/x/fbx/terrain.papa");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, facet::formats::papa_write::encode(&p).unwrap()).unwrap();
    let l = facet::load::load_file(&path).unwrap();
    let tex = &l.scene.textures;
    assert_eq!(tex.len(), 4, "every entry");
    assert_eq!(facet::cli::info::to_json(&l)["summary"]["textures"], 4);
    assert!(matches!(tex[0].source, TextureSource::External(_)));
    assert_eq!(tex[1].name, "NO_TEXTURE");
    assert!(
        tex[2].format.contains("duplicate of texture 0"),
        "{}",
        tex[2].format
    );
    // The repeat holds no texels of its own (65,535 repeats of a large
    // texture were as many copies of it): the material naming entry 2 for
    // its normal map binds entry 0, which holds them.
    assert_eq!((tex[2].width, tex[2].height), (1, 1));
    assert_eq!(
        l.scene.materials[0].maps.normal.map(|(t, _)| t),
        Some(0),
        "{:?}",
        l.scene.materials[0].maps
    );
    assert!(tex[3].format.contains("unused"), "{}", tex[3].format);
    assert!(!tex[0].format.contains("unused"));
    // The missing entry says which media roots were tried.
    let w = l
        .scene
        .warnings
        .iter()
        .find(|w| w.contains("unused.papa"))
        .unwrap();
    assert!(
        w.contains(
            &root
                .join("mymod/pa/terrain/earth_csg/textures/unused.papa")
                .display()
                .to_string()
        ),
        "{w}"
    );

    // A long table (past 32 entries, where repeats are found through a
    // map instead of a scan back): 36 more paths, then the moon again.
    p.textures
        .extend((0..36).map(|k| linked(&format!("/pa/terrain/extra_{k}.papa"))));
    p.textures.push(linked(moon));
    p.materials[0].textures = vec![("DiffuseTexture".into(), 40)];
    std::fs::write(&path, facet::formats::papa_write::encode(&p).unwrap()).unwrap();
    let l = facet::load::load_file(&path).unwrap();
    let tex = &l.scene.textures;
    assert_eq!(tex.len(), 41);
    assert!(
        tex[40].format.contains("duplicate of texture 0"),
        "{}",
        tex[40].format
    );
    assert!(tex[2].format.contains("duplicate of texture 0"));
    assert_eq!(l.scene.materials[0].texture, Some(0));
}

#[test]
fn configured_media_roots_after_the_mod_and_mods_shadow_the_game() {
    // The game's media holds the moon tile (a DXT1 256x256); the model sits
    // in a mod that lacks it: found through the configured root.
    let moon = "pa/terrain/earth_csg/textures/moon_tile_diffuse.papa";
    let root = tree(
        "roots",
        &[
            (
                "basic_cube.papa",
                "mod/pa/terrain/platonic_csg/fbx/basic_cube.papa",
            ),
            ("gray_diffuse.papa", &format!("game/media/{moon}")),
        ],
    );
    let model = root.join("mod/pa/terrain/platonic_csg/fbx/basic_cube.papa");
    let options = facet::load::LoadOptions {
        media_roots: vec![root.join("game/media")],
        ..Default::default()
    };
    let l = facet::load::load_file_with(&model, &options).unwrap();
    assert_eq!(
        l.scene.textures[0].source,
        TextureSource::External(root.join(format!("game/media/{moon}")))
    );
    // Without the root: a checkerboard, and the warning names every root
    // tried and says none is configured.
    let l = facet::load::load_file(&model).unwrap();
    let w = l.scene.warnings.join("\n");
    assert!(
        w.contains(&root.join(format!("mod/{moon}")).display().to_string()),
        "{w}"
    );
    assert!(w.contains("no media roots configured"), "{w}");
    // The mod's own copy (here a DXT5 normal map) shadows the game's.
    let shadow = root.join(format!("mod/{moon}"));
    std::fs::create_dir_all(shadow.parent().unwrap()).unwrap();
    std::fs::copy(fixture("flower_04_normal.papa"), &shadow).unwrap();
    let l = facet::load::load_file_with(&model, &options).unwrap();
    assert_eq!(
        l.scene.textures[0].source,
        TextureSource::External(root.join(format!("mod/{moon}")))
    );
}

#[test]
fn stock_installs_are_found_under_the_usual_steam_roots() {
    let home = common::output_dir().join(format!("steam-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let titans =
        home.join(".local/share/Steam/steamapps/common/Planetary Annihilation Titans/media");
    let flatpak = home.join(
        ".var/app/com.valvesoftware.Steam/.local/share/Steam/steamapps/common/Planetary Annihilation/media",
    );
    let other = home.join(".local/share/Steam/steamapps/common/Some Other Game/media");
    for d in [&titans, &flatpak, &other] {
        std::fs::create_dir_all(d.join("pa")).unwrap();
    }
    let roots = facet::load::resolver::stock_media_roots_in(&home);
    assert_eq!(roots, vec![titans, flatpak]);
}

#[test]
fn a_fifo_beside_the_model_is_never_opened() {
    // Sibling animations are looked for among the folder's *.papa files;
    // opening a FIFO would block until something writes to it. The model
    // must load all the same (the load runs on a thread: a hang fails).
    let root = tree("fifo", &[("bot_sun.papa", "u/bot_sun.papa")]);
    let fifo = root.join("u/bot_sun_anim_trap.papa");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo failed");
    let model = root.join("u/bot_sun.papa");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(facet::load::load_file(&model).map(|l| l.scene.meshes.len()));
    });
    let parts = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("loading hung on the FIFO")
        .unwrap();
    assert_eq!(parts, 1);
}
