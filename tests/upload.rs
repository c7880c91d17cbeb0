//! What an upload writes: vertex data straight into mapped GPU memory
//! (`gpu::buffers::buffer_from_fn`, which every static mesh stream and UV
//! stream goes through), read back from the device; the wireframe's
//! edges (`gpu::upload::mesh_edges`); and the index format, 16-bit only
//! where every index fits, proven by the pixels a triangle of high indices
//! draws. Each compared with what the test works out itself.

mod common;
use facet::cli::bench::Rng;
use facet::gpu::buffers::buffer_from_fn;
use facet::gpu::upload::{index_format, mesh_edges};
use facet::gpu::{FrameInput, GpuScene, OrbitCamera, Renderer, ViewOptions, capture, frame};
use facet::scene::{Mesh, Primitive, Scene};
use glam::Vec3;
use std::collections::BTreeSet;

const READABLE: wgpu::BufferUsages = wgpu::BufferUsages::VERTEX.union(wgpu::BufferUsages::COPY_SRC);

#[test]
fn every_element_lands_at_its_index_across_batches() {
    let gpu = common::gpu_under_test();
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
    let gpu = common::gpu_under_test();
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

#[test]
fn sixteen_bit_indices_only_below_the_strip_restart_value() {
    use wgpu::IndexFormat::{Uint16, Uint32};
    assert_eq!(index_format(&[]), Uint16);
    assert_eq!(index_format(&[0, 0xFFFE, 7]), Uint16);
    // 0xFFFF restarts strips in 16-bit index buffers: kept out of lists too.
    assert_eq!(index_format(&[0, 0xFFFF, 7]), Uint32);
    assert_eq!(index_format(&[70_000, 1, 2]), Uint32);
}

/// A scene of one mesh of `vertices` vertices, all at the origin but the
/// last three: a triangle across the middle of the view. Drawn with the
/// wrong index width, its indices would name vertices at the origin and
/// draw nothing.
fn high_triangle(vertices: u32) -> Scene {
    let mut positions = vec![Vec3::ZERO; vertices as usize];
    let n = positions.len();
    positions[n - 3..].copy_from_slice(&[
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ]);
    Scene {
        meshes: vec![Mesh {
            positions,
            indices: vec![vertices - 3, vertices - 2, vertices - 1],
            ..Mesh::default()
        }],
        ..Scene::default()
    }
}

/// The centre pixel of `scene` drawn from 3 units in front, on black.
fn centre_pixel(gpu: &facet::gpu::Gpu, scene: &Scene) -> ([u8; 4], wgpu::IndexFormat) {
    let format = capture::CAPTURE_FORMAT;
    let renderer = Renderer::new(gpu, format, gpu.sample_count(format));
    let mut gs = GpuScene::new(gpu, &renderer, scene);
    let camera = OrbitCamera {
        target: Vec3::ZERO,
        distance: 3.0,
        scene_radius: 1.5,
        ..OrbitCamera::default()
    };
    let view = ViewOptions {
        grid: false,
        background: [0.0, 0.0, 0.0, 1.0],
        ..ViewOptions::default()
    };
    let input = FrameInput::at_rest(&camera, &view);
    let img = frame::render_to_image(gpu, &renderer, &mut gs, &input, 32, 32).0;
    (img.get_pixel(16, 16).0, gs.meshes[0].index_format)
}

#[test]
fn a_triangle_of_high_indices_draws_with_either_index_width() {
    let gpu = common::gpu_under_test();
    // 0xFFFE is the last vertex a 16-bit list may name; 70,000 vertices
    // need 32 bits (70,000 - 65,536 = 4,464: vertices at the origin).
    for (vertices, want) in [
        (0xFFFF, wgpu::IndexFormat::Uint16),
        (70_000, wgpu::IndexFormat::Uint32),
    ] {
        let (pixel, format) = centre_pixel(&gpu, &high_triangle(vertices));
        assert_eq!(format, want, "{vertices} vertices");
        assert_ne!(pixel, [0, 0, 0, 255], "{vertices} vertices: nothing drawn");
    }
}

#[test]
fn a_buffer_the_device_refuses_is_its_error_not_a_panic() {
    let gpu = common::gpu_under_test();
    // One element past the device's largest buffer: wgpu refuses it, and
    // the refusal comes back through the error scope as the upload's error.
    let max = gpu.device.limits().max_buffer_size;
    let n = (max / 4 + 1) as usize;
    let made = gpu.capture(|| buffer_from_fn(&gpu.device, "too big", READABLE, n, |_| 0u32));
    let e = made.expect_err("a buffer over the limit is refused");
    assert!(e.contains("too big"), "{e}");
}

#[test]
fn a_large_grids_edges_found_on_their_own_thread_are_the_grids_edges() {
    let gpu = common::gpu_under_test();
    // A grid of 250 x 220 quads, each split by a diagonal: 110,000
    // triangles (330,000 indices, enough for the upload to find the edges
    // on a second thread). Its edges: 250 along each of 221 rows, 220
    // along each of 251 columns, and one diagonal a quad.
    let (w, h) = (250u32, 220u32);
    let at = |x: u32, y: u32| y * (w + 1) + x;
    let mut indices = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x, y + 1), at(x + 1, y + 1));
            indices.extend_from_slice(&[a, b, c, c, b, d]);
        }
    }
    let grid = mesh(((w + 1) * (h + 1)) as usize, indices);
    let want = 250 * 221 + 220 * 251 + 250 * 220;
    assert_eq!(edge_list(&grid).len(), want);
    let scene = Scene {
        meshes: vec![grid],
        ..Scene::default()
    };
    let renderer = Renderer::new(&gpu, capture::CAPTURE_FORMAT, 1);
    let gs = GpuScene::new(&gpu, &renderer, &scene);
    assert_eq!(gs.meshes[0].edge_index_count as usize, 2 * want);
}
