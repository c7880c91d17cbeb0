//! Face corners -> output vertices: a corner's (VRTS vertex, UV, normal)
//! is welded to the output vertex already made with the same key in the
//! same mesh, else a new one is made; then each attribute list is filled
//! in output order.

use super::*;

#[derive(Default)]
pub(super) struct MeshBuilder {
    pub(super) positions: Vec<Vec3>,
    pub(super) normals: Vec<Vec3>,
    pub(super) uvs: Vec<Vec2>,
    pub(super) colors: Vec<[u8; 4]>,
    pub(super) joints: Vec<[u16; 4]>,
    pub(super) weights: Vec<[u16; 4]>,
    pub(super) indices: Vec<u32>,
    /// The corner (VRTS vertex, UV, normal) of each output vertex, in the
    /// order they are made: their attributes are filled from it after the
    /// faces, by `Welder::fill`, each list in order.
    pub(super) made: Vec<(u32, u32, u32)>,
    /// Triangles the faces give it (counted first, to size `indices`).
    pub(super) triangles: usize,
    pub(super) has_uv: bool,
    /// Whether the mesh keeps vertex colours.
    pub(super) colored: bool,
}

impl MeshBuilder {
    /// The mesh built, named `name`, drawn with material `material`;
    /// `file_normals` where its normals are the file's, skinned where the
    /// model is.
    pub(super) fn into_mesh(
        self,
        name: String,
        material: usize,
        file_normals: bool,
        skinned: bool,
    ) -> Mesh {
        Mesh {
            name,
            positions: self.positions,
            normals: self.normals,
            uvs: self.uvs,
            colors: self.colored.then_some(self.colors),
            indices: self.indices,
            material: Some(material),
            visible: true,
            has_file_normals: file_normals,
            has_file_uvs: self.has_uv,
            skin: skinned.then_some(Skin {
                joints: self.joints,
                weights: self.weights,
            }),
            ..Mesh::default()
        }
    }
}

/// Finds or makes the output vertex of each face corner, then fills the
/// vertices' attributes, a list at a time in output order
/// ([`Welder::fill`]: the corner loop only numbers vertices). The first
/// output vertex made from each VRTS vertex is found through a dense
/// table (`first`: group, index and, where corners carry UV or normal
/// indices, the key it was made with, in one entry); only a vertex seen
/// again with another UV, normal or material walks a short chain, so most
/// lookups are one array read.
pub(super) struct Welder<'a, F: First> {
    m: &'a M3d,
    /// Smooth normals per VRTS vertex, for corners that store none.
    generated: &'a [Vec3],
    skin_table: &'a [([u16; 4], [u16; 4])],
    skinned: bool,
    /// Per VRTS vertex, its first output vertex ([`First::UNSET`] for none
    /// yet).
    first: Vec<F>,
    /// Per VRTS vertex, the last of its other output vertices in `others`
    /// (made the first time a vertex is seen again with another UV, normal
    /// or material; [`NONE`] for none).
    chain: Vec<u32>,
    /// Output vertices after a VRTS vertex's first, each linked to the one
    /// made before it from the same vertex: a short walk instead of a hash.
    others: Vec<Other>,
}

/// The first output vertex made from a VRTS vertex, as [`Welder`] keeps
/// it: [`Plain`] where no corner carries a UV or normal index (every key
/// is then (NONE, NONE)), else [`Keyed`]. One entry, so a corner's lookup
/// is one bounds check and one cache line.
pub(super) trait First: Copy {
    /// No output vertex made yet.
    const UNSET: Self;
    fn new(group: u32, index: u32, key: (u32, u32)) -> Self;
    /// The group it was made in ([`u32::MAX`] for none yet).
    fn group(self) -> u32;
    /// Its index, if it was made in `group` with `key`.
    fn hit(self, group: u32, key: (u32, u32)) -> Option<u32>;
}

/// [`First`] for meshes whose corners carry only vertex indices: 8 bytes
/// a vertex (the scaling bench's 10M-triangle file is such a mesh).
#[derive(Clone, Copy)]
pub(super) struct Plain {
    group: u32,
    index: u32,
}

impl First for Plain {
    const UNSET: Self = Plain {
        group: u32::MAX,
        index: 0,
    };
    #[inline(always)]
    fn new(group: u32, index: u32, _: (u32, u32)) -> Self {
        Plain { group, index }
    }
    #[inline(always)]
    fn group(self) -> u32 {
        self.group
    }
    #[inline(always)]
    fn hit(self, group: u32, _: (u32, u32)) -> Option<u32> {
        (self.group == group).then_some(self.index)
    }
}

