//! Bytes of a glTF file: its buffers (the GLB chunk, `data:` URIs or files
//! beside it), every view and accessor range checked before it is read.

use crate::scene::companions::{Companions, Found, Lookup};

/// The file's buffers, whole, and the views stored compressed, decoded.
pub(super) struct Buffers {
    buffers: Vec<Vec<u8>>,
    /// Per view: its bytes decoded where it is stored with
    /// `EXT_meshopt_compression` or `KHR_meshopt_compression`.
    decoded: Vec<Option<Vec<u8>>>,
    /// Per accessor: its elements, tightly packed, where a primitive's
    /// `KHR_draco_mesh_compression` stream stands for it (empty when the
    /// file has none).
    draco: Vec<Option<Vec<u8>>>,
}

/// The two names of meshopt compression: the vendor extension gltfpack
/// writes by default, and Khronos' ratified one (which adds the COLOR
/// filter and the version 1 attribute codec).
const MESHOPT: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];

impl Buffers {
    /// The GLB's binary chunk, `data:` URIs, or files beside the model;
    /// then every compressed view decoded.
    pub(super) fn load(
        doc: &gltf::Document,
        blob: Option<Vec<u8>>,
        companions: &dyn Companions,
    ) -> Result<Buffers, String> {
        let meshopt = doc.extensions_used().any(|e| MESHOPT.contains(&e));
        let mut buffers: Vec<Vec<u8>> = Vec::new();
        let mut blob = blob;
        for b in doc.buffers() {
            // A meshopt fallback buffer holds the views' uncompressed form
            // for readers without the extension: it may have no bytes at
            // all (no URI, not the GLB chunk), and a reader that decodes
            // the views need not load it.
            let fallback = MESHOPT.iter().any(|e| {
                b.extension_value(e)
                    .and_then(|v| v.get("fallback"))
                    .and_then(|f| f.as_bool())
                    == Some(true)
            });
            let placeholder = matches!(b.source(), gltf::buffer::Source::Bin)
                && (b.index() > 0 || blob.is_none());
            if meshopt && (fallback || placeholder) {
                buffers.push(Vec::new());
                continue;
            }
            let data = match b.source() {
                gltf::buffer::Source::Bin => blob
                    .take()
                    .ok_or("buffer 0 is the binary chunk, which the file lacks")?,
                gltf::buffer::Source::Uri(uri) if is_data_uri(uri) => {
                    data_uri(uri)
                        .map_err(|e| format!("buffer {}: {e}", b.index()))?
                        .0
                }
                gltf::buffer::Source::Uri(uri) => {
                    match companions.find(Lookup::Beside(&percent_decode(uri))) {
                        Ok(Found { bytes, .. }) => bytes,
                        Err(missing) => return Err(format!("buffer {}: {missing}", b.index())),
                    }
                }
            };
            if data.len() < b.length() {
                return Err(format!(
                    "buffer {}: {} bytes, the file says {}",
                    b.index(),
                    data.len(),
                    b.length()
                ));
            }
            buffers.push(data);
        }
        let mut decoded = vec![None; doc.views().len()];
        if meshopt {
            for v in doc.views() {
                if let Some((name, ext)) = MESHOPT
                    .iter()
                    .find_map(|e| v.extension_value(e).map(|x| (*e, x)))
                {
                    let bytes = meshopt_view(&v, ext, &buffers)
                        .map_err(|e| format!("buffer view {} ({name}): {e}", v.index()))?;
                    decoded[v.index()] = Some(bytes);
                }
            }
        }
        let mut buffers = Buffers {
            buffers,
            decoded,
            draco: Vec::new(),
        };
        if doc.extensions_used().any(|e| e == super::draco::NAME) {
            buffers.draco = super::draco::decode_all(doc, &buffers)?;
        }
        Ok(buffers)
    }

    /// A view's bytes (decoded, where it is stored compressed).
    pub(super) fn view(&self, v: &gltf::buffer::View) -> Result<&[u8], String> {
        if let Some(Some(bytes)) = self.decoded.get(v.index()) {
            return Ok(bytes);
        }
        let buf = self.buffers.get(v.buffer().index()).ok_or_else(|| {
            format!(
                "buffer view {}: no buffer {}",
                v.index(),
                v.buffer().index()
            )
        })?;
        let end = v.offset().checked_add(v.length());
        end.and_then(|e| buf.get(v.offset()..e)).ok_or_else(|| {
            format!(
                "buffer view {}: bytes {}..+{} run past its buffer ({} bytes)",
                v.index(),
                v.offset(),
                v.length(),
                buf.len()
            )
        })
    }
}

