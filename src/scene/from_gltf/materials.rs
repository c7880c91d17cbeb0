//! Materials and their textures: sRGB factors from glTF's linear ones,
//! images decoded once each (PNG or JPEG, or WebP through
//! `EXT_texture_webp`; in the file or beside it).

use super::accessors::{Buffers, data_uri, is_data_uri, percent_decode};
use crate::scene::companions::{Companions, Found, Lookup};
use crate::scene::*;

/// The scene's textures, one per glTF image used.
pub(super) struct Textures {
    pub(super) list: Vec<Texture>,
    /// glTF image -> scene texture, once decoded.
    of_image: Vec<Option<usize>>,
}

impl Textures {
    pub(super) fn new(images: usize) -> Textures {
        Textures {
            list: Vec::new(),
            of_image: vec![None; images],
        }
    }

    /// The scene texture of image `index`: decoded the first time, a
    /// checkerboard (and a warning) when it cannot be. Read from the JSON
    /// itself, not `gltf::Image::source`, which unwraps the `uri` it
    /// expects where there is no `bufferView` and the `mimeType` the
    /// specification asks for beside one (a hostile or careless file has
    /// neither: the bytes say what they are).
    pub(super) fn image(
        &mut self,
        doc: &gltf::Document,
        index: usize,
        buffers: &Buffers,
        companions: &dyn Companions,
        warnings: &mut Vec<String>,
    ) -> Option<usize> {
        if let Some(t) = self.of_image[index] {
            return Some(t);
        }
        let json = &doc.as_json().images[index];
        let name = json
            .name
            .clone()
            .unwrap_or_else(|| format!("image {index}"));
        let read = image_bytes(doc, json, buffers, companions).and_then(|(bytes, mime, source)| {
            let format = image_format(&bytes, &mime).map_err(ImageError::Missing)?;
            decoded(&name, &bytes, (format, &mime), source, companions, warnings)
                .map_err(ImageError::Missing)
        });
        let tex = match read {
            Ok(tex) => tex,
            Err(ImageError::Missing(e)) => {
                warnings.push(format!("image {name:?}: {e}; showing a checkerboard"));
                Texture::checkerboard(&name, e)
            }
            Err(ImageError::View(e)) => {
                warnings.push(format!("image {name:?}: {e}"));
                return None;
            }
        };
        Some(self.push(index, tex))
    }

    /// `tex` as image `image`'s texture: its index in the list.
    fn push(&mut self, image: usize, tex: Texture) -> usize {
        self.list.push(tex);
        self.of_image[image] = Some(self.list.len() - 1);
        self.list.len() - 1
    }
}

/// The image a texture draws: its `EXT_texture_webp` source where it has
/// one (the extension: a viewer that reads WebP uses it, `source` being
/// the fallback for those that do not), else its `source`. None, with a
/// warning, where it names no image Facet reads (only a
/// `KHR_texture_basisu` or `MSFT_texture_dds` source, say): the material
/// is drawn without that map.
fn texture_image(
    doc: &gltf::Document,
    t: &gltf::Texture,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let images = doc.images().count();
    if let Some(webp) = t.extension_value("EXT_texture_webp") {
        match webp.get("source").and_then(|s| s.as_u64()) {
            Some(i) if (i as usize) < images => return Some(i as usize),
            _ => warnings.push(format!(
                "textures[{}].extensions.EXT_texture_webp.source: {} is not an image (the file has {images}); {}",
                t.index(),
                webp.get("source").map_or("none".into(), |s| s.to_string()),
                if t.source().is_some() {
                    "its fallback source is drawn"
                } else {
                    "drawn without it"
                }
            )),
        }
    }
    if let Some(image) = t.source() {
        return Some(image.index());
    }
    if t.extension_value("EXT_texture_webp").is_none() {
        let named: Vec<&str> = t
            .extensions()
            .map(|e| e.keys().map(String::as_str).collect())
            .unwrap_or_default();
        warnings.push(format!(
            "textures[{}]: no image Facet reads ({}); drawn without it",
            t.index(),
            if named.is_empty() {
                "no source".to_string()
            } else {
                format!("its image only through {}", named.join(", "))
            }
        ));
    }
    None
}

