//! Materials and their textures: sRGB factors from glTF's linear ones,
//! images decoded once each (PNG or JPEG, in the file or beside it).

use super::accessors::{Buffers, percent_decode};
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

    /// The scene texture of image `img`: decoded the first time, a
    /// checkerboard (and a warning) when it cannot be.
    pub(super) fn image(
        &mut self,
        img: gltf::Image,
        buffers: &Buffers,
        companions: &dyn Companions,
        warnings: &mut Vec<String>,
    ) -> Option<usize> {
        if let Some(t) = self.of_image[img.index()] {
            return Some(t);
        }
        let name = img
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("image {}", img.index()));
        let (bytes, mime, source) = match img.source() {
            gltf::image::Source::View { view, mime_type } => match buffers.view(&view) {
                Ok(b) => (b.to_vec(), mime_type.to_string(), TextureSource::Embedded),
                Err(e) => {
                    warnings.push(format!("image {name:?}: {e}"));
                    return None;
                }
            },
            gltf::image::Source::Uri { uri, mime_type } => {
                let file = percent_decode(uri);
                match companions.find(Lookup::Beside(&file)) {
                    Ok(Found { path, bytes }) => (
                        bytes,
                        mime_type.map(str::to_owned).unwrap_or_else(|| {
                            if file.to_ascii_lowercase().ends_with(".png") {
                                "image/png".into()
                            } else {
                                "image/jpeg".into()
                            }
                        }),
                        TextureSource::External(path),
                    ),
                    Err(missing) => {
                        warnings.push(format!("image {name:?}: {missing}; showing a checkerboard"));
                        self.list
                            .push(Texture::checkerboard(&name, missing.to_string()));
                        self.of_image[img.index()] = Some(self.list.len() - 1);
                        return Some(self.list.len() - 1);
                    }
                }
            }
        };
        let format = if mime == "image/png" {
            image::ImageFormat::Png
        } else {
            image::ImageFormat::Jpeg
        };
        let tex = match crate::scene::decode_image(&bytes, format, companions.texels()) {
            Ok(img) => Texture {
                name: name.clone(),
                width: img.width,
                height: img.height,
                format: format!("{mime} {}x{}{}", img.width, img.height, img.declared_note()),
                rgba8: img.rgba8,
                source,
                srgb: true,
                compressed: None,
            },
            Err(e) => {
                warnings.push(format!("image {name:?}: {e}; showing a checkerboard"));
                Texture::checkerboard(&name, e)
            }
        };
        self.list.push(tex);
        self.of_image[img.index()] = Some(self.list.len() - 1);
        Some(self.list.len() - 1)
    }
}

/// One scene material per glTF material.
pub(super) fn materials(
    doc: &gltf::Document,
    textures: &mut Textures,
    buffers: &Buffers,
    companions: &dyn Companions,
    warnings: &mut Vec<String>,
) -> Vec<Material> {
    let srgb = |c: f32| linear_to_srgb(c.clamp(0.0, 1.0));
    let mut materials: Vec<Material> = Vec::new();
    for m in doc.materials() {
        let pbr = m.pbr_metallic_roughness();
        let c = pbr.base_color_factor();
        let e = m.emissive_factor();
        let texture = pbr
            .base_color_texture()
            .and_then(|t| textures.image(t.texture().source(), buffers, companions, warnings));
        let mut maps = Maps::default();
        if let Some(n) = m.normal_texture()
            && let Some(t) = textures.image(n.texture().source(), buffers, companions, warnings)
        {
            textures.list[t].srgb = false;
            maps.normal = Some((t, NormalMap::Rgb));
        }
        maps.emission = m
            .emissive_texture()
            .and_then(|t| textures.image(t.texture().source(), buffers, companions, warnings));
        if matches!(m.alpha_mode(), gltf::material::AlphaMode::Mask) {
            maps.notes.push("alpha mask (cutoff) drawn opaque".into());
        }
        materials.push(Material {
            name: m
                .name()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("material {}", materials.len())),
            base_color: [srgb(c[0]), srgb(c[1]), srgb(c[2]), c[3].clamp(0.0, 1.0)],
            emission: [srgb(e[0]), srgb(e[1]), srgb(e[2])],
            shading: 1.0,
            texture,
            blend: if matches!(m.alpha_mode(), gltf::material::AlphaMode::Blend) {
                BlendMode::Alpha
            } else {
                BlendMode::Opaque
            },
            maps,
            ..Material::default()
        });
    }
    materials
}