/// The most bytes a compressed view may decode to per compressed byte (and
/// a floor for tiny views): meshoptimizer's attribute codec stores a block
/// lane of 256 equal bytes in 2 bits, its index codecs at least a byte a
/// triangle or an index. A view claiming more is refused before anything is
/// allocated.
const MESHOPT_MAX_RATIO: usize = 1024;
const MESHOPT_FLOOR: usize = 1 << 16;

/// A view stored with meshopt compression, decoded as the extension's
/// specification says: `count` elements of `byteStride` bytes from the
/// compressed range, by `mode` (ATTRIBUTES, TRIANGLES, INDICES), then
/// `filter` (NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL; COLOR for the
/// Khronos extension). Every rule the specification lists on these is
/// checked first: meshoptimizer asserts on them.
fn meshopt_view(
    v: &gltf::buffer::View,
    ext: &serde_json::Value,
    buffers: &[Vec<u8>],
) -> Result<Vec<u8>, String> {
    let m = Meshopt::read(ext)?;
    let (buffer, offset, length) = (m.buffer, m.offset, m.length);
    let src = buffers
        .get(buffer)
        .ok_or_else(|| format!("no buffer {buffer}"))?;
    let src = offset
        .checked_add(length)
        .and_then(|end| src.get(offset..end))
        .ok_or_else(|| {
            format!(
                "compressed bytes {offset}..+{length} run past buffer {buffer} ({} bytes)",
                src.len()
            )
        })?;
    let (stride, count) = (m.stride, m.count);
    let size = stride
        .checked_mul(count)
        .filter(|&s| s == v.length())
        .ok_or_else(|| {
            format!(
                "{count} elements of {stride} bytes are not the view's {} bytes",
                v.length()
            )
        })?;
    if v.stride().is_some_and(|s| s != stride) {
        return Err(format!(
            "byteStride {stride} is not the view's {}",
            v.stride().unwrap_or(0)
        ));
    }
    if size
        > src
            .len()
            .saturating_mul(MESHOPT_MAX_RATIO)
            .max(MESHOPT_FLOOR)
    {
        return Err(format!(
            "{size} bytes from {} compressed: more than the codecs can hold",
            src.len()
        ));
    }
    m.decode(src)
}

/// A compressed view's extension object ([`meshopt_view`]).
struct Meshopt {
    buffer: usize,
    offset: usize,
    length: usize,
    stride: usize,
    count: usize,
    mode: String,
    filter: String,
}

