//! A GameController for system tests: sends the messages of a [`GameSetup`] the test changes
//! as it goes to one robot's port on the loopback interface, until dropped.

use spl_network::fake_game_controller::GameSetup;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the sending thread looks whether it is to stop.
const STOP_CHECK: Duration = Duration::from_millis(50);

pub struct GameController {
    setup: Arc<Mutex<GameSetup>>,
    /// The port it sends from (the robot answers there).
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl GameController {
    /// Sends `setup` to `robot_port` every `period` (a multiple of 50 ms).
    pub fn start(robot_port: u16, setup: GameSetup, period: Duration) -> Self {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = socket.local_addr().unwrap().port();
        let setup = Arc::new(Mutex::new(setup));
        let stop = Arc::new(AtomicBool::new(false));
        let checks = (period.as_millis() / STOP_CHECK.as_millis()).max(1);
        let thread = {
            let (setup, stop) = (setup.clone(), stop.clone());
            let target = SocketAddr::from(([127, 0, 0, 1], robot_port));
            std::thread::spawn(move || {
                let mut packet_number: u8 = 0;
                while !stop.load(Ordering::Relaxed) {
                    let bytes = setup.lock().unwrap().message(packet_number).encode();
                    // The robot may not listen yet: a refused datagram is no failure.
                    let _ = socket.send_to(&bytes, target);
                    packet_number = packet_number.wrapping_add(1);
                    for _ in 0..checks {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        std::thread::sleep(STOP_CHECK);
                    }
                }
            })
        };
        GameController {
            setup,
            port,
            stop,
            thread: Some(thread),
        }
    }

    /// Changes what the next messages say.
    pub fn change(&self, change: impl FnOnce(&mut GameSetup)) {
        change(&mut self.setup.lock().unwrap());
    }
}

impl Drop for GameController {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
