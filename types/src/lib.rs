//! The representations of Cortex: the named results that modules provide and processes share,
//! and the [`Representation`] trait that names them. Plain data only: no module, no framework,
//! no I/O (the blackboard and the channels that move these values are in `framework`).
//!
//! ```
//! use types::{MotionRequest, Representation};
//! // The name the process table, module declarations, channels and `cortex get` use.
//! assert_eq!(MotionRequest::NAME, "MotionRequest");
//! ```
//!
//! One file per topic. Every representation is a plain type deriving `Debug, Clone, Default,
//! PartialEq, Serialize, Deserialize`; structs carry `#[serde(default)]` so that bytes written
//! before a field was added still decode (channels and logs use `rmp-serde` named maps).
//! Geometry uses nalgebra vectors whose frame each field documents; units are in field names.
//!
//! | file | representations |
//! |---|---|
//! | `frame.rs` | [`FrameInfo`] |
//! | `joints.rs` | [`JointId`], [`Joints`] (LoLA's joint order) |
//! | `sensing.rs` | [`SensorData`], [`RobotIdentity`] |
//! | `motion.rs` | [`JointRequest`], [`MotionRequest`], [`MotionInfo`], [`OdometryData`], [`FallState`] |
//! | `leds.rs` | [`LedRequest`] |
//! | `game.rs` | [`GameState`] |
//! | `sound.rs` | [`SoundRequest`], [`PlayedSounds`] |
//! | `behaviour.rs` | [`BehaviourRequest`] |
//! | `whistle.rs` | [`WhistleState`] |
//! | `ground_truth.rs` | [`GroundTruth`] (written only by the simulator) |
//! | `network.rs` | [`GameControllerState`], [`TeamMates`], [`TeamMessageRequest`] |
//! | `field_features.rs` | [`LinesPercept`], [`PenaltyMarkPercept`] |
//! | `perception.rs` | [`CameraImage`], [`CameraMatrix`], [`ECImage`], [`FieldColors`], [`ColorClassImage`], [`ColorScanLineRegions`], [`FieldBoundary`], [`BodyContour`], [`BallSpots`], [`BallPercept`], [`BallModel`] |

pub mod behaviour;
pub mod field_features;
pub mod frame;
pub mod game;
pub mod ground_truth;
pub mod joints;
pub mod leds;
pub mod motion;
pub mod network;
pub mod perception;
mod representation;
pub mod sensing;
pub mod sound;
pub mod whistle;

pub use behaviour::{BehaviourLeds, BehaviourRequest, BehaviourTeam, Colour, ColouredLight};
pub use field_features::{CenterCircle, LineSegment, LinesPercept, PenaltyMarkPercept};
pub use frame::FrameInfo;
pub use game::{GamePhase, GameState, GameStateSource, Penalty, PlayState, SetPlay, TeamColour};
pub use ground_truth::{BallTruth, GroundTruth, RobotPose};
pub use joints::{JointId, Joints, JOINT_COUNT};
pub use leds::{EarLeds, EyeLeds, LedRequest, Rgb, SkullLeds};
pub use motion::{
    BodyMotion, FallDirection, FallPhase, FallState, HeadMotionRequest, JointRequest, MotionInfo,
    MotionKind, MotionRequest, OdometryData, Side,
};
pub use network::{
    FieldPose, GameControllerCounters, GameControllerPacket, GameControllerPlayer,
    GameControllerState, GameControllerTeam, SeenBall, TeamIntention, TeamMate, TeamMateMessage,
    TeamMates, TeamMessageCounters, TeamMessageRequest, TeamRole,
};
pub use perception::{
    BallModel, BallPercept, BallSpots, BodyContour, CameraImage, CameraMatrix, CameraName,
    ColorClassImage, ColorScanLineRegions, ECImage, FieldBoundary, FieldColors, ProcessLocal,
    SeenBallPercept,
};
pub use representation::Representation;
pub use sensing::{
    BatteryState, FootPressure, ForceSensitiveResistors, InertialMeasurement,
    JointTemperatureStatus, RobotIdentity, SensorData, SonarReadings, TouchSensors,
};
pub use sound::{PlayedSoundSummary, PlayedSounds, Sound, SoundRequest};
pub use whistle::WhistleState;

representations!(
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
    WhistleState,
    PlayedSounds,
    GameControllerState,
    TeamMates,
    TeamMessageRequest,
    CameraImage,
    CameraMatrix,
    ECImage,
    FieldColors,
    ColorClassImage,
    ColorScanLineRegions,
    FieldBoundary,
    BodyContour,
    BallSpots,
    BallPercept,
    BallModel,
    LinesPercept,
    PenaltyMarkPercept,
    GroundTruth,
);
