//! `FieldBoundaryProvider`: where the field ends in the image, from the scan lines
//! ([`crate::field_boundary`]); a ball above it is not on the field.

use crate::field_boundary;
use crate::scan_lines::ScanLineRegions;
use framework::Update;
use types::{ColorScanLineRegions, FieldBoundary, ProcessLocal};

/// Provides [`FieldBoundary`].
#[derive(Debug)]
pub struct FieldBoundaryProvider;

framework::module! {
    FieldBoundaryProvider {
        inputs: FieldBoundaryProviderInputs,
        requires: { scan_lines: ColorScanLineRegions },
        uses: {},
        provides: { FieldBoundary },
    }
}

impl FieldBoundaryProvider {
    fn new(_: framework::NoParameters) -> Self {
        FieldBoundaryProvider
    }
}

impl Update<FieldBoundary> for FieldBoundaryProvider {
    fn update(&mut self, inputs: &FieldBoundaryProviderInputs, output: &mut FieldBoundary) {
        let Some(lines) = inputs.scan_lines.lines.get::<ScanLineRegions>() else {
            *output = FieldBoundary::default();
            return;
        };
        let boundary = field_boundary::FieldBoundary::from_scan_lines(lines);
        *output = FieldBoundary {
            sequence: inputs.scan_lines.sequence,
            points_px: boundary.points.iter().map(|&(x, y)| [x, y]).collect(),
            boundary: ProcessLocal::new(boundary),
        };
    }
}
