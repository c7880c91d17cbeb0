//! Box-filtered reduction of texels that arrive row by row: each output
//! texel is the mean of the `f` x `f` block of input texels it covers (blocks
//! on the right and bottom edges average the texels they have). Memory is one
//! row of sums and the output, never the full-size image, so a decoder that
//! streams its rows (PTF's LZ4 frame, PNG) can produce a texture smaller than
//! the one the file declares without ever holding it.

/// The smallest power-of-two factor that makes `width` x `height` texels of
/// `bytes_per_texel` fit both `budget` bytes and `max_side` texels a side, or
/// `None` when even one texel does not fit the budget.
pub fn factor_to_fit(
    width: u32,
    height: u32,
    bytes_per_texel: usize,
    budget: usize,
    max_side: u32,
) -> Option<u32> {
    let size = |f: u64| (width as u64).div_ceil(f) * (height as u64).div_ceil(f);
    let mut f = 1u64;
    while size(f) * bytes_per_texel as u64 > budget as u64
        || (width as u64).div_ceil(f) > max_side as u64
        || (height as u64).div_ceil(f) > max_side as u64
    {
        if size(f) == 1 {
            return None;
        }
        f *= 2;
    }
    u32::try_from(f).ok()
}

/// Accumulates rows of `channels`-byte texels into the means of `f` x `f`
/// blocks.
pub struct BoxReducer {
    width: usize,
    height: usize,
    channels: usize,
    f: usize,
    sums: Vec<u64>,
    rows_in_block: usize,
    rows_seen: usize,
    out: Vec<u8>,
}

impl BoxReducer {
    /// A reducer for `width` x `height` texels by `f` (at least 1). The output is reserved
    /// up to `reserve_at_most` bytes and grows as rows arrive, so a hostile
    /// source that ends early never made it reserve the full size.
    pub fn new(
        width: usize,
        height: usize,
        channels: usize,
        f: usize,
        reserve_at_most: usize,
    ) -> Self {
        let f = f.max(1);
        let (ow, oh) = (width.div_ceil(f), height.div_ceil(f));
        BoxReducer {
            width,
            height,
            channels,
            f,
            sums: vec![0; ow * channels],
            rows_in_block: 0,
            rows_seen: 0,
            out: Vec::with_capacity((ow * oh * channels).min(reserve_at_most)),
        }
    }

    /// The reduced size.
    pub fn output_size(&self) -> (usize, usize) {
        (self.width.div_ceil(self.f), self.height.div_ceil(self.f))
    }

    /// Adds the next row (`width · channels` bytes; rows past `height` are
    /// ignored).
    pub fn push_row(&mut self, row: &[u8]) {
        if self.rows_seen == self.height {
            return;
        }
        let (c, f) = (self.channels, self.f);
        for (x, texel) in row.chunks_exact(c).take(self.width).enumerate() {
            let o = (x / f) * c;
            for (s, &v) in self.sums[o..o + c].iter_mut().zip(texel) {
                *s += v as u64;
            }
        }
        self.rows_in_block += 1;
        self.rows_seen += 1;
        if self.rows_in_block == f || self.rows_seen == self.height {
            let ow = self.width.div_ceil(f);
            for ox in 0..ow {
                let cols = f.min(self.width - ox * f) as u64;
                let n = cols * self.rows_in_block as u64;
                for s in &mut self.sums[ox * c..(ox + 1) * c] {
                    self.out.push((*s / n) as u8);
                    *s = 0;
                }
            }
            self.rows_in_block = 0;
        }
    }

    /// Rows added so far.
    pub fn rows_seen(&self) -> usize {
        self.rows_seen
    }

    /// The reduced texels, once every row has been added.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}
