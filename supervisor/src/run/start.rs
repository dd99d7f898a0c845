//! Start-up: with `--sim` the LoLA simulator; the `lola` bridge and its channels; the robot
//! identity it reports; the configuration for that robot, the graph, every segment; then every
//! other child.

use super::child::State;
use super::{stop_reason, Supervisor};
use crate::behaviour_faults::{BehaviourWatch, BEHAVIOUR_MODULE};
use crate::control::ControlServer;
use crate::{paths, program};
use anyhow::{bail, Context, Result};
use config::ProcessKind;
use framework::graph::{channel_name, LOLA_PROVIDES, LOLA_USES, SIMULATOR_PROVIDES};
use framework::RepresentationRegistry;
use ipc::TripleBuffer;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the bridge has to report the robot identity.
const IDENTITY_TIMEOUT: Duration = Duration::from_secs(10);

impl Supervisor {
    /// Starts everything, in order; a stop signal meanwhile ends the wait for the robot.
    pub(super) fn start(
        &mut self,
        run_dir: &Path,
        stop: &AtomicUsize,
        control: &ControlServer,
    ) -> Result<()> {
        let started = Instant::now();
        if self.options.sim && self.options.lola_socket.is_none() {
            self.start_simulator(run_dir)?;
        }
        let representations = program::representations();
        let lola = self
            .children
            .iter()
            .position(|child| child.kind == ProcessKind::Lola);
        if let Some(index) = lola {
            let name = self.children[index].name.clone();
            for representation in LOLA_PROVIDES.iter().chain(&LOLA_USES) {
                self.create_channel(
                    &channel_name(&name, representation),
                    representation,
                    &representations,
                )?;
            }
            self.children[index].channels = LOLA_PROVIDES
                .iter()
                .chain(&LOLA_USES)
                .map(|r| channel_name(&name, r))
                .collect();
            // A replay has no robot: the bridge's channels are the replayer's to write.
            if self.options.replay.is_none() {
                self.spawn(index)?;
                self.identity = Some(self.wait_for_identity(index, &name, stop, control)?);
            }
        } else {
            tracing::warn!("the process table has no lola process: no robot, no binding");
        }
        let overrides = self.overrides.all();
        // The robot's layers may hold parameter files of their own: checked in the live folder
        // (errors name the files people edit), then in the plan generation the children read.
        let live = program::load_config(&self.config_root, self.identity_ref(), &overrides)?;
        program::check_same_processes(
            self.children.iter().map(|child| child.name.as_str()),
            &live,
        )?;
        program::check(&live)?;
        let generation = self.plans.current();
        let config = program::load_config(
            &self.plans.config_root(generation),
            self.identity_ref(),
            &overrides,
        )?;
        program::check_same_processes(
            self.children.iter().map(|child| child.name.as_str()),
            &config,
        )?;
        let graph = program::check(&config)
            .context("the configuration changed while it was copied into the plan; start again")?;
        self.plans.write_graph(generation, &graph.to_string())?;
        self.apply_plan(&config, &graph)?;
        self.graph = Some(graph);
        self.prepare_replay();
        for index in 0..self.children.len() {
            if self.children[index].state == State::Stopped {
                self.spawn(index)?;
            }
        }
        tracing::info!(
            "{} processes started in {:?}",
            self.children.len(),
            started.elapsed()
        );
        Ok(())
    }

    /// Takes what the process table and the graph say for every child: its channels (made if
    /// new), watchdog, restart policy, memory limit and behaviour marker. At start and at
    /// `cortex reload` (which cannot change which processes exist).
    pub(super) fn apply_plan(
        &mut self,
        config: &config::Config,
        graph: &framework::Graph,
    ) -> Result<()> {
        let representations = program::representations();
        for channel in &graph.channels {
            if !self.channels.contains_key(&channel.name) {
                self.create_channel(&channel.name, &channel.representation, &representations)?;
            }
        }
        for (index, spec) in config.process_table().processes().iter().enumerate() {
            let plan = graph.process(&spec.name).expect("every process has a plan");
            let mut names: Vec<String> = plan.inbound.iter().map(|i| i.channel.clone()).collect();
            names.extend(plan.outbound.iter().cloned());
            names.sort();
            names.dedup();
            let child = &mut self.children[index];
            child.watchdog = spec.watchdog;
            child.restart = spec.restart;
            child.memory_limit_mb = spec.memory_limit_mb;
            let runs_behaviour = plan
                .order
                .iter()
                .any(|step| step.module == BEHAVIOUR_MODULE);
            if runs_behaviour && child.behaviour.is_none() {
                child.behaviour = Some(BehaviourWatch::create(&child.name)?);
            }
            if child.kind != ProcessKind::Lola {
                child.channels = names;
            }
        }
        Ok(())
    }

