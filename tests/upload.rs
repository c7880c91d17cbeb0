//! What an upload writes: vertex data straight into mapped GPU memory
//! (`gpu::upload::buffer_from_fn`, which every static mesh stream and UV
//! stream goes through), read back from the device, and the wireframe's
//! edges (`gpu::upload::mesh_edges`), each compared with what the test
//! works out itself.

mod common;
use facet::cli::bench::Rng;
use facet::gpu::capture;
use facet::gpu::upload::{buffer_from_fn, mesh_edges};
use facet::scene::{Mesh, Primitive};
use glam::Vec3;
use std::collections::BTreeSet;

const READABLE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX.union(wgpu::BufferUsages::COPY_SRC);

#[test]
fn every_element_lands_at_its_index_across_batches() {
    let gpu = common::gpu();
    // 5,000 twelve-byte elements: more than two of the writer's batches,
    // the last one partial.
    let n = 5000u32;
    let value = |i: u32| [i, i.wrapping_mul(2_654_435_761), 0xDEAD_0000 ^ i];
    let buffer = buffer_from_fn(&gpu.device, "test", READABLE, n as usize, |i| {
        value(i as u32)
    });
    assert_eq!(buffer.size(), 60_000);
    let bytes = capture::read_buffer(&gpu, &buffer, buffer.size());
    for i in 0..n {
        let at = i as usize * 12;
        let got: Vec<u32> = bytes[at..at + 12]
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(got, value(i), "element {i}");
    }
}

#[test]
fn a_size_off_the_copy_alignment_is_padded_and_an_empty_buffer_has_16_bytes() {
    let gpu = common::gpu();
    // Three u16s are 6 bytes; wgpu sizes buffers in multiples of 4.
    let shorts = [0x0201u16, 0x0403, 0x0605];
    let buffer = buffer_from_fn(&gpu.device, "test", READABLE, 3, |i| shorts[i]);
    assert_eq!(buffer.size(), 8);
    let bytes = capture::read_buffer(&gpu, &buffer, 8);
    assert_eq!(&bytes[..6], &[1, 2, 3, 4, 5, 6]);

    let empty = buffer_from_fn(&gpu.device, "test", READABLE, 0, |_| 0u32);
    assert_eq!(empty.size(), 16);
}

fn mesh(vertices: usize, indices: Vec<u32>) -> Mesh {
    Mesh {
        positions: vec![Vec3::ZERO; vertices],
        indices,
        ..Mesh::default()
    }
}

/// `mesh_edges`' pairs, checked to be (lower, higher), in order of the
/// lower vertex, then the higher, each once.
fn edge_list(m: &Mesh) -> Vec<(u32, u32)> {
    let flat = mesh_edges(m);
    assert_eq!(flat.len() % 2, 0);
    let pairs: Vec<(u32, u32)> = flat.chunks_exact(2).map(|e| (e[0], e[1])).collect();
    assert!(pairs.iter().all(|&(a, b)| a <= b), "{pairs:?}");
    assert!(pairs.windows(2).all(|w| w[0] < w[1]), "{pairs:?}");
    pairs
}

#[test]
fn a_quads_shared_diagonal_is_one_edge() {
    // 0 -- 1
    // | \  |     two triangles sharing 1-2
    // 2 -- 3
    let quad = mesh(4, vec![0, 1, 2, 2, 1, 3]);
    assert_eq!(edge_list(&quad), [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]);
    // An index past the vertices leaves out the edges that name it; a
    // degenerate triangle gives its repeated corner as a zero-length edge.
    assert_eq!(edge_list(&mesh(3, vec![0, 1, 7])), [(0, 1)]);
    assert_eq!(edge_list(&mesh(3, vec![2, 2, 0])), [(0, 2), (2, 2)]);
    // Lines and points have no triangle edges.
    let lines = Mesh {
        primitive: Primitive::Lines,
        ..mesh(4, vec![0, 1, 2, 3])
    };
    assert!(mesh_edges(&lines).is_empty());
}

#[test]
fn every_edge_of_a_random_mesh_once() {
    // 30,000 triangles over 2,000 vertices: vertices with many neighbours,
    // edges met several times in both directions.
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let indices: Vec<u32> = (0..90_000)
        .map(|_| (rng.next_u64() % 2_000) as u32)
        .collect();
    let mut want = BTreeSet::new();
    for t in indices.chunks_exact(3) {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            want.insert((a.min(b), a.max(b)));
        }
    }
    let got = edge_list(&mesh(2_000, indices));
    assert_eq!(got, want.into_iter().collect::<Vec<_>>());
}
