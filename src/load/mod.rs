//! Opening a file: detect the format, decode, convert to a [`Scene`].
//! Errors are one line and start with the file name. Companion files
//! (external textures, linked papas, sibling animations) are found by the
//! one [`resolver::DiskResolver`] that every converter receives.

pub mod folder;
mod papa_anim;
pub mod resolver;

use crate::formats::ptf::Texels;
use crate::formats::{self, Format, m3d, p3m, papa, ptf};
use crate::scene::{self, Scene, SourceInfo};
use glam::{Vec2, Vec3};
use resolver::DiskResolver;
use std::path::{Path, PathBuf};

/// The decoded file as its format sees it, beside the common scene.
#[derive(Debug, Clone)]
pub enum Raw {
    P3m(Box<p3m::P3m>),
    Ptf(ptf::Ptf),
    M3d(Box<m3d::M3d>),
    Papa(Box<papa::Papa>),
    /// The decoded map (the scene holds its own map model; reports read
    /// what only the file has, such as entity records).
    Pmf(Box<crate::formats::pmf::Pmf>),
    /// glTF: the scene holds everything shown.
    Gltf,
}

pub struct Loaded {
    pub scene: Scene,
    pub raw: Raw,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The system's reason is part of this one's text, as the decoder's
    /// below (a field named `source` made it a separate cause as well, and
    /// the CLI's line said it twice).
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    /// The decoder's error is part of this one's text (not a separate
    /// cause), so the CLI's one line says it once.
    #[error("{file}: {error}")]
    Decode {
        file: String,
        error: formats::DecodeError,
    },
    /// A file read by another crate's reader (glTF): its one-line reason.
    #[error("{file}: {why}")]
    Invalid { file: String, why: String },
    #[error(
        "{file}: not a format facet knows (P3M, PTF, M3D, Papa, PMF, glTF), by magic bytes or extension"
    )]
    Unknown { file: String },
}

/// Largest file opened (a documented cap): 1 GiB.
pub const MAX_FILE_SIZE: u64 = 1 << 30;

/// Decoded texels a file may take unless told otherwise (1 GiB), all its
/// textures together.
pub const DEFAULT_TEXEL_BUDGET: usize = formats::ptf::DEFAULT_TEXEL_BUDGET;

/// Where companion files may be found beyond the model's own folders, and
/// how much memory decoded textures may take.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadOptions {
    /// Planetary Annihilation media roots the user configured (`--media`,
    /// the settings), tried after the model's own mod folder and before the
    /// stock install folders.
    pub media_roots: Vec<PathBuf>,
    /// Bytes of decoded texels a file may take, all its textures together
    /// (embedded, companions, and the model an animation file brings in),
    /// in the order they are decoded: past what is left a texture is
    /// decoded smaller where the format allows (PTF rows are box-filtered
    /// as they stream), else refused with an error naming its declared size.
    pub texel_budget: usize,
    /// Bytes of decoded texels one texture may take, within the budget
    /// (`thumbnail`: what its image can show); `usize::MAX` for no cap.
    pub texture_cap: usize,
    /// Read what textures declare (sizes, formats) without decoding their
    /// texels: scene textures come with empty `rgba8`. For reports (`info`)
    /// that print what a file holds and draw nothing.
    pub headers_only: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            media_roots: Vec::new(),
            texel_budget: DEFAULT_TEXEL_BUDGET,
            texture_cap: usize::MAX,
            headers_only: false,
        }
    }
}

impl LoadOptions {
    /// How this load decodes textures.
    pub fn texels(&self) -> Texels {
        if self.headers_only {
            Texels::HeadersOnly
        } else {
            Texels::Within(self.texel_budget)
        }
    }

    /// The same options, reading texture headers only.
    pub fn headers_only(self) -> Self {
        LoadOptions {
            headers_only: true,
            ..self
        }
    }

    /// The same options with each texture taking at most `bytes`.
    pub fn with_texture_cap(self, bytes: usize) -> Self {
        LoadOptions {
            texture_cap: self.texture_cap.min(bytes),
            ..self
        }
    }

    /// Every media root in the order tried: the configured ones, then the
    /// stock Steam installs that exist.
    pub fn all_media_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.media_roots.clone();
        for r in resolver::stock_media_roots() {
            if !roots.contains(&r) {
                roots.push(r);
            }
        }
        roots
    }
}

