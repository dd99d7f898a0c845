//! The `lola` bridge's surroundings as the supervisor makes them, for tests that run
//! `lola::bridge::run` in-process: its process plan, a configuration with only the bridge, and
//! its four channels.

use framework::graph::Inbound;
use framework::runtime::Channels;
use framework::{ProcessPlan, Representation};
use ipc::TripleBuffer;
use std::path::Path;
use types::{JointRequest, LedRequest, RobotIdentity, SensorData};

/// The bridge's plan, as the graph builder makes it for the shipped table: it reads
/// `JointRequest` and `LedRequest`, writes `RobotIdentity` and `SensorData`, runs no module.
pub fn plan() -> ProcessPlan {
    ProcessPlan {
        name: "lola".into(),
        kind: config::ProcessKind::Lola,
        order: vec![],
        inbound: ["JointRequest", "LedRequest"]
            .map(|name| Inbound {
                channel: name.into(),
                representation: name.into(),
            })
            .to_vec(),
        outbound: vec!["RobotIdentity".into(), "SensorData".into()],
        outbound_read: vec!["RobotIdentity".into(), "SensorData".into()],
        triggers: vec![],
        defaults: vec![],
    }
}

/// A configuration in `root` whose process table holds only the bridge, with
/// `bridge_parameters` as its `LolaBridge.toml`.
pub fn configuration(root: &Path, bridge_parameters: &str) -> config::Config {
    let table = "[[process]]\nname = \"lola\"\nkind = \"lola\"\nrate_hz = 83.33\n";
    config::scaffold::write_minimal(root, table, &[("LolaBridge.toml", bridge_parameters)])
        .unwrap();
    config::Config::load(root, None, &[]).unwrap()
}

/// The bridge's four channels, as the supervisor creates them.
pub fn channels() -> Channels {
    let mut channels = Channels::new();
    channels.insert("SensorData", channel::<SensorData>());
    channels.insert("RobotIdentity", channel::<RobotIdentity>());
    channels.insert("JointRequest", channel::<JointRequest>());
    channels.insert("LedRequest", channel::<LedRequest>());
    channels
}

/// A channel of `T`, named after it, with its capacity and schema hash.
pub fn channel<T: Representation>() -> TripleBuffer {
    TripleBuffer::create_with_schema(T::NAME, T::CAPACITY, ipc::channel::schema_hash(T::NAME))
        .unwrap()
}
