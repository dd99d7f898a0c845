//! `BallPatch`: what the ball network sees of a candidate circle — a square window around it,
//! resampled to a fixed grid whose cells are measured in the circle's radius, with values that
//! a colour cast or the exposure do not change.
//!
//! ```text
//!   ┌────────────────┐  window: ±1.6 r around the candidate's centre, 16 × 16 cells of 0.2 r;
//!   │    ┌──────┐    │  each cell averages up to 3 × 3 pixels. Per cell, four channels:
//!   │    │ ball │    │   0  luma / the window's bright level (its 90th percentile), − 0.5
//!   │    │  ·   │    │   1  saturation (distance from the frame's white point) / bright level
//!   │    └──────┘    │   2  share of field colour (the frame's `FieldColor`)
//!   └────────────────┘   3  share outside the image (a ball cut by the image border)
//! ```
//!
//! The same function turns the training scenes (`perception/training/`) and the camera frames
//! into patches, through a pixel accessor, so the network is trained on exactly what it is
//! shown at run time.

use crate::color_classes::ChromaCache;
use crate::field_color::FieldColor;

/// Cells per side of the window.
pub const PATCH_SIDE: usize = 16;
/// Values per cell.
pub const PATCH_CHANNELS: usize = 4;
/// Values per patch.
pub const PATCH_LEN: usize = PATCH_SIDE * PATCH_SIDE * PATCH_CHANNELS;
/// Half the window's side, in radii of the candidate circle: a candidate off the ball's centre
/// by a third of its radius and a third too small still has the whole ball in its window.
pub const WINDOW_HALF_RADII: f32 = 1.6;
/// Most pixels averaged per cell and axis.
const MAX_SAMPLES_PER_AXIS: usize = 3;

/// A candidate's patch, cell-major (row by row, the channels of one cell together).
#[derive(Debug, Clone, PartialEq)]
pub struct BallPatch {
    pub values: Vec<f32>,
}

impl BallPatch {
    /// The patch of the circle (x, y, radius) in pixels (pixel centres at integers). `pixel`
    /// returns (Y, Cb, Cr) of a pixel, None outside the image.
    pub fn extract(
        mut pixel: impl FnMut(i32, i32) -> Option<(u8, u8, u8)>,
        field_color: &FieldColor,
        cache: &mut ChromaCache,
        (x, y, radius): (f32, f32, f32),
    ) -> Self {
        let half = WINDOW_HALF_RADII * radius;
        let cell = 2.0 * half / PATCH_SIDE as f32;
        let per_axis = (cell.round() as usize).clamp(1, MAX_SAMPLES_PER_AXIS);
        let sub_step = cell / per_axis as f32;
        // Per cell: luma sum, saturation sum, field count, inside count, outside count.
        let mut sums = [[0.0f32; 5]; PATCH_SIDE * PATCH_SIDE];
        let mut lumas: Vec<f32> = Vec::with_capacity(PATCH_SIDE * PATCH_SIDE * per_axis * per_axis);
        for row in 0..PATCH_SIDE {
            for column in 0..PATCH_SIDE {
                let sum = &mut sums[row * PATCH_SIDE + column];
                for sub_row in 0..per_axis {
                    for sub_column in 0..per_axis {
                        let sample_x = x - half
                            + (column * per_axis + sub_column) as f32 * sub_step
                            + 0.5 * sub_step;
                        let sample_y = y - half
                            + (row * per_axis + sub_row) as f32 * sub_step
                            + 0.5 * sub_step;
                        match pixel(sample_x.round() as i32, sample_y.round() as i32) {
                            Some((luma, cb, cr)) => {
                                let (saturation, field) = cache.get(field_color, luma, cb, cr);
                                sum[0] += f32::from(luma);
                                sum[1] += saturation;
                                sum[2] += if field { 1.0 } else { 0.0 };
                                sum[3] += 1.0;
                                lumas.push(f32::from(luma));
                            }
                            None => sum[4] += 1.0,
                        }
                    }
                }
            }
        }
        let bright = if lumas.is_empty() {
            1.0
        } else {
            let index = (lumas.len() * 9 / 10).min(lumas.len() - 1);
            let (_, value, _) = lumas.select_nth_unstable_by(index, f32::total_cmp);
            value.max(16.0)
        };
        let samples = (per_axis * per_axis) as f32;
        let mut values = Vec::with_capacity(PATCH_LEN);
        for sum in &sums {
            let inside = sum[3];
            if inside > 0.0 {
                values.push((sum[0] / inside / bright).min(1.5) - 0.5);
                values.push((sum[1] / inside / bright).min(1.0));
                values.push(sum[2] / inside);
            } else {
                values.extend_from_slice(&[0.0, 0.0, 0.0]);
            }
            values.push(sum[4] / samples);
        }
        Self { values }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_color() -> FieldColor {
        FieldColor {
            bright_luma: 200.0,
            white_point: (128.0, 128.0),
            field_hue_rad: Some(-2.4),
        }
    }

    #[test]
    fn a_colour_cast_and_the_exposure_leave_the_patch_nearly_unchanged() {
        // A white disc of radius 10 at (50, 50) on grey.
        let scene = |gain: f32| {
            move |x: i32, y: i32| {
                let inside = (x - 50).pow(2) + (y - 50).pow(2) <= 100;
                let luma = if inside { 220.0 } else { 90.0 } * gain;
                Some((luma as u8, 128, 128))
            }
        };
        let color = field_color();
        let mut cache = ChromaCache::default();
        let bright = BallPatch::extract(scene(1.0), &color, &mut cache, (50.0, 50.0, 10.0));
        let dim = BallPatch::extract(scene(0.5), &color, &mut cache, (50.0, 50.0, 10.0));
        let largest_difference = bright
            .values
            .iter()
            .zip(&dim.values)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(largest_difference < 0.02, "{largest_difference}");
        // The centre cell is the disc (luma 1.0 − 0.5), the corner cell the background.
        let centre = (8 * PATCH_SIDE + 8) * PATCH_CHANNELS;
        assert!((bright.values[centre] - 0.5).abs() < 0.01);
        assert!(bright.values[0] < 0.0);
    }

    #[test]
    fn the_part_outside_the_image_is_marked() {
        let color = field_color();
        let mut cache = ChromaCache::default();
        let patch = BallPatch::extract(
            |x, y| (x >= 0 && (0..60).contains(&y)).then_some((128, 128, 128)),
            &color,
            &mut cache,
            (50.0, 50.0, 10.0),
        );
        assert_eq!(patch.values.len(), PATCH_LEN);
        // The last row of cells lies at y = 50 + 1.6·10 − 1 = 65: outside.
        let last_row = (PATCH_SIDE - 1) * PATCH_SIDE * PATCH_CHANNELS;
        assert_eq!(patch.values[last_row + 3], 1.0);
        assert_eq!(patch.values[3], 0.0);
    }
}