/// A papa file holding animations and no model (dropped on a model, its
/// clips are added instead of replacing the scene).
pub fn is_animation_papa(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("papa"))
        && resolver::read_if(path, papa::MAGIC.len(), &|h| h.starts_with(papa::MAGIC))
            .and_then(|b| papa::decode(&b).ok())
            .is_some_and(|p| p.models.is_empty() && !p.animations.is_empty())
}

/// The bytes of the file at `path`, at most [`MAX_FILE_SIZE`] of them
/// (counted as they come: `resolver::read_capped`): a regular file or a
/// pipe (`facet info <(zcat model.m3d.gz)`), never a device, whose reading
/// could go on forever (`/dev/zero`) or block.
pub fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_block_device() {
            return Err(std::io::Error::other("a device, not a file"));
        }
    }
    resolver::read_capped(path, &meta, MAX_FILE_SIZE)
}

pub fn load_file(path: &Path) -> Result<Loaded, LoadError> {
    load_file_with_progress(path, &LoadOptions::default(), &|_| {})
}

pub fn load_file_with(path: &Path, options: &LoadOptions) -> Result<Loaded, LoadError> {
    load_file_with_progress(path, options, &|_| {})
}

/// As [`load_file_with`], telling `progress` how far decoding is (0..1)
/// where the format can say (maps, sector by sector).
pub fn load_file_with_progress(
    path: &Path,
    options: &LoadOptions,
    progress: &dyn Fn(f32),
) -> Result<Loaded, LoadError> {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let io = |error| LoadError::Io {
        file: file.clone(),
        error,
    };
    let bytes = read_file(path).map_err(io)?;
    let resolver = DiskResolver::new(path.parent(), Some(path))
        .with_media_roots(options.all_media_roots())
        .with_texels(options.texels())
        .with_texel_cap(options.texture_cap);
    let mut loaded = load_bytes_inner(&file, &bytes, &resolver, progress)?;
    loaded.scene.source.path = Some(path.to_path_buf());
    Ok(loaded)
}

pub fn load_bytes(file: &str, bytes: &[u8], base_dir: Option<&Path>) -> Result<Loaded, LoadError> {
    load_bytes_at(file, bytes, base_dir, None)
}

/// As [`load_bytes`]; `path` is where the file lies, for formats that look
/// for companion files (Papa animations and textures next to a model).
pub fn load_bytes_at(
    file: &str,
    bytes: &[u8],
    base_dir: Option<&Path>,
    path: Option<&Path>,
) -> Result<Loaded, LoadError> {
    let resolver = DiskResolver::new(base_dir, path)
        .with_media_roots(LoadOptions::default().all_media_roots());
    load_bytes_inner(file, bytes, &resolver, &|_| {})
}

fn load_bytes_inner(
    file: &str,
    bytes: &[u8],
    companions: &DiskResolver,
    progress: &dyn Fn(f32),
) -> Result<Loaded, LoadError> {
    let decode_err = |error| LoadError::Decode {
        file: file.to_string(),
        error,
    };
    let source = SourceInfo {
        file_name: file.to_string(),
        path: None,
        format: Default::default(),
        file_size: bytes.len() as u64,
        details: Vec::new(),
        chunks: Vec::new(),
    };
    match Format::detect(bytes, file) {
        Some(Format::P3m) => load_p3m(bytes, source, companions).map_err(decode_err),
        Some(Format::Ptf) => load_ptf(file, bytes, source, companions).map_err(decode_err),
        Some(Format::M3d) => {
            let m = m3d::decode(bytes).map_err(decode_err)?;
            let scene = scene::from_m3d::convert(&m, source, companions);
            Ok(Loaded {
                scene,
                raw: Raw::M3d(Box::new(m)),
            })
        }
        Some(Format::Papa) => {
            let p = papa::decode(bytes).map_err(decode_err)?;
            if p.is_animation_only() {
                return papa_anim::open(file, p, source, companions);
            }
            let scene = if p.is_texture_only() {
                papa_texture_scene(&p.textures[0], source, companions)
            } else {
                scene::from_papa::convert(&p, source, companions)
            };
            Ok(Loaded {
                scene,
                raw: Raw::Papa(Box::new(p)),
            })
        }
        Some(Format::Pmf) => {
            let map = crate::formats::pmf::decode_with_progress(bytes, &|f| progress(f * 0.9))
                .map_err(decode_err)?;
            let scene = scene::from_pmf::convert(&map, source, Default::default());
            Ok(Loaded {
                scene,
                raw: Raw::Pmf(Box::new(map)),
            })
        }
        Some(Format::Gltf) => {
            let scene = scene::from_gltf::convert(bytes, source, companions).map_err(|why| {
                LoadError::Invalid {
                    file: file.to_string(),
                    why,
                }
            })?;
            Ok(Loaded {
                scene,
                raw: Raw::Gltf,
            })
        }
        None => Err(LoadError::Unknown {
            file: file.to_string(),
        }),
    }
}

