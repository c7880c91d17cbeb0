//! Buffers written where the device maps them: elements made a batch at a
//! time and copied into the mapped range, never a whole list built first
//! (`wgpu::util::DeviceExt::create_buffer_init` takes a finished slice,
//! and panics where the device refuses the buffer).

use std::ops::Range;

/// A buffer of `n` elements made by `item(i)` and written into its mapped
/// memory a few thousand at a time (`create_buffer_init` takes a finished
/// slice: a list of every vertex built first, then copied, was a second
/// copy of the model's vertices in memory while it uploaded). An empty one
/// still has 16 bytes, as wgpu binds no zero-sized buffer.
pub fn buffer_from_fn<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    usage: wgpu::BufferUsages,
    n: usize,
    mut item: impl FnMut(usize) -> T,
) -> wgpu::Buffer {
    buffer_in_batches(device, label, usage, n, |range, batch| {
        batch.extend(range.map(&mut item))
    })
}

/// As [`buffer_from_fn`], with `fill(range, batch)` appending the elements
/// of `range` to `batch` (a slice's elements converted without a bounds
/// check each, which lets the conversion vectorise).
pub fn buffer_in_batches<T: bytemuck::Pod>(
    device: &wgpu::Device,
    label: &str,
    usage: wgpu::BufferUsages,
    n: usize,
    mut fill: impl FnMut(Range<usize>, &mut Vec<T>),
) -> wgpu::Buffer {
    /// Elements made between two copies: small enough to stay in cache.
    const BATCH: usize = 2048;
    const ALIGN: u64 = wgpu::COPY_BUFFER_ALIGNMENT;
    let size = std::mem::size_of::<T>();
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        // Rounded up to whole copy units; saturating: a size past any
        // device's limit is the device's to refuse.
        size: match (n as u64).saturating_mul(size as u64) {
            0 => 16,
            bytes => bytes.saturating_add(ALIGN - 1) & !(ALIGN - 1),
        },
        usage,
        mapped_at_creation: true,
    });
    // A buffer the device could not make (out of memory, over a limit)
    // has no mapping: nothing is written, and its error goes to the error
    // scope of the upload (`GpuScene::try_new`), which then fails with it.
    if let Ok(mut mapped) = buffer.get_mapped_range_mut(..) {
        let mut batch: Vec<T> = Vec::with_capacity(n.min(BATCH));
        for start in (0..n).step_by(BATCH) {
            batch.clear();
            fill(start..(start + BATCH).min(n), &mut batch);
            let bytes: &[u8] = bytemuck::cast_slice(&batch);
            mapped
                .slice(start * size..start * size + bytes.len())
                .copy_from_slice(bytes);
        }
    }
    buffer.unmap();
    buffer
}