/// [`First`] with the (UV, normal) it was made with: 16 bytes, aligned so
/// that an entry never straddles two cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(super) struct Keyed {
    group: u32,
    index: u32,
    key: (u32, u32),
}

impl First for Keyed {
    const UNSET: Self = Keyed {
        group: u32::MAX,
        index: 0,
        key: (NONE, NONE),
    };
    #[inline(always)]
    fn new(group: u32, index: u32, key: (u32, u32)) -> Self {
        Keyed { group, index, key }
    }
    #[inline(always)]
    fn group(self) -> u32 {
        self.group
    }
    #[inline(always)]
    fn hit(self, group: u32, key: (u32, u32)) -> Option<u32> {
        (self.group == group && self.key == key).then_some(self.index)
    }
}

/// An output vertex that is not the first made from its VRTS vertex.
struct Other {
    group: u32,
    key: (u32, u32),
    index: u32,
    next: u32,
}

impl<F: First> Welder<'_, F> {
    /// The output vertex of corner (vertex, UV, normal), [`NONE`] for a
    /// UV or normal the corner lacks.
    #[inline(always)]
    fn index(&mut self, b: &mut MeshBuilder, gi: u32, (vertex, uv, nrm): (u32, u32, u32)) -> u32 {
        let first = self.first[vertex as usize];
        if let Some(i) = first.hit(gi, (uv, nrm)) {
            return i;
        }
        let fg = first.group();
        self.index_new(b, gi, vertex, uv, nrm, fg)
    }

    /// [`Welder::index`] past its common case (the corner's vertex seen
    /// before in this group with this UV and normal): out of line, so the
    /// welding loops keep their values in registers. Its own common case,
    /// a vertex's first output vertex with room in `made`, uses no more
    /// registers than its arguments (nothing saved and restored around
    /// it); the rest is [`Welder::index_other`].
    ///
    /// The corner's indices come as separate values: a tuple was passed
    /// through the stack, stored on every corner of the common case too.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn index_new(
        &mut self,
        b: &mut MeshBuilder,
        gi: u32,
        vertex: u32,
        uv: u32,
        nrm: u32,
        fg: u32,
    ) -> u32 {
        if fg == u32::MAX && b.made.len() < b.made.capacity() {
            let i = b.made.len() as u32;
            b.made.push((vertex, uv, nrm));
            b.has_uv |= uv != NONE;
            self.first[vertex as usize] = F::new(gi, i, (uv, nrm));
            return i;
        }
        self.index_other(b, gi, vertex, (uv, nrm), fg)
    }

    /// [`Welder::index_new`] for a vertex seen before in another group or
    /// with another UV or normal (its other output vertices walked), or
    /// when `made` must grow. The key (UV, normal) as a pair, passed in
    /// two registers as the values are.
    #[inline(never)]
    fn index_other(
        &mut self,
        b: &mut MeshBuilder,
        gi: u32,
        vertex: u32,
        (uv, nrm): (u32, u32),
        fg: u32,
    ) -> u32 {
        let m = self.m;
        if fg != u32::MAX {
            if self.chain.is_empty() {
                self.chain = vec![NONE; m.vertices.len()];
                // Doubled from there if need be (a large model's seams).
                self.others.reserve(SMALL_MESH);
            }
            let mut o = self.chain[vertex as usize];
            while o != NONE {
                let other = &self.others[o as usize];
                if other.group == gi && other.key == (uv, nrm) {
                    return other.index;
                }
                o = other.next;
            }
        }
        let i = b.made.len() as u32;
        b.made.push((vertex, uv, nrm));
        b.has_uv |= uv != NONE;
        if fg == u32::MAX {
            self.first[vertex as usize] = F::new(gi, i, (uv, nrm));
        } else {
            self.others.push(Other {
                group: gi,
                key: (uv, nrm),
                index: i,
                next: self.chain[vertex as usize],
            });
            self.chain[vertex as usize] = self.others.len() as u32 - 1;
        }
        i
    }

    /// Fills every output vertex's attributes once the corners are
    /// numbered: each list made in one pass over the group's corners in
    /// output order (written in order, never zeroed first).
    fn fill(&self, groups: &mut [(Option<u32>, MeshBuilder)]) {
        let m = self.m;
        for (_, b) in groups.iter_mut() {
            let made = &b.made;
            b.positions = made
                .iter()
                .map(|&(v, _, _)| vec3(&m.vertices[v as usize]))
                .collect();
            if self.generated.is_empty() {
                // Every corner stores its normal: all of them made unit
                // length four at a time, the same bits as one at a time.
                b.normals = made
                    .iter()
                    .map(|&(_, _, n)| vec3(&m.vertices[n as usize]))
                    .collect();
                super::vectors::normalize_each(&mut b.normals, Vec3::Y);
            } else {
                b.normals = made
                    .iter()
                    .map(|&(v, _, n)| {
                        if n != NONE {
                            vec3(&m.vertices[n as usize]).normalize_or(Vec3::Y)
                        } else {
                            self.generated[v as usize]
                        }
                    })
                    .collect();
            }
            b.uvs = made
                .iter()
                .map(|&(_, t, _)| {
                    if t != NONE {
                        let [u, v] = m.tmap[t as usize];
                        Vec2::new(u, 1.0 - v)
                    } else {
                        Vec2::ZERO
                    }
                })
                .collect();
            if b.colored {
                b.colors = made
                    .iter()
                    .map(|&(v, _, _)| rgba(m.vertices[v as usize].color))
                    .collect();
            }
            if self.skinned {
                // Each vertex's skin looked up once, for both lists.
                (b.joints, b.weights) = made
                    .iter()
                    .map(|&(v, _, _)| {
                        self.skin_table
                            .get(m.vertices[v as usize].skin as usize)
                            .copied()
                            .unwrap_or(([0; 4], [0; 4]))
                    })
                    .unzip();
            }
        }
    }
}