/// A P3M model, its embedded textures decoded within what the budget has
/// left (and counted against it).
fn load_p3m(
    bytes: &[u8],
    source: SourceInfo,
    companions: &DiskResolver,
) -> Result<Loaded, formats::DecodeError> {
    // The embedded textures share what the budget has left.
    let budget = companions.budget();
    let mut m = p3m::decode_capped(bytes, budget.left(), budget.each())?;
    for t in &m.textures {
        if let p3m::Texture::Embedded { ptf: Ok(p), .. } = t {
            budget.spend(p.pixels.len());
        }
    }
    let scene = scene::from_p3m::convert(&m, source, companions);
    // The scene holds the texels now; the raw model keeps the rest.
    for t in &mut m.textures {
        if let p3m::Texture::Embedded { ptf: Ok(p), .. } = t {
            p.pixels = Vec::new();
        }
    }
    Ok(Loaded {
        scene,
        raw: Raw::P3m(Box::new(m)),
    })
}

/// A PTF texture file, decoded within the budget: the texture viewer's
/// scene, with a note where it was decoded smaller than it declares.
fn load_ptf(
    file: &str,
    bytes: &[u8],
    mut source: SourceInfo,
    companions: &DiskResolver,
) -> Result<Loaded, formats::DecodeError> {
    let mut t = ptf::decode_with(bytes, companions.budget().next())?;
    source.format = "PTF".into();
    source
        .details
        .push(("generation".into(), t.layout.describe().into()));
    let mut warnings = Vec::new();
    if let Some((w, h)) = t.reduced_from {
        source
            .details
            .push(("declared size".into(), format!("{w}x{h}").into()));
        warnings.push(scene::from_p3m::reduced_note(file, &t));
    }
    let pixels = std::mem::take(&mut t.pixels);
    let tex = scene::from_p3m::ptf_texture_from(file, &t, pixels);
    let mut scene = texture_scene(tex, source);
    scene.warnings = warnings;
    Ok(Loaded {
        scene,
        raw: Raw::Ptf(t),
    })
}

/// A Papa file holding one texture alone: the texture viewer's scene,
/// with the mip levels that fit what the budget has left.
fn papa_texture_scene(
    t: &papa::Texture,
    mut source: SourceInfo,
    companions: &DiskResolver,
) -> Scene {
    source.format = "Papa".into();
    let mut warnings = Vec::new();
    let tex = scene::companions::decode_texels(
        companions,
        |texels| scene::from_papa::scene_texture(t, &t.name, texels, &mut warnings),
        scene::Texture::rgba8_len,
    )
    .unwrap_or_else(|why| scene::Texture::checkerboard(&t.name, why));
    source
        .details
        .push(("texture".into(), tex.format.clone().into()));
    // The texture viewer's levels, largest first, as long as
    // they fit what the budget has left (none for headers only).
    let mut left = companions.budget().next().budget() as u64;
    let mut fits = |l: usize| {
        let n = ((t.width as u64 >> l).max(1)) * ((t.height as u64 >> l).max(1)) * 4;
        let ok = n <= left;
        if ok {
            left -= n;
        }
        ok
    };
    let mip_levels: Vec<scene::Texture> = (0..t.mips.max(1) as usize)
        .filter(|&l| fits(l))
        .filter_map(|l| {
            // DXT levels stay blocks until the viewer shows one.
            let (w, h, rgba8, compressed) = match scene::from_papa::bc_format(t) {
                Some(format) => {
                    let blocks = scene::from_papa::bc_level(t, l).ok()?.to_vec();
                    let (w, h) = t.level_dims(l as u32);
                    let c = scene::Compressed {
                        format,
                        levels: vec![blocks],
                    };
                    (w, h, Vec::new(), Some(c))
                }
                None => {
                    let (w, h, rgba8) = scene::from_papa::decode_level(t, l).ok()?;
                    (w, h, rgba8, None)
                }
            };
            Some(scene::Texture {
                name: tex.name.clone(),
                width: w,
                height: h,
                rgba8,
                source: tex.source.clone(),
                format: format!("mip {l}: {w}x{h}"),
                srgb: tex.srgb,
                compressed,
            })
        })
        .collect();
    companions
        .budget()
        .spend(mip_levels.iter().map(scene::Texture::rgba8_len).sum());
    let mut s = texture_scene(tex, source);
    s.mip_levels = mip_levels;
    s.warnings = warnings;
    s
}

