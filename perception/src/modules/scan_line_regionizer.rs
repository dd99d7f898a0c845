//! `ScanLineRegionizer`: vertical scan lines through the colour classes, cut into regions of
//! one class ([`crate::scan_lines`]; B-Human's module of that name).

use crate::color_classes::ColorClasses;
use crate::scan_lines::ScanLineRegions;
use framework::Update;
use types::{ColorClassImage, ColorScanLineRegions, ProcessLocal};

/// Provides [`ColorScanLineRegions`].
#[derive(Debug)]
pub struct ScanLineRegionizer;

framework::module! {
    ScanLineRegionizer {
        inputs: ScanLineRegionizerInputs,
        requires: { color_classes: ColorClassImage },
        uses: {},
        provides: { ColorScanLineRegions },
    }
}

impl ScanLineRegionizer {
    fn new(_: framework::NoParameters) -> Self {
        ScanLineRegionizer
    }
}

impl Update<ColorScanLineRegions> for ScanLineRegionizer {
    fn update(&mut self, inputs: &ScanLineRegionizerInputs, output: &mut ColorScanLineRegions) {
        let Some(classes) = inputs.color_classes.classes.get::<ColorClasses>() else {
            *output = ColorScanLineRegions::default();
            return;
        };
        let lines = ScanLineRegions::segment(classes);
        *output = ColorScanLineRegions {
            sequence: inputs.color_classes.sequence,
            scan_lines: lines.lines.len() as u32,
            regions: lines
                .lines
                .iter()
                .map(|line| line.regions.len() as u32)
                .sum(),
            lines: ProcessLocal::new(lines),
        };
    }
}