/// A group's material and the mesh it builds.
type Group = (Option<u32>, MeshBuilder);

impl<'a, F: First> Welder<'a, F> {
    pub(super) fn new(
        m: &'a M3d,
        generated: &'a [Vec3],
        skin_table: &'a [([u16; 4], [u16; 4])],
        skinned: bool,
    ) -> Self {
        Welder {
            m,
            generated,
            skin_table,
            skinned,
            first: vec![F::UNSET; m.vertices.len()],
            chain: Vec::new(),
            others: Vec::new(),
        }
    }

    /// Numbers every face corner's output vertex into its material's group
    /// (`group_of`), then fills the vertices' attributes.
    pub(super) fn weld(
        mut self,
        normal_col: Option<&[u32]>,
        groups: &mut Vec<Group>,
        group_of: &mut impl FnMut(Option<u32>, &mut Vec<Group>) -> usize,
    ) {
        let faces = &self.m.faces;
        let triangles = faces.all_triangles();
        let (vertex_col, uv_col) = (faces.vertices(), faces.uv_column());
        let corner = |c: usize| {
            (
                vertex_col[c],
                uv_col.map_or(NONE, |u| u[c]),
                normal_col.map_or(NONE, |n| n[c]),
            )
        };
        if triangles {
            for (run, material) in faces.material_runs() {
                let gi = group_of(material, groups);
                let b = &mut groups[gi].1;
                // By value in the closures below (captured by reference, it
                // was loaded again for every corner).
                let g = gi as u32;
                let corners = 3 * run.start..3 * run.end;
                // The index list apart from the builder, so its length stays in
                // a register while vertices are made.
                let mut indices = std::mem::take(&mut b.indices);
                let vertices = &vertex_col[corners.clone()];
                match (uv_col, normal_col) {
                    (None, None) => {
                        indices.extend(vertices.iter().map(|&v| self.index(b, g, (v, NONE, NONE))))
                    }
                    (Some(uv), None) => indices.extend(
                        vertices
                            .iter()
                            .zip(&uv[corners])
                            .map(|(&v, &t)| self.index(b, g, (v, t, NONE))),
                    ),
                    (Some(uv), Some(n)) => indices.extend(
                        vertices
                            .iter()
                            .zip(&uv[corners.clone()])
                            .zip(&n[corners])
                            .map(|((&v, &t), &n)| self.index(b, g, (v, t, n))),
                    ),
                    (None, Some(n)) => indices.extend(
                        vertices
                            .iter()
                            .zip(&n[corners])
                            .map(|(&v, &n)| self.index(b, g, (v, NONE, n))),
                    ),
                }
                b.indices = indices;
            }
        } else {
            let mut last: Option<(Option<u32>, usize)> = None;
            for f in faces.iter() {
                let cs = f.corners();
                if cs.len() < 3 {
                    continue;
                }
                let gi = match last {
                    Some((mat, g)) if mat == f.material => g,
                    _ => group_of(f.material, groups),
                };
                last = Some((f.material, gi));
                let b = &mut groups[gi].1;
                // Fan triangulation (the polygons are convex in practice), each
                // triangle written as soon as its corners are known.
                let i0 = self.index(b, gi as u32, corner(cs.start));
                let mut prev = self.index(b, gi as u32, corner(cs.start + 1));
                for c in cs.start + 2..cs.end {
                    let i = self.index(b, gi as u32, corner(c));
                    b.indices.extend_from_slice(&[i0, prev, i]);
                    prev = i;
                }
            }
        }
        self.fill(groups);
    }
}