/// One scene material per glTF material.
pub(super) fn materials(
    doc: &gltf::Document,
    textures: &mut Textures,
    buffers: &Buffers,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Vec<Material> {
    doc.materials()
        .enumerate()
        .map(|(i, m)| material(doc, &m, i, textures, buffers, companions, warnings))
        .collect()
}

/// glTF material `m`, the `index`th, as the scene's.
fn material(
    doc: &gltf::Document,
    m: &gltf::Material,
    index: usize,
    textures: &mut Textures,
    buffers: &Buffers,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Material {
    let srgb = |c: f32| linear_to_srgb(c.clamp(0.0, 1.0));
    let pbr = m.pbr_metallic_roughness();
    // KHR_materials_pbrSpecularGlossiness (archived, but in older
    // Sketchfab, Unity and 3ds Max exports, often with no metallic-
    // roughness fallback): its diffuse is the base colour, its specular
    // colour and glossiness the specular term (below).
    let spec_gloss = m.pbr_specular_glossiness();
    let c = spec_gloss
        .as_ref()
        .map_or(pbr.base_color_factor(), |s| s.diffuse_factor());
    // KHR_materials_emissive_strength (Blender writes it for an
    // emission strength over 1): the factor times the strength, shown
    // up to 1 (the viewer's emission is not HDR).
    let strength = m.emissive_strength().unwrap_or(1.0);
    let e = m.emissive_factor().map(|e| e * strength);
    let spec_gloss_map = spec_gloss
        .as_ref()
        .and_then(|s| s.specular_glossiness_texture());
    warnings.extend(maps_off_the_base_uvs(m, spec_gloss_map.as_ref()));
    let (texture, normal, emission, spec_gloss_tex) = {
        let mut image = |t: gltf::Texture| {
            let i = texture_image(doc, &t, warnings)?;
            textures.image(doc, i, buffers, companions, warnings)
        };
        (
            base_color_texture(m).and_then(|t| image(t.texture())),
            m.normal_texture().and_then(|n| image(n.texture())),
            m.emissive_texture().and_then(|t| image(t.texture())),
            spec_gloss_map.and_then(|t| image(t.texture())),
        )
    };
    let mut maps = Maps::default();
    if let Some(t) = normal {
        textures.list[t].srgb = false;
        maps.normal = Some((t, NormalMap::Rgb));
    }
    maps.emission = emission;
    if let Some(s) = &spec_gloss {
        // Glossiness g to a Blinn-Phong exponent: roughness 1 - g,
        // alpha its square, n = 2 / alpha^2 - 2 (the usual equivalence),
        // within what the shader's exponent holds.
        let alpha = (1.0 - s.glossiness_factor().clamp(0.0, 1.0)).powi(2);
        let n = (2.0 / (alpha * alpha).max(1e-6) - 2.0).clamp(1.0, 2048.0);
        let k = s.specular_factor();
        maps.specular = Some(([srgb(k[0]), srgb(k[1]), srgb(k[2])], n));
        maps.glossiness = Some(s.glossiness_factor().clamp(0.0, 1.0));
        // The map's RGB and A multiply the factors; the shader makes
        // the exponent from their product per texel.
        if let Some(t) = spec_gloss_tex {
            maps.material = Some((t, MaterialMap::SpecularGlossiness));
        }
    }
    // The sampler of the base colour texture (else the normal map's,
    // else the emission map's): one a material (§5.26; the specification
    // leaves filters to the viewer where the file gives none).
    let sampling = base_color_texture(m)
        .map(|t| t.texture())
        .or_else(|| m.normal_texture().map(|t| t.texture()))
        .or_else(|| m.emissive_texture().map(|t| t.texture()))
        .map(|t| sampling(&t.sampler()))
        .unwrap_or_default();
    // MASK: the cutoff the file gives, 0.5 where it gives none (§5.19).
    let alpha_cutoff = matches!(m.alpha_mode(), gltf::material::AlphaMode::Mask)
        .then(|| m.alpha_cutoff().unwrap_or(0.5));
    Material {
        name: m
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("material {index}")),
        base_color: [srgb(c[0]), srgb(c[1]), srgb(c[2]), c[3].clamp(0.0, 1.0)],
        emission: [srgb(e[0]), srgb(e[1]), srgb(e[2])],
        // KHR_materials_unlit: the colour as it is (the shader's light
        // is 1 at shading 0).
        shading: if m.unlit() { 0.0 } else { 1.0 },
        texture,
        alpha_cutoff,
        blend: if matches!(m.alpha_mode(), gltf::material::AlphaMode::Blend) {
            BlendMode::Alpha
        } else {
            BlendMode::Opaque
        },
        maps,
        sampling,
        ..Material::default()
    }
}

/// Warnings for `m`'s maps that read another UV set than its base colour
/// texture, or are moved by another texture transform. That set and
/// transform are baked into the UVs (parts.rs), which every map is drawn
/// with.
fn maps_off_the_base_uvs(
    m: &gltf::Material,
    spec_gloss_map: Option<&gltf::texture::Info>,
) -> Vec<String> {
    let moved = |t: &gltf::texture::Info| {
        t.texture_transform()
            .map(|t| (t.offset(), t.rotation(), t.scale()))
    };
    let set_of = |t: &gltf::texture::Info| {
        t.texture_transform()
            .and_then(|x| x.tex_coord())
            .unwrap_or(t.tex_coord())
    };
    let base = base_color_texture(m);
    let base_set = base.as_ref().map_or(0, set_of);
    let base_moved = base.as_ref().and_then(moved);
    let name = m.name().unwrap_or("");
    let other_set = |what: &str, set: u32| {
        (set != base_set).then(|| format!(
            "material {name:?}: its {what} reads UV set {set}, the base colour's {base_set}, which all its maps are drawn with"
        ))
    };
    let mut warnings = Vec::new();
    if let Some(n) = m.normal_texture() {
        warnings.extend(other_set("normal map", n.tex_coord()));
    }
    for (what, t) in [
        ("emission map", m.emissive_texture()),
        ("specular-glossiness map", spec_gloss_map.cloned()),
    ] {
        let Some(t) = t else { continue };
        warnings.extend(other_set(what, set_of(&t)));
        if moved(&t).is_some_and(|x| Some(x) != base_moved) {
            warnings.push(format!(
                "material {name:?}: its {what}'s texture transform differs from the base colour's, which all its maps are drawn with"
            ));
        }
    }
    warnings
}

/// A material's base colour texture: the specular-glossiness extension's
/// diffuse texture where the material has that extension, which takes
/// precedence (the extension's specification), else the metallic-roughness
/// base colour texture.
pub(super) fn base_color_texture<'a>(m: &gltf::Material<'a>) -> Option<gltf::texture::Info<'a>> {
    match m.pbr_specular_glossiness() {
        Some(s) => s.diffuse_texture(),
        None => m.pbr_metallic_roughness().base_color_texture(),
    }
}