impl Meshopt {
    /// The extension object's fields (byteOffset 0 and filter NONE where
    /// absent), with the specification's rules on mode, filter and
    /// stride, which meshoptimizer asserts.
    fn read(ext: &serde_json::Value) -> Result<Meshopt, String> {
        let int = |key: &str, default: Option<u64>| -> Result<usize, String> {
            match ext.get(key) {
                Some(x) => x
                    .as_u64()
                    .and_then(|x| usize::try_from(x).ok())
                    .ok_or_else(|| format!("{key} is not a count of bytes: {x}")),
                None => default
                    .map(|d| d as usize)
                    .ok_or_else(|| format!("no {key}")),
            }
        };
        let text = |key: &str, default: &'static str| -> Result<String, String> {
            match ext.get(key) {
                Some(x) => x
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("{key} is not a string: {x}")),
                None => Ok(default.to_owned()),
            }
        };
        let m = Meshopt {
            buffer: int("buffer", None)?,
            offset: int("byteOffset", Some(0))?,
            length: int("byteLength", None)?,
            stride: int("byteStride", None)?,
            count: int("count", None)?,
            mode: text("mode", "")?,
            filter: text("filter", "NONE")?,
        };
        m.check()?;
        Ok(m)
    }

    fn check(&self) -> Result<(), String> {
        let Meshopt {
            stride,
            count,
            ref mode,
            ref filter,
            ..
        } = *self;
        match mode.as_str() {
            "ATTRIBUTES" => {
                if stride == 0 || stride > 256 || stride % 4 != 0 {
                    return Err(format!(
                        "ATTRIBUTES with byteStride {stride}, not a multiple of 4 up to 256"
                    ));
                }
            }
            "TRIANGLES" | "INDICES" => {
                if stride != 2 && stride != 4 {
                    return Err(format!("{mode} with byteStride {stride}, not 2 or 4"));
                }
                if filter != "NONE" {
                    return Err(format!("{mode} with filter {filter}, not NONE"));
                }
                if mode == "TRIANGLES" && count % 3 != 0 {
                    return Err(format!("TRIANGLES with count {count}, not a multiple of 3"));
                }
            }
            other => {
                return Err(format!(
                    "mode {other:?} is not ATTRIBUTES, TRIANGLES or INDICES"
                ));
            }
        }
        let ok = match filter.as_str() {
            "NONE" => true,
            "OCTAHEDRAL" | "COLOR" => stride == 4 || stride == 8,
            "QUATERNION" => stride == 8,
            "EXPONENTIAL" => stride % 4 == 0,
            other => return Err(format!("filter {other:?} is not one the extension defines")),
        };
        if !ok {
            return Err(format!("filter {filter} with byteStride {stride}"));
        }
        Ok(())
    }

    /// `count * stride` bytes decoded from `src` by the mode's codec, then
    /// the filter applied in place. The caller has bounded that size by
    /// `src`'s; it is worked out here, checked, for the codecs' calls.
    fn decode(&self, src: &[u8]) -> Result<Vec<u8>, String> {
        let (stride, count) = (self.stride, self.count);
        let size = stride
            .checked_mul(count)
            .ok_or_else(|| format!("{count} elements of {stride} bytes overflow"))?;
        let mut out = vec![0u8; size];
        let (dst, src_ptr) = (out.as_mut_ptr().cast::<std::ffi::c_void>(), src.as_ptr());
        let code = match self.mode.as_str() {
            // SAFETY: `out` holds count * stride bytes, the size each
            // decoder writes; mode, stride and count are checked (`check`)
            // as the library asserts them; `src` is a live slice of its
            // length.
            "ATTRIBUTES" => unsafe {
                meshopt::ffi::meshopt_decodeVertexBuffer(dst, count, stride, src_ptr, src.len())
            },
            "TRIANGLES" => unsafe {
                meshopt::ffi::meshopt_decodeIndexBuffer(dst, count, stride, src_ptr, src.len())
            },
            _ => unsafe {
                meshopt::ffi::meshopt_decodeIndexSequence(dst, count, stride, src_ptr, src.len())
            },
        };
        if code != 0 {
            return Err(format!(
                "the {} data does not decode (meshoptimizer's code {code})",
                self.mode
            ));
        }
        let dst = out.as_mut_ptr().cast::<std::ffi::c_void>();
        // SAFETY: each filter works in place on count * stride bytes, the
        // strides checked (`check`) as the library asserts them.
        unsafe {
            match self.filter.as_str() {
                "OCTAHEDRAL" => meshopt::ffi::meshopt_decodeFilterOct(dst, count, stride),
                "QUATERNION" => meshopt::ffi::meshopt_decodeFilterQuat(dst, count, stride),
                "EXPONENTIAL" => meshopt::ffi::meshopt_decodeFilterExp(dst, count, stride),
                "COLOR" => meshopt::ffi::meshopt_decodeFilterColor(dst, count, stride),
                _ => {}
            }
        }
        Ok(out)
    }
}

/// Extensions a file may require that the importer reads.
/// `KHR_mesh_quantization` lets positions, normals, tangents and UVs be
/// stored as (normalized or not) 8- and 16-bit integers, which [`floats`]
/// reads whatever their component type; gltfpack writes it by default.
/// `KHR_texture_transform` moves, turns and scales a texture's UVs: the
/// base colour texture's is baked into them (`parts::uv_transform`).
/// `KHR_materials_unlit` draws a material's colour as it is, unlit
/// (`Material::shading` 0).
/// `EXT_meshopt_compression` and `KHR_meshopt_compression` store views
/// compressed (gltfpack's `-c`): decoded by meshoptimizer as the file is
/// opened (`meshopt_view`).
/// `KHR_materials_pbrSpecularGlossiness` and
/// `KHR_materials_emissive_strength`: material terms (`materials.rs`).
/// `EXT_mesh_gpu_instancing` draws a node's mesh once per instance
/// transform (gltfpack's `-mi`): `parts::instances`.
/// `EXT_texture_webp` names a WebP image (Blender's WebP export):
/// `materials::texture_image`.
/// `KHR_draco_mesh_compression` stores a primitive's attributes and
/// indices as one Draco stream (Blender's and gltf-transform's
/// compression): decoded as the file is opened (`draco::decode_all`).
const READ_REQUIRED: &[&str] = &[
    "KHR_mesh_quantization",
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_materials_emissive_strength",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "KHR_texture_transform",
    "KHR_materials_unlit",
    "EXT_mesh_gpu_instancing",
    "EXT_texture_webp",
    "KHR_draco_mesh_compression",
];

