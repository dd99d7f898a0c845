//! `ScanLineRegions`: vertical scan lines over the classified image, cut into runs of one
//! class (B-Human's `ColorScanLineRegions`). Line and field-boundary detection build on these
//! runs; the ball search does not need them.
//!
//! Runs shorter than [`MIN_RUN`] pixels are merged into the run before them, so that sensor
//! noise does not split a field run into pieces.

use crate::color_classes::ColorClasses;
use crate::field_color::PixelClass;

/// Distance between scan lines in half-resolution pixels (16 camera pixels).
pub const SCAN_LINE_SPACING: usize = 8;
/// Shorter runs are noise.
pub const MIN_RUN: usize = 2;

/// A run of one class on a scan line, rows `start..end` in half-resolution pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: usize,
    pub end: usize,
    pub class: PixelClass,
}

/// One vertical scan line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanLine {
    /// Column in half-resolution pixels.
    pub x: usize,
    pub regions: Vec<Region>,
}

impl ScanLine {
    /// The first row of the topmost field run at least `min_length` long: where the field
    /// begins on this line, if it does.
    pub fn field_start(&self, min_length: usize) -> Option<usize> {
        self.regions
            .iter()
            .find(|region| {
                region.class == PixelClass::Field && region.end - region.start >= min_length
            })
            .map(|region| region.start)
    }
}

/// All scan lines of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanLineRegions {
    pub lines: Vec<ScanLine>,
}

impl ScanLineRegions {
    pub fn segment(classes: &ColorClasses) -> Self {
        let lines = (SCAN_LINE_SPACING / 2..classes.width)
            .step_by(SCAN_LINE_SPACING)
            .map(|x| ScanLine {
                x,
                regions: segment_column(classes, x),
            })
            .collect();
        Self { lines }
    }
}

fn segment_column(classes: &ColorClasses, x: usize) -> Vec<Region> {
    let mut regions: Vec<Region> = Vec::new();
    let mut start = 0;
    for y in 1..=classes.height {
        let ends = y == classes.height || classes.get(x, y) != classes.get(x, start);
        if !ends {
            continue;
        }
        let class = classes.get(x, start);
        match regions.last_mut() {
            Some(last) if last.class == class => last.end = y,
            Some(last) if y - start < MIN_RUN => last.end = y,
            _ => regions.push(Region {
                start,
                end: y,
                class,
            }),
        }
        start = y;
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(classes: &[PixelClass]) -> ColorClasses {
        ColorClasses {
            width: 1,
            height: classes.len(),
            classes: classes.to_vec(),
        }
    }

    #[test]
    fn runs_are_cut_at_class_changes_and_noise_is_merged() {
        use PixelClass::*;
        let classes = column(&[
            Other, Other, Other, Field, Field, White, Field, Field, Field, White, White,
        ]);
        let regions = segment_column(&classes, 0);
        assert_eq!(
            regions,
            vec![
                Region {
                    start: 0,
                    end: 3,
                    class: Other
                },
                Region {
                    start: 3,
                    end: 9,
                    class: Field
                },
                Region {
                    start: 9,
                    end: 11,
                    class: White
                },
            ]
        );
        let line = ScanLine { x: 0, regions };
        assert_eq!(line.field_start(4), Some(3));
        assert_eq!(line.field_start(7), None);
    }
}
