//! The registry of every representation of the program: the names the process table and the
//! module declarations use, with their channel capacities.

use crate::RepresentationRegistry;
use types::*;

/// All representations of the program (every type of the `types` crate).
pub fn registry() -> RepresentationRegistry {
    RepresentationRegistry::default()
        .with::<FrameInfo>()
        .with::<RobotIdentity>()
        .with::<SensorData>()
        .with::<JointRequest>()
        .with::<LedRequest>()
        .with::<MotionRequest>()
        .with::<MotionInfo>()
        .with::<OdometryData>()
        .with::<FallState>()
        .with::<GameState>()
        .with::<SoundRequest>()
        .with::<BehaviourRequest>()
        .with::<WhistleState>()
        .with::<PlayedSounds>()
        .with::<GameControllerState>()
        .with::<TeamMates>()
        .with::<TeamMessageRequest>()
        .with::<CameraImage>()
        .with::<CameraMatrix>()
        .with::<ECImage>()
        .with::<FieldColors>()
        .with::<ColorClassImage>()
        .with::<ColorScanLineRegions>()
        .with::<FieldBoundary>()
        .with::<BodyContour>()
        .with::<BallSpots>()
        .with::<BallPercept>()
        .with::<BallModel>()
        .with::<LinesPercept>()
        .with::<PenaltyMarkPercept>()
        .with::<GroundTruth>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_value_fits_its_channel() {
        let registry = registry();
        let mut blackboard = crate::Blackboard::new();
        let mut bytes = Vec::new();
        for name in registry.names() {
            let info = registry.get(name).unwrap();
            info.insert_default(&mut blackboard);
            info.encode_from(&blackboard, &mut bytes).unwrap();
            assert!(
                bytes.len() * 2 <= info.capacity,
                "{name}: {} bytes",
                bytes.len()
            );
            info.decode_into(&bytes, &mut blackboard).unwrap();
        }
    }
}