/// Every index between objects in range (the crate parses them unchecked).
pub(super) fn check_references(doc: &gltf::Document) -> Result<(), String> {
    use gltf::json::validation::Validate;
    let json = doc.as_json();
    // gltf-json's own validation looks up a primitive's POSITION accessor
    // before it checks that it exists (gltf-json 1.4.1, mesh.rs:151: a
    // panic on a file naming accessor 2 of 0): every attribute's accessor
    // is checked here first.
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            for (semantic, accessor) in &primitive.attributes {
                if accessor.value() >= json.accessors.len() {
                    let name = match semantic {
                        gltf::json::validation::Checked::Valid(s) => s.to_string(),
                        gltf::json::validation::Checked::Invalid => "?".into(),
                    };
                    return Err(format!(
                        "meshes[{m}].primitives[{p}].attributes[\"{name}\"]: no accessor {} (the file has {})",
                        accessor.value(),
                        json.accessors.len()
                    ));
                }
            }
        }
    }
    // The extensions a file cannot be read without: the importer reads
    // those of READ_REQUIRED, and gltf-json's own verdict on them (it knows
    // only the ones whose crate features are on) is left out below.
    for ext in &json.extensions_required {
        if !READ_REQUIRED.contains(&ext.as_str()) {
            return Err(format!(
                "the file requires the extension {ext}, which Facet does not read"
            ));
        }
    }
    // A Draco stream stands for its primitive's accessors, which then
    // have no buffer view (KHR_draco_mesh_compression): not an error.
    let draco_backed: std::collections::HashSet<String> = json
        .meshes
        .iter()
        .flat_map(|mesh| &mesh.primitives)
        .filter(|p| {
            p.extensions
                .as_ref()
                .is_some_and(|e| e.others.contains_key(super::draco::NAME))
        })
        .flat_map(|p| p.attributes.values().chain(&p.indices))
        .map(|a| format!("accessors[{}].bufferView", a.value()))
        .collect();
    let mut errors = Vec::new();
    doc.as_json()
        .validate(doc.as_json(), gltf::json::Path::new, &mut |path, err| {
            let path = path().to_string();
            let draco_view = matches!(err, gltf::json::validation::Error::Missing)
                && draco_backed.contains(&path);
            if !path.starts_with("extensionsRequired") && !draco_view {
                errors.push(format!("{path}: {err:?}"));
            }
        });
    // gltf-json validates an animation's samplers and channel samplers but
    // not its channels' targets: checked here (the crate unwraps them).
    for (a, anim) in json.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            if ch.target.node.value() >= json.nodes.len() {
                errors.push(format!(
                    "animations[{a}].channels[{c}].target.node: no node {}",
                    ch.target.node.value()
                ));
            }
            if !matches!(ch.target.path, gltf::json::validation::Checked::Valid(_)) {
                errors.push(format!(
                    "animations[{a}].channels[{c}].target.path: not a property"
                ));
            }
        }
    }
    match errors.first() {
        Some(e) => Err(format!("{e} (and {} more problems)", errors.len() - 1)),
        None => Ok(()),
    }
}

/// Whether `uri` is a `data:` URI (the scheme is case-insensitive).
pub(super) fn is_data_uri(uri: &str) -> bool {
    uri.get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
}

/// The bytes of a `data:` URI and its media type (`type/subtype`), read as
/// the Fetch standard reads them (RFC 2397's `;base64` or percent-encoded
/// bytes; whitespace in base64 skipped). The bytes are at most the URI's
/// length: the file's own size bounds them.
pub(super) fn data_uri(uri: &str) -> Result<(Vec<u8>, String), String> {
    let url = data_url::DataUrl::process(uri).map_err(|e| format!("its data: URI: {e}"))?;
    let (bytes, _fragment) = url
        .decode_to_vec()
        .map_err(|_| "its data: URI: not valid base64".to_string())?;
    let mime = url.mime_type();
    Ok((bytes, format!("{}/{}", mime.type_, mime.subtype)))
}