/// A glTF sampler as the scene's: NEAREST (and the mip modes that pick
/// texels, NEAREST_MIPMAP_*) draws texels as squares; wrap modes as named.
fn sampling(s: &gltf::texture::Sampler) -> Sampling {
    use gltf::texture::{MagFilter, MinFilter, WrappingMode};
    let wrap = |w: WrappingMode| match w {
        WrappingMode::Repeat => Wrap::Repeat,
        WrappingMode::ClampToEdge => Wrap::Clamp,
        WrappingMode::MirroredRepeat => Wrap::Mirror,
    };
    Sampling {
        nearest_mag: s.mag_filter() == Some(MagFilter::Nearest),
        nearest_min: matches!(
            s.min_filter(),
            Some(
                MinFilter::Nearest
                    | MinFilter::NearestMipmapNearest
                    | MinFilter::NearestMipmapLinear
            )
        ),
        wrap: [wrap(s.wrap_s()), wrap(s.wrap_t())],
    }
}

/// Why an image gave no texels: `Missing` shows a checkerboard (no
/// source, a file not found, a type Facet does not read, bytes that do
/// not decode); a `View` that cannot be read leaves the texture out.
enum ImageError {
    Missing(String),
    View(String),
}

/// An image's bytes, its type (as declared, else as its data URI or file
/// name says) and where they came from.
fn image_bytes(
    doc: &gltf::Document,
    json: &gltf::json::Image,
    buffers: &Buffers,
    companions: &dyn Companions,
) -> Result<(Vec<u8>, String, TextureSource), ImageError> {
    let declared = json.mime_type.as_ref().map(|m| m.0.as_str());
    match (&json.buffer_view, json.uri.as_deref()) {
        (Some(v), _) => {
            // In range: check_references.
            let view = doc.views().nth(v.value()).ok_or_else(|| {
                ImageError::View(format!("bufferView {} is not there", v.value()))
            })?;
            let bytes = buffers
                .view(&view)
                .map_err(|e| ImageError::View(e.to_string()))?;
            let mime = declared.unwrap_or_default().to_owned();
            Ok((bytes.to_vec(), mime, TextureSource::Embedded))
        }
        (None, None) => Err(ImageError::Missing("neither a uri nor a bufferView".into())),
        (None, Some(uri)) if is_data_uri(uri) => {
            let (bytes, of_uri) = data_uri(uri).map_err(ImageError::Missing)?;
            let mime = declared.map_or(of_uri, str::to_owned);
            Ok((bytes, mime, TextureSource::Embedded))
        }
        (None, Some(uri)) => {
            let file = percent_decode(uri);
            let Found { path, bytes } = companions
                .find(Lookup::Beside(&file))
                .map_err(|not_found| ImageError::Missing(not_found.to_string()))?;
            let mime = declared.map(str::to_owned).unwrap_or_else(|| {
                let file = file.to_ascii_lowercase();
                if file.ends_with(".png") {
                    "image/png".into()
                } else if file.ends_with(".webp") {
                    "image/webp".into()
                } else {
                    "image/jpeg".into()
                }
            });
            Ok((bytes, mime, TextureSource::External(path)))
        }
    }
}

