//! `EcImage`: the frame at half resolution in three planes (luma, Cb, Cr), the input of the
//! coarse stages (field colour, scan lines, ball spots). B-Human's `ECImage` keeps grey and
//! colour planes the same way.
//!
//! Each pixel is one 2×2 block of the camera image: the mean of its four lumas and of the two
//! chroma pairs the block holds. Halving suppresses sensor noise and quarters the work.

use cortex_image::YuyvImage;

/// Luma, Cb and Cr planes at half the camera's resolution, row-major.
#[derive(Clone)]
pub struct EcImage {
    pub width: usize,
    pub height: usize,
    pub luma: Vec<u8>,
    pub cb: Vec<u8>,
    pub cr: Vec<u8>,
}

impl std::fmt::Debug for EcImage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "EcImage({}x{})", self.width, self.height)
    }
}

impl EcImage {
    /// Halves a YUYV frame.
    pub fn from_yuyv(image: &YuyvImage) -> Self {
        let width = image.width() / 2;
        let height = image.height() / 2;
        let (mut luma, mut cb, mut cr) = (
            vec![0; width * height],
            vec![0; width * height],
            vec![0; width * height],
        );
        // Row by row, two pixels at a time in the lanes of a u64 (the four lumas and the two
        // chroma pairs of a block pair added in 16-bit lanes at once; no lane overflows).
        let rows = luma
            .chunks_exact_mut(width.max(1))
            .zip(cb.chunks_exact_mut(width.max(1)))
            .zip(cr.chunks_exact_mut(width.max(1)));
        for (y, ((luma_row, cb_row), cr_row)) in rows.enumerate() {
            let (upper, lower) = (image.row(2 * y), image.row(2 * y + 1));
            let pairs = upper
                .chunks_exact(8)
                .zip(lower.chunks_exact(8))
                .zip(luma_row.chunks_exact_mut(2))
                .zip(cb_row.chunks_exact_mut(2).zip(cr_row.chunks_exact_mut(2)));
            for (((top, bottom), luma), (cb, cr)) in pairs {
                let [luma_pair, chroma] = block_pair(top, bottom);
                luma.copy_from_slice(&[luma_pair[0], luma_pair[4]]);
                cb.copy_from_slice(&[chroma[0], chroma[4]]);
                cr.copy_from_slice(&[chroma[2], chroma[6]]);
            }
            // An odd width's last block.
            if width % 2 == 1 {
                let (top, bottom) = (&upper[4 * (width - 1)..], &lower[4 * (width - 1)..]);
                let sum_luma = u16::from(top[0])
                    + u16::from(top[2])
                    + u16::from(bottom[0])
                    + u16::from(bottom[2]);
                luma_row[width - 1] = ((sum_luma + 2) / 4) as u8;
                cb_row[width - 1] = (u16::from(top[1]) + u16::from(bottom[1])).div_ceil(2) as u8;
                cr_row[width - 1] = (u16::from(top[3]) + u16::from(bottom[3])).div_ceil(2) as u8;
            }
        }
        Self {
            width,
            height,
            luma,
            cb,
            cr,
        }
    }

    /// (Y, Cb, Cr) at (x, y). Panics outside the image.
    pub fn get(&self, x: usize, y: usize) -> (u8, u8, u8) {
        let index = y * self.width + x;
        (self.luma[index], self.cb[index], self.cr[index])
    }
}

/// Two blocks of 2 × 2 from the 8 bytes of two YUYV pixel pairs in each of two rows: the
/// rounded mean luma of each block in bytes 0 and 4 of the first array, the rounded-up mean
/// (Cb, Cr) of each in bytes (0, 2) and (4, 6) of the second.
fn block_pair(top: &[u8], bottom: &[u8]) -> [[u8; 8]; 2] {
    const BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    const WORDS: u64 = 0x0000_ffff_0000_ffff;
    let word = |bytes: &[u8]| {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[..8]);
        u64::from_le_bytes(word)
    };
    let (top, bottom) = (word(top), word(bottom));
    // Lumas: 16-bit lanes Y0 Y1 Y2 Y3 of both rows added, then the lanes of a block.
    let lumas = (top & BYTES) + (bottom & BYTES);
    let blocks = (lumas & WORDS) + ((lumas >> 16) & WORDS);
    let luma = ((blocks + 0x0000_0002_0000_0002) >> 2) & 0x0000_00ff_0000_00ff;
    // Chromas: 16-bit lanes Cb0 Cr0 Cb1 Cr1 of both rows added, halved rounding up.
    let chromas = ((top >> 8) & BYTES) + ((bottom >> 8) & BYTES);
    let chroma = ((chromas + 0x0001_0001_0001_0001) >> 1) & BYTES;
    [luma.to_le_bytes(), chroma.to_le_bytes()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use cortex_image::{ColorRange, RgbImage};

    #[test]
    fn every_block_is_the_rounded_mean_of_its_bytes() {
        // Every byte value in every position of a block (a pseudo-random frame).
        let data: Vec<u8> = (0..640 * 480 * 2u32)
            .map(|index| (index.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let image = YuyvImage::new(640, 480, data).unwrap();
        let halved = EcImage::from_yuyv(&image);
        for y in 0..240 {
            for x in 0..320 {
                let (top, bottom) = (&image.row(2 * y)[4 * x..], &image.row(2 * y + 1)[4 * x..]);
                let sum = |bytes: [u8; 4]| bytes.into_iter().map(u32::from).sum::<u32>();
                let luma = (sum([top[0], top[2], bottom[0], bottom[2]]) + 2) / 4;
                let cb = (u32::from(top[1]) + u32::from(bottom[1])).div_ceil(2);
                let cr = (u32::from(top[3]) + u32::from(bottom[3])).div_ceil(2);
                assert_eq!(
                    halved.get(x, y),
                    (luma as u8, cb as u8, cr as u8),
                    "({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn blocks_average_to_half_resolution() {
        let mut rgb = RgbImage::filled(320, 240, [0, 0, 0]);
        for (x, y) in [(2, 2), (3, 2), (2, 3), (3, 3)] {
            rgb.set(x, y, [255, 255, 255]);
        }
        rgb.set(4, 2, [255, 255, 255]);
        let image = EcImage::from_yuyv(&YuyvImage::from_rgb(&rgb, ColorRange::Full).unwrap());
        assert_eq!((image.width, image.height), (160, 120));
        assert_eq!(image.get(1, 1), (255, 128, 128));
        // One white pixel of four.
        assert_eq!(image.get(2, 1).0, 64);
        assert_eq!(image.get(0, 0), (0, 128, 128));
    }
}