/// `%20` and friends in a URI, decoded.
pub(super) fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).and_then(|&c| hex(c)),
            b.get(i + 2).and_then(|&c| hex(c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An accessor's elements as raw component bytes, every range checked
/// first: (each element's bytes, component size). A sparse accessor's
/// substitutions are [`substitutions`].
///
/// A sparse accessor without a view is zeros with substitutions, the form
/// glTF uses for morph targets: read only where `zeros_up_to` (the count
/// of the base attribute, which the file's bytes back) allows its count.
fn elements<'a>(
    a: &gltf::Accessor,
    buffers: &'a Buffers,
    comps: usize,
    zeros_up_to: usize,
) -> Result<(impl ExactSizeIterator<Item = &'a [u8]> + 'a, usize), String> {
    static ZEROS: [u8; 64] = [0; 64];
    use gltf::accessor::DataType;
    let size = match a.data_type() {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    };
    let n_comps = a.dimensions().multiplicity();
    if n_comps != comps {
        return Err(format!(
            "accessor {}: {n_comps} components, {comps} expected",
            a.index()
        ));
    }
    let elem = size * comps;
    let count = a.count();
    if let Some(Some(bytes)) = buffers.draco.get(a.index()) {
        // Written by draco::decode_all in this accessor's layout.
        if count.checked_mul(elem) != Some(bytes.len()) {
            return Err(format!(
                "accessor {}: {count} elements of {elem} bytes, its Draco data {} bytes",
                a.index(),
                bytes.len()
            ));
        }
        return Ok((slices(bytes, 0, elem, elem, count), size));
    }
    let Some(view) = a.view() else {
        if a.sparse().is_some() && count <= zeros_up_to && elem <= ZEROS.len() {
            // Every element the same zero bytes (stride 0).
            return Ok((slices(&ZEROS[..], 0, 0, elem, count), size));
        }
        return Err(format!(
            "accessor {}: no buffer view (all zeros) is not read",
            a.index()
        ));
    };
    let bytes = buffers.view(&view)?;
    let stride = view.stride().unwrap_or(elem);
    let need = if count == 0 {
        0
    } else {
        a.offset()
            .checked_add(
                (count - 1)
                    .checked_mul(stride)
                    .ok_or("accessor size overflows")?,
            )
            .and_then(|x| x.checked_add(elem))
            .ok_or("accessor size overflows")?
    };
    if need > bytes.len() || stride < elem {
        return Err(format!(
            "accessor {}: {count} elements of {elem} bytes every {stride} from {} run past its view ({} bytes)",
            a.index(),
            a.offset(),
            bytes.len()
        ));
    }
    Ok((slices(bytes, a.offset(), stride, elem, count), size))
}

/// `count` slices of `elem` bytes of `bytes`, every `stride` from `offset`
/// (the caller has checked that they lie within it).
fn slices(
    bytes: &[u8],
    offset: usize,
    stride: usize,
    elem: usize,
    count: usize,
) -> impl ExactSizeIterator<Item = &[u8]> {
    (0..count).map(move |i| &bytes[offset + i * stride..offset + i * stride + elem])
}

/// A sparse accessor's substitutions (glTF 2.0 §3.6.2.3): each changed
/// element's index and its bytes, tightly packed in the values' view.
/// Every index is below the accessor's count, and both views hold their
/// `count` entries, checked before anything is allocated. Only a sparse
/// accessor over a view is read: one without (zeros of any count the
/// JSON names, which no byte of the file backs) is refused by
/// [`elements`].
fn substitutions<'a>(
    a: &gltf::Accessor,
    buffers: &'a Buffers,
    elem: usize,
) -> Result<Vec<(usize, &'a [u8])>, String> {
    use gltf::accessor::sparse::IndexType;
    let Some(sparse) = a.sparse() else {
        return Ok(Vec::new());
    };
    let n = sparse.count();
    let (indices, values) = (sparse.indices(), sparse.values());
    let width = match indices.index_type() {
        IndexType::U8 => 1,
        IndexType::U16 => 2,
        IndexType::U32 => 4,
    };
    let index_bytes = buffers.view(&indices.view())?;
    let value_bytes = buffers.view(&values.view())?;
    let holds = |bytes: &[u8], offset: usize, size: usize| {
        n.checked_mul(size)
            .and_then(|len| len.checked_add(offset))
            .is_some_and(|end| end <= bytes.len())
    };
    if !holds(index_bytes, indices.offset(), width) || !holds(value_bytes, values.offset(), elem) {
        return Err(format!(
            "accessor {}: its {n} sparse indices or values run past their views",
            a.index()
        ));
    }
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        // Little-endian, 1, 2 or 4 bytes wide.
        let mut le = [0u8; 4];
        le[..width].copy_from_slice(&index_bytes[indices.offset() + k * width..][..width]);
        let i = u32::from_le_bytes(le) as usize;
        if i >= a.count() {
            return Err(format!(
                "accessor {}: sparse index {k} is {i}, past its {} elements",
                a.index(),
                a.count()
            ));
        }
        out.push((i, &value_bytes[values.offset() + k * elem..][..elem]));
    }
    Ok(out)
}