/// The image format of `bytes`: what the bytes say where they can (a PNG
/// named or typed as a JPEG happens), the declared `mime` otherwise.
fn image_format(bytes: &[u8], mime: &str) -> Result<image::ImageFormat, String> {
    use image::ImageFormat::{Jpeg, Png, WebP};
    match image::guess_format(bytes) {
        Ok(f @ (Png | Jpeg | WebP)) => Ok(f),
        _ if mime == "image/png" => Ok(Png),
        _ if mime == "image/jpeg" => Ok(Jpeg),
        _ if mime == "image/webp" => Ok(WebP),
        _ => Err(match mime {
            "" => "no mimeType, and the bytes are neither PNG, JPEG nor WebP".to_string(),
            _ => format!(
                "{mime} is not an image type Facet reads (glTF's core PNG and JPEG, and EXT_texture_webp's WebP)"
            ),
        }),
    }
}

/// The image `bytes` decoded within the texel budget (reduced with a
/// warning where it must be), or why they cannot be.
fn decoded(
    name: &str,
    bytes: &[u8],
    (format, mime): (image::ImageFormat, &str),
    source: TextureSource,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Result<Texture, String> {
    let img = crate::scene::companions::decode_texels(
        companions,
        |texels| crate::scene::decode_image(bytes, format, texels),
        |img| img.rgba8.len(),
    )
    .map_err(|e| format!("{format:?}: {e}"))?;
    if let Some(declared) = img.declared {
        warnings.push(crate::scene::images::reduced_warning(
            name,
            &format!("{format:?}"),
            declared,
            (img.width, img.height),
        ));
    }
    Ok(Texture {
        name: name.to_string(),
        width: img.width,
        height: img.height,
        format: format!("{mime} {}x{}{}", img.width, img.height, img.declared_note()),
        rgba8: img.rgba8,
        source,
        srgb: true,
        compressed: None,
    })
}