/// Adds the animations of a Papa animation file to `scene` (bones bound by
/// name) and returns the new clips' names; an error when the file holds no
/// animation or none of its bones is in the scene's skeleton.
pub fn add_animation_file(scene: &mut Scene, path: &Path) -> Result<Vec<String>, LoadError> {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let bytes = read_file(path).map_err(|error| LoadError::Io {
        file: file.clone(),
        error,
    })?;
    let p = papa::decode(&bytes).map_err(|error| LoadError::Decode {
        file: file.clone(),
        error,
    })?;
    let stem = file.trim_end_matches(".papa");
    let name = stem
        .split_once("_anim_")
        .map_or(stem, |(_, n)| n)
        .to_string();
    let mut added = Vec::new();
    for (i, a) in p.animations.iter().enumerate() {
        let name = if p.animations.len() > 1 {
            format!("{name} {i}")
        } else {
            name.clone()
        };
        if let Some(clip) = scene::from_papa::animation_clip(a, &name, &scene.skeleton) {
            remove_clip(scene, &name);
            scene.clips.push(clip);
            scene.added.clips.push((
                scene.clips.len() - 1,
                format!("from {file}, added by hand").into(),
            ));
            added.push(name);
        }
    }
    if added.is_empty() {
        return Err(LoadError::Decode {
            file,
            error: formats::DecodeError::invalid(
                0,
                "animations",
                if p.animations.is_empty() {
                    "the file holds no animation".to_string()
                } else {
                    format!(
                        "none of its bones is in {}'s skeleton",
                        scene.source.file_name
                    )
                },
            ),
        });
    }
    Ok(added)
}

/// Removes the clip named `name`, keeping `scene.added` and `start_clip`
/// pointing at the same clips.
fn remove_clip(scene: &mut Scene, name: &str) {
    let Some(i) = scene.clips.iter().position(|c| c.name == name) else {
        return;
    };
    scene.clips.remove(i);
    scene.added.clips.retain(|(k, _)| *k != i);
    for (k, _) in &mut scene.added.clips {
        if *k > i {
            *k -= 1;
        }
    }
    scene.start_clip = match scene.start_clip {
        Some(k) if k == i => None,
        Some(k) if k > i => Some(k - 1),
        other => other,
    };
}

/// A texture on its own is shown on a unit quad facing +Z.
fn texture_scene(t: scene::Texture, source: SourceInfo) -> Scene {
    let aspect = t.width as f32 / t.height as f32;
    let (hw, hh) = (aspect.min(1.0), (1.0 / aspect).min(1.0));
    let positions = vec![
        Vec3::new(-hw, -hh, 0.0),
        Vec3::new(hw, -hh, 0.0),
        Vec3::new(hw, hh, 0.0),
        Vec3::new(-hw, hh, 0.0),
    ];
    let mesh = scene::Mesh {
        primitive: Default::default(),
        closed: false,
        facing: Vec::new(),
        faceted: false,
        tangents: None,
        extra_uvs: Vec::new(),
        name: "texture".into(),
        normals: vec![Vec3::Z; 4],
        uvs: vec![
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
        ],
        positions,
        indices: vec![0, 1, 2, 0, 2, 3],
        material: Some(0),
        visible: true,
        has_file_normals: false,
        has_file_uvs: false,
        skin: None,
        material_overrides: Vec::new(),
        colors: None,
    };
    Scene {
        source,
        meshes: vec![mesh],
        materials: vec![scene::Material {
            name: "texture".into(),
            base_color: [1.0; 4],
            shading: 0.0,
            texture: Some(0),
            ..Default::default()
        }],
        textures: vec![t],
        added: scene::Added {
            meshes: vec![(0, "a quad to show the texture on".into())],
            materials: vec![(0, "the quad's material".into())],
            ..Default::default()
        },
        texture_view: true,
        ..Default::default()
    }
}
