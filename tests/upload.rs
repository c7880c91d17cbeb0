//! Vertex data written straight into mapped GPU memory
//! (`gpu::upload::buffer_from_fn`, which every static mesh stream and UV
//! stream goes through), read back from the device and compared with the
//! values each test computes itself.

mod common;
use facet::gpu::capture;
use facet::gpu::upload::buffer_from_fn;

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