/// An accessor's components, each converted by `component`: its elements,
/// then a sparse accessor's substitutions over them.
fn components<T>(
    a: &gltf::Accessor,
    buffers: &Buffers,
    comps: usize,
    zeros_up_to: usize,
    component: impl Fn(&[u8]) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let (elems, size) = elements(a, buffers, comps, zeros_up_to)?;
    let mut out = Vec::with_capacity(elems.len() * comps);
    for e in elems {
        for c in e.chunks_exact(size) {
            out.push(component(c)?);
        }
    }
    for (i, e) in substitutions(a, buffers, size * comps)? {
        for (k, c) in e.chunks_exact(size).enumerate() {
            out[i * comps + k] = component(c)?;
        }
    }
    Ok(out)
}

/// An accessor as floats (normalized integers converted as glTF says).
pub(super) fn floats(
    a: &gltf::Accessor,
    buffers: &Buffers,
    comps: usize,
) -> Result<Vec<f32>, String> {
    floats_or_zeros(a, buffers, comps, 0)
}

/// A morph target's attribute as floats: its `count` must be the base
/// attribute's, and the view-less sparse form (zeros and substitutions)
/// is read, that count backed by the base attribute's bytes.
pub(super) fn target_floats(
    a: &gltf::Accessor,
    buffers: &Buffers,
    comps: usize,
    count: usize,
) -> Result<Vec<f32>, String> {
    if a.count() != count {
        return Err(format!(
            "accessor {}: a morph target of {} elements for {count} vertices",
            a.index(),
            a.count()
        ));
    }
    floats_or_zeros(a, buffers, comps, count)
}

fn floats_or_zeros(
    a: &gltf::Accessor,
    buffers: &Buffers,
    comps: usize,
    zeros_up_to: usize,
) -> Result<Vec<f32>, String> {
    use gltf::accessor::DataType;
    let norm = a.normalized();
    let data_type = a.data_type();
    components(a, buffers, comps, zeros_up_to, |c| {
        Ok(match data_type {
            DataType::F32 => f32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            DataType::U8 => c[0] as f32 / if norm { 255.0 } else { 1.0 },
            DataType::I8 => {
                let v = c[0] as i8 as f32;
                if norm { (v / 127.0).max(-1.0) } else { v }
            }
            DataType::U16 => {
                u16::from_le_bytes([c[0], c[1]]) as f32 / if norm { 65535.0 } else { 1.0 }
            }
            DataType::I16 => {
                let v = i16::from_le_bytes([c[0], c[1]]) as f32;
                if norm { (v / 32767.0).max(-1.0) } else { v }
            }
            DataType::U32 => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f32,
        })
    })
}

/// An accessor of unsigned integers (indices, joints).
pub(super) fn uints(
    a: &gltf::Accessor,
    buffers: &Buffers,
    comps: usize,
) -> Result<Vec<u32>, String> {
    use gltf::accessor::DataType;
    let data_type = a.data_type();
    components(a, buffers, comps, 0, |c| match data_type {
        DataType::U8 => Ok(c[0] as u32),
        DataType::U16 => Ok(u16::from_le_bytes([c[0], c[1]]) as u32),
        DataType::U32 => Ok(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        _ => Err(format!("accessor {}: integers expected", a.index())),
    })
}
