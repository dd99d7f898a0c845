//! The registry of every representation of the program: the names the process table and the
//! module declarations use, with their channel capacities.

use super::*;
use crate::framework::RepresentationRegistry;

crate::representations!(
    FrameInfo,
    RobotIdentity,
    SensorData,
    JointRequest,
    LedRequest,
    MotionRequest,
    MotionInfo,
    OdometryData,
    FallState,
    GameState,
    SoundRequest,
    BehaviourRequest,
);

/// All representations of `procs`.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_value_fits_its_channel() {
        let registry = registry();
        let mut blackboard = crate::framework::Blackboard::new();
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