    fn create_channel(
        &mut self,
        name: &str,
        representation: &str,
        registry: &RepresentationRegistry,
    ) -> Result<()> {
        let info = registry
            .get(representation)
            .with_context(|| format!("channel {name}: unknown representation {representation}"))?;
        let buffer = TripleBuffer::create_with_schema(name, info.capacity, info.schema_hash)?;
        self.channels.insert(name.to_owned(), buffer);
        Ok(())
    }

    fn start_simulator(&mut self, run_dir: &Path) -> Result<()> {
        let socket = paths::lola_socket(run_dir);
        let control = paths::simulator_control(run_dir);
        let _ = std::fs::remove_file(&socket);
        let (mut command, start_timeout) = if self.options.physics {
            (
                crate::physics::command(&socket, &control)?,
                crate::physics::START_TIMEOUT,
            )
        } else {
            // The world's GroundTruth: made here (before the graph, which names the simulator
            // as its producer), written only by the simulator, read by `cortex get` and modules.
            let registry = program::representations();
            for representation in SIMULATOR_PROVIDES {
                if !self.channels.contains_key(representation) {
                    self.create_channel(representation, representation, &registry)?;
                }
            }
            let ground_truth = self.channels[SIMULATOR_PROVIDES[0]].as_fd();
            let mut command = Command::new(&self.exe);
            command
                .arg0("cortex-simulator")
                .arg("simulator")
                .arg("--socket")
                .arg(&socket)
                .arg("--control")
                .arg(&control)
                .arg("--ground-truth-fd")
                .arg(ground_truth.as_raw_fd().to_string());
            ipc::fd::inherit_fds(&mut command, &[ground_truth]);
            (command, Duration::from_secs(5))
        };
        command.stdin(Stdio::null()).process_group(0);
        // The simulated robot removes its sockets on SIGTERM, also when the supervisor dies.
        ipc::fd::signal_with_parent(&mut command, rustix::process::Signal::TERM);
        let mut child = command.spawn().context("starting the LoLA simulator")?;
        let deadline = Instant::now() + start_timeout;
        while !socket.exists() {
            if let Some(status) = child.try_wait()? {
                bail!("the LoLA simulator exited at start: {status}");
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!(
                    "the LoLA simulator did not create {} within {start_timeout:?}",
                    socket.display()
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        tracing::info!(
            pid = child.id(),
            "LoLA simulator listening on {}",
            socket.display()
        );
        self.simulator = Some(child);
        self.record_processes();
        Ok(())
    }

    fn wait_for_identity(
        &mut self,
        index: usize,
        name: &str,
        stop: &AtomicUsize,
        control: &ControlServer,
    ) -> Result<(String, String)> {
        let channel = &self.channels[&channel_name(name, "RobotIdentity")];
        let mut reader = channel.reader();
        let deadline = Instant::now() + IDENTITY_TIMEOUT;
        let mut bytes = Vec::new();
        loop {
            if reader.read_latest(&mut bytes)?.is_some() {
                let identity: types::RobotIdentity = ipc::channel::decode(&bytes)?;
                tracing::info!(body = %identity.body_id, head = %identity.head_id, "robot identity");
                return Ok((identity.body_id, identity.head_id));
            }
            if let Some(process) = self.children[index].process.as_mut() {
                if let Some(status) = process.try_wait()? {
                    bail!("the lola bridge exited before it reported the robot identity: {status}");
                }
            }
            let cell = stop.load(Ordering::Relaxed);
            if cell != 0 {
                bail!(
                    "stopped ({}) while waiting for the robot identity",
                    stop_reason(cell)
                );
            }
            if Instant::now() > deadline {
                bail!("the lola bridge reported no robot identity within {IDENTITY_TIMEOUT:?} (is LoLA at {}?)", self.lola_socket.display());
            }
            reader.wait_newer(0, Duration::from_millis(5))?;
            self.answer_outside_supervision(control, stop, "starting", Duration::ZERO);
        }
    }
}
