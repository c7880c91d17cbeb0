//! Materials and their textures: metallic-roughness from the scene's
//! materials, textures as PNG images, and a map part's lightmap material.

use super::Writer;
use crate::anim::color::srgb_to_linear;
use crate::scene::material_anim::MaterialAnim;
use crate::scene::{BlendMode, Material, MaterialMap, NormalMap, Sampling, Texture};
use serde_json::{Value, json};

/// sRGB to linear, clamped into 0..=1.
pub(super) fn linear(c: f32) -> f32 {
    srgb_to_linear(c.clamp(0.0, 1.0))
}

fn png(t: &Texture, pixels: &[u8]) -> Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(pixels, t.width, t.height, image::ExtendedColorType::Rgba8)
        .map_err(|e| format!("texture {:?}: PNG encoding: {e}", t.name))?;
    Ok(out)
}

/// A map part's material: its lightmap as the emissive texture on the
/// second UV set, base colour black, so any glTF viewer shows the light the
/// map baked, whatever lights it has of its own.
fn map_material(lightmap: &str, texture: usize) -> Value {
    json!({
        "name": format!("lightmap {lightmap}"),
        "pbrMetallicRoughness": {
            "baseColorFactor": [0.0, 0.0, 0.0, 1.0],
            "metallicFactor": 0.0,
            "roughnessFactor": 1.0,
        },
        "emissiveTexture": {"index": texture, "texCoord": 1},
        "emissiveFactor": [1.0, 1.0, 1.0],
        "doubleSided": true,
    })
}

