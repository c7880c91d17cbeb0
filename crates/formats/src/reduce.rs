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
    /// Texels of the current row added so far.
    x: usize,
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
            x: 0,
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
        self.push_texels(row);
        self.end_row();
    }

    /// Adds `texels` (`channels` bytes each) to the current row after the
    /// ones added before, so that a decoder whose rows come out in another
    /// layout can convert them a piece at a time instead of into a whole
    /// row; texels past `width` are ignored. [`end_row`](Self::end_row)
    /// ends the row.
    pub fn push_texels(&mut self, texels: &[u8]) {
        if self.rows_seen == self.height {
            return;
        }
        let (c, f, x0) = (self.channels, self.f, self.x);
        let n = (texels.len() / c).min(self.width - x0);
        for (i, texel) in texels.chunks_exact(c).take(n).enumerate() {
            let o = ((x0 + i) / f) * c;
            for (s, &v) in self.sums[o..o + c].iter_mut().zip(texel) {
                *s += v as u64;
            }
        }
        self.x += n;
    }

    /// Ends the current row (rows past `height` are ignored).
    pub fn end_row(&mut self) {
        if self.rows_seen == self.height {
            return;
        }
        let (c, f) = (self.channels, self.f);
        self.x = 0;
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

#[cfg(test)]
mod tests {
    use super::BoxReducer;

    #[test]
    fn texels_added_in_pieces_average_as_whole_rows() {
        // 5 x 2 one-channel texels by 2: rows 0..5 and 10..15 (values 0, 10,
        // ..., 40 and 100, 110, ..., 140), given in pieces of 1, 3 and 2
        // texels (the last one past the width, ignored). Blocks: (0 + 10 +
        // 100 + 110) / 4 = 55, (20 + 30 + 120 + 130) / 4 = 75, and the edge
        // column alone (40 + 140) / 2 = 90.
        let mut r = BoxReducer::new(5, 2, 1, 2, usize::MAX);
        for row in [[0u8, 10, 20, 30, 40, 99], [100, 110, 120, 130, 140, 99]] {
            r.push_texels(&row[..1]);
            r.push_texels(&row[1..4]);
            r.push_texels(&row[4..]);
            r.end_row();
        }
        assert_eq!(r.rows_seen(), 2);
        assert_eq!(r.output_size(), (3, 1));
        assert_eq!(r.finish(), [55, 75, 90]);
        // A third row past the height is ignored, in pieces or whole.
        let mut r = BoxReducer::new(1, 1, 2, 1, usize::MAX);
        r.push_row(&[7, 8]);
        r.push_texels(&[1, 2]);
        r.end_row();
        r.push_row(&[3, 4]);
        assert_eq!((r.rows_seen(), r.finish()), (1, vec![7, 8]));
    }
}
