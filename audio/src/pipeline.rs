//! `WhistlePipeline`: the three stages in a row, buffer in, `WhistleState` out.

use crate::detector::{WhistleDetector, WhistleEvidence};
use crate::filter::{WhistleFilter, WhistleState};
use crate::frames::AudioFrames;
use crate::parameters::WhistleDetectorParameters;
use crate::spectrum::SpectrumStage;
use std::time::Duration;

/// spectrum → detector → filter.
#[derive(Debug)]
pub struct WhistlePipeline {
    spectrum: SpectrumStage,
    detector: WhistleDetector,
    filter: WhistleFilter,
}

impl WhistlePipeline {
    pub fn new(parameters: &WhistleDetectorParameters) -> WhistlePipeline {
        WhistlePipeline {
            spectrum: SpectrumStage::new(parameters),
            detector: WhistleDetector::new(parameters),
            filter: WhistleFilter::new(parameters),
        }
    }

    /// Consumes one buffer; calls `on_whistle` with the time of every whistle recognised in it.
    pub fn process(&mut self, frames: &AudioFrames, on_whistle: impl FnMut(Duration)) {
        self.process_with_evidence(frames, |_| {}, on_whistle);
    }

    /// Like [`WhistlePipeline::process`], and shows the evidence of every spectrum (for tuning
    /// and plots).
    pub fn process_with_evidence(
        &mut self,
        frames: &AudioFrames,
        mut on_evidence: impl FnMut(&WhistleEvidence),
        mut on_whistle: impl FnMut(Duration),
    ) {
        let detector = &mut self.detector;
        let filter = &mut self.filter;
        self.spectrum.push(frames, |spectrum| {
            let evidence = detector.judge(spectrum);
            on_evidence(&evidence);
            if let Some(time) = filter.update(&evidence) {
                on_whistle(time);
            }
        });
    }

    /// The state after the last buffer.
    pub fn state(&self) -> WhistleState {
        self.filter.state()
    }
}