impl Writer<'_> {
    /// The glTF texture of scene texture `i` sampled as `sampling`: one
    /// PNG image a scene texture and one sampler a way of sampling, each
    /// made the first time a material uses it.
    pub(super) fn texture(&mut self, i: usize, sampling: Sampling) -> Option<usize> {
        if let Some(&(_, t)) = self.texture_of.iter().find(|(k, _)| *k == (i, sampling)) {
            return Some(t);
        }
        let image = match self.image_of.get(i).copied().flatten() {
            Some(image) => image,
            None => {
                let t = self.scene.textures.get(i)?;
                // Made once: BC blocks and the checkerboard are decoded on
                // request.
                let pixels = t.pixels();
                if pixels.len() != t.rgba8_len() || t.width == 0 {
                    self.dropped
                        .push(format!("texture {:?}: no decoded texels to write", t.name));
                    return None;
                }
                let bytes = match png(t, &pixels) {
                    Ok(b) => b,
                    Err(e) => {
                        self.dropped.push(e);
                        return None;
                    }
                };
                self.pngs.push(bytes);
                self.images
                    .push(json!({"name": t.name, "mimeType": "image/png"}));
                self.image_of[i] = Some(self.images.len() - 1);
                self.images.len() - 1
            }
        };
        let sampler = match self.samplers.iter().position(|s| *s == sampling) {
            Some(s) => s,
            None => {
                self.samplers.push(sampling);
                self.samplers.len() - 1
            }
        };
        let name = &self.scene.textures[i].name;
        self.textures
            .push(json!({"source": image, "sampler": sampler, "name": name}));
        self.texture_of
            .push(((i, sampling), self.textures.len() - 1));
        Some(self.textures.len() - 1)
    }

    /// One glTF material per scene material, in order.
    pub(super) fn materials(&mut self) {
        let scene = self.scene;
        for (i, m) in scene.materials.iter().enumerate() {
            let out = self.material(&material_label(i, &m.name), m);
            self.materials.push(out);
        }
    }

    /// Scene material `m` (`label` in what is listed as dropped) as glTF:
    /// metallic-roughness, its emission, normal map and alpha mode, the
    /// specular-glossiness extension where it came from one, and its
    /// animation's extras; what glTF cannot hold is listed.
    fn material(&mut self, label: &str, m: &Material) -> Value {
        let c = m.base_color;
        let mut pbr = json!({
            "baseColorFactor": [linear(c[0]), linear(c[1]), linear(c[2]), c[3].clamp(0.0, 1.0)],
            "metallicFactor": 0.0,
            "roughnessFactor": 1.0,
        });
        if let Some(t) = m.texture.and_then(|t| self.texture(t, m.sampling)) {
            pbr["baseColorTexture"] = json!({"index": t});
        }
        let mut out = json!({
            "name": m.name,
            "pbrMetallicRoughness": pbr,
            "doubleSided": true,
        });
        let e = m.emission;
        if e.iter().any(|&x| x > 0.0) {
            out["emissiveFactor"] = json!([linear(e[0]), linear(e[1]), linear(e[2])]);
        }
        if let Some(t) = m.maps.emission.and_then(|t| self.texture(t, m.sampling)) {
            out["emissiveTexture"] = json!({"index": t});
            if e.iter().all(|&x| x <= 0.0) {
                out["emissiveFactor"] = json!([1.0, 1.0, 1.0]);
            }
        }
        match m.maps.normal {
            Some((t, NormalMap::Rgb)) => {
                if let Some(t) = self.texture(t, m.sampling) {
                    out["normalTexture"] = json!({"index": t});
                }
            }
            Some((_, kind)) => self.dropped.push(format!(
                "{label}: its {kind:?} normal map (glTF takes RGB tangent-space normals)"
            )),
            None => {}
        }
        self.alpha_mode(&mut out, label, m);
        self.game_maps(label, m);
        // A material read from KHR_materials_pbrSpecularGlossiness
        // goes back to it, its metallic-roughness block beside it as
        // the fallback the extension's specification allows.
        if let Some(glossiness) = m.maps.glossiness {
            self.specular_glossiness(&mut out, m, glossiness);
        }
        if m.matcap.is_some() {
            self.dropped.push(format!("{label}: matcap"));
        }
        if let Some(a) = &m.animation {
            // Colour and emission are baked (and written as pointer
            // channels when asked) by `material_animations`; the rest
            // of the animation as a documented extra.
            out["extras"] = self.animation_extras(label, m, a);
        }
        out
    }

    /// The glTF alpha mode of `m`'s blending: additive is dropped to alpha
    /// blending, with a note.
    fn alpha_mode(&mut self, out: &mut Value, label: &str, m: &Material) {
        match m.blend {
            BlendMode::Opaque => {
                if let Some(cutoff) = m.alpha_cutoff {
                    out["alphaMode"] = json!("MASK");
                    out["alphaCutoff"] = json!(cutoff);
                }
            }
            BlendMode::Alpha => out["alphaMode"] = json!("BLEND"),
            BlendMode::Additive => {
                out["alphaMode"] = json!("BLEND");
                self.dropped.push(format!(
                    "{label}: additive blending (exported as alpha blending)"
                ));
            }
        }
    }

    /// The games' maps glTF has no place for (Planetary Annihilation's
    /// team mask and material maps), listed as dropped.
    fn game_maps(&mut self, label: &str, m: &Material) {
        if m.maps.team_mask.is_some() {
            self.dropped.push(format!("{label}: team-colour mask"));
        }
        match m.maps.material {
            Some((_, MaterialMap::SpecularGlossiness)) | None => {}
            Some((_, kind)) => {
                let glow = if kind == MaterialMap::Csg {
                    ", glow"
                } else {
                    ""
                };
                self.dropped
                    .push(format!("{label}: material map (specular, gloss{glow})"));
            }
        }
    }

    /// `KHR_materials_pbrSpecularGlossiness` on `out`, from its base colour
    /// and texture and `m`'s specular colour and map.
    fn specular_glossiness(&mut self, out: &mut Value, m: &Material, glossiness: f32) {
        let k = m.maps.specular.map_or([0.0; 3], |(k, _)| k);
        let mut ext = json!({
            "diffuseFactor": out["pbrMetallicRoughness"]["baseColorFactor"],
            "specularFactor": [linear(k[0]), linear(k[1]), linear(k[2])],
            "glossinessFactor": glossiness,
        });
        if let Some(t) = out["pbrMetallicRoughness"].get("baseColorTexture") {
            ext["diffuseTexture"] = t.clone();
        }
        if let Some((t, MaterialMap::SpecularGlossiness)) = m.maps.material
            && let Some(t) = self.texture(t, m.sampling)
        {
            ext["specularGlossinessTexture"] = json!({"index": t});
        }
        out["extensions"] = json!({"KHR_materials_pbrSpecularGlossiness": ext});
        self.extensions_used
            .push("KHR_materials_pbrSpecularGlossiness");
    }

    /// A material animation's `extras`: its clock, loop and texture keys
    /// (texture switches and scrolling are listed as dropped). The
    /// material is marked for `material_animations`.
    fn animation_extras(&mut self, label: &str, m: &Material, a: &MaterialAnim) -> Value {
        let texture_keys: Vec<Value> = a
            .texture
            .keys
            .iter()
            .map(|k| json!({"frame": k.frame, "texture": k.value.and_then(|t| self.texture(t, m.sampling))}))
            .collect();
        self.material_anims.push(self.materials.len());
        if !a.texture.keys.is_empty() || a.texture_scroll != [0.0; 2] {
            self.dropped.push(format!(
                "{label}: texture switches and scrolling (kept in extras.facet_material_animation)"
            ));
        }
        json!({"facet_material_animation": {
            "seconds_per_frame": a.seconds_per_frame,
            "last_frame": a.last_frame,
            "loop": format!("{:?}", a.loop_mode),
            "texture_scroll_uv_per_s": a.texture_scroll,
            "texture_keys": texture_keys,
        }})
    }

    /// The material of a map part lit by scene texture `lightmap` (made
    /// once per lightmap).
    pub(super) fn lightmap_material(&mut self, lightmap: usize) -> Option<usize> {
        if let Some(&(_, m)) = self.lightmap_materials.iter().find(|(t, _)| *t == lightmap) {
            return Some(m);
        }
        let t = self.texture(lightmap, Sampling::default())?;
        let name = &self.scene.textures[lightmap].name;
        self.materials.push(map_material(name, t));
        self.lightmap_materials
            .push((lightmap, self.materials.len() - 1));
        Some(self.materials.len() - 1)
    }
}

/// How the export's list of what it left out names a material: by number as
/// well as by name, since a file may give materials one name (bot_sun.papa's
/// two are both "solid").
pub(super) fn material_label(i: usize, name: &str) -> String {
    match name.is_empty() {
        true => format!("material {i}"),
        false => format!("material {i} {name:?}"),
    }
}
