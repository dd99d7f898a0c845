//! `robot.BehaviourRequest`: what `tick` returns, typed and checked field by field.
//!
//! ```python
//! request = robot.BehaviourRequest()      # sits, looks ahead, LEDs off, silent
//! request.body.walk(x=0.2, turn=0.3)      # or stand(), sit(), unstiff(),
//!                                         # special_action("stand_up_back"), kick("Left", 0.0, 1.0)
//! request.head.yaw = 0.5                  # rad; also pitch (rad) and speed (rad/s)
//! request.leds.chest = "Green"            # a colour name, or (colour, intensity 0..1)
//! request.leds.eyes("Blue", 0.5)          # both eyes; also ears(), feet(), all()
//! request.sound.say("hello")              # or play("whistle"); once per call
//! request.team.role = "Striker"           # what the team mates hear (crate::team_request):
//! request.team.intention = "PlayBall"     # also pass_to(3), walk_target(x_mm, y_mm)
//! ```
//!
//! Every value is checked when it is set: a wrong type raises `TypeError`, a value out of range
//! `ValueError`, and the message names the field (`BehaviourRequest.head.yaw: 5.0 is outside
//! -2.09..2.09 rad`). An attribute that does not exist cannot be set (`request.head.yw = 1`
//! raises `AttributeError`), so a typo never goes unnoticed.
//!
//! Enum values are spelled as their Rust variants, as on the blackboard and in `cortex get`:
//! colours (`"Green"`, [`Colour`]), the kicking foot (`"Left"`, [`Side`]), and what reads back
//! (`body.kind == "Walk"`, `sound.request == ("Say", text)`). The lower-case spelling of earlier
//! versions is refused with a message that gives the right one (`"green" is spelled "Green"`).

use crate::team_request::PyTeam;
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString, PyTuple};
use types::{
    BehaviourLeds, BehaviourRequest, BodyMotion, Colour, ColouredLight, HeadMotionRequest, Side,
    Sound, SoundRequest,
};

/// A closed range of allowed values and its unit, for checks and messages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub min: f32,
    pub max: f32,
    pub unit: &'static str,
}

/// Head yaw: the NAO v6's joint range.
pub const HEAD_YAW: Limits = Limits {
    min: -2.0857,
    max: 2.0857,
    unit: "rad",
};
/// Head pitch: the NAO v6's joint range (positive looks down).
pub const HEAD_PITCH: Limits = Limits {
    min: -0.6720,
    max: 0.5149,
    unit: "rad",
};
/// Head speed: up to the head motors' maximum.
pub const HEAD_SPEED: Limits = Limits {
    min: 0.0,
    max: 8.0,
    unit: "rad/s",
};
/// Walk speed forward and sideways. The walk limits speeds further; this catches wrong units
/// (mm/s, cm/s).
pub const WALK_SPEED: Limits = Limits {
    min: -1.0,
    max: 1.0,
    unit: "m/s",
};
/// Walk turn speed. Catches degrees.
pub const WALK_TURN: Limits = Limits {
    min: -std::f32::consts::PI,
    max: std::f32::consts::PI,
    unit: "rad/s",
};
/// Walk-to target distance (robot frame). Catches millimetres.
pub const WALK_TO_DISTANCE: Limits = Limits {
    min: -20.0,
    max: 20.0,
    unit: "m",
};
/// Kick direction in the robot frame.
pub const KICK_DIRECTION: Limits = Limits {
    min: -std::f32::consts::PI,
    max: std::f32::consts::PI,
    unit: "rad",
};
/// Kick strength and LED intensity.
pub const FRACTION: Limits = Limits {
    min: 0.0,
    max: 1.0,
    unit: "",
};

/// The colour names Python uses: the variants of [`Colour`].
pub const COLOURS: [(&str, Colour); 10] = [
    ("Off", Colour::Off),
    ("White", Colour::White),
    ("Red", Colour::Red),
    ("Green", Colour::Green),
    ("Blue", Colour::Blue),
    ("Yellow", Colour::Yellow),
    ("Cyan", Colour::Cyan),
    ("Magenta", Colour::Magenta),
    ("Orange", Colour::Orange),
    ("Purple", Colour::Purple),
];

/// The kicking foot's names: the variants of [`Side`].
const SIDES: [(&str, Side); 2] = [("Left", Side::Left), ("Right", Side::Right)];

/// The LED groups, as attributes of `request.leds`.
pub const LED_GROUPS: [&str; 8] = [
    "left_eye",
    "right_eye",
    "left_ear",
    "right_ear",
    "chest",
    "left_foot",
    "right_foot",
    "skull",
];

fn colour_name(colour: Colour) -> &'static str {
    COLOURS
        .iter()
        .find(|(_, known)| *known == colour)
        .map_or("Off", |(name, _)| name)
}

/// `str 'abc'`, `NoneType None`: what was given, for messages.
pub(crate) fn describe(value: &Bound<'_, PyAny>) -> String {
    let type_name = value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |name| name.to_string());
    let mut repr = value
        .repr()
        .map_or_else(|_| "?".to_owned(), |repr| repr.to_string());
    if repr.len() > 40 {
        let cut = (0..=40)
            .rev()
            .find(|&i| repr.is_char_boundary(i))
            .unwrap_or(0);
        repr.truncate(cut);
        repr.push('…');
    }
    format!("{type_name} {repr}")
}

/// A finite float or int (not a bool) as f32.
pub(crate) fn number(field: &str, value: &Bound<'_, PyAny>) -> PyResult<f32> {
    let is_number = (value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>())
        && !value.is_instance_of::<PyBool>();
    if !is_number {
        return Err(PyTypeError::new_err(format!(
            "{field}: expected a number, got {}",
            describe(value)
        )));
    }
    let number: f64 = value
        .extract()
        .map_err(|_| PyValueError::new_err(format!("{field}: {} is too large", describe(value))))?;
    if !number.is_finite() {
        return Err(PyValueError::new_err(format!(
            "{field}: {number:?} is not a finite number"
        )));
    }
    Ok(number as f32)
}

/// A number within `limits`.
pub(crate) fn ranged(field: &str, value: &Bound<'_, PyAny>, limits: Limits) -> PyResult<f32> {
    let number = number(field, value)?;
    if number < limits.min || number > limits.max {
        let unit = if limits.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", limits.unit)
        };
        return Err(PyValueError::new_err(format!(
            "{field}: {:?} is outside {:.2}..{:.2}{unit}",
            f64::from(number),
            limits.min,
            limits.max
        )));
    }
    Ok(number)
}

fn optional_ranged(field: &str, value: Option<&Bound<'_, PyAny>>, limits: Limits) -> PyResult<f32> {
    value.map_or(Ok(0.0), |value| ranged(field, value, limits))
}

fn text<'py>(field: &str, value: &Bound<'py, PyAny>) -> PyResult<String> {
    let text = value.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!("{field}: expected a str, got {}", describe(value)))
    })?;
    Ok(text.to_str()?.to_owned())
}

/// A name of a file on the robot (special action, sound): letters, digits, `_` and `-`.
fn file_name(field: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let name = text(field, value)?;
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(PyValueError::new_err(format!(
            "{field}: {name:?} is not a name (1 to 64 letters, digits, `_` or `-`)"
        )));
    }
    Ok(name)
}

/// One of `names` (enum values, spelled as the Rust variants); `what` names the kind in the
/// message. A value that differs only in case gets the right spelling in the message.
pub(crate) fn variant<T: Copy>(
    field: &str,
    value: &Bound<'_, PyAny>,
    names: &[(&'static str, T)],
    what: &str,
) -> PyResult<T> {
    let name = text(field, value)?;
    if let Some((_, found)) = names.iter().find(|(known, _)| *known == name) {
        return Ok(*found);
    }
    if let Some((known, _)) = names
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(&name))
    {
        return Err(PyValueError::new_err(format!(
            "{field}: {name:?} is spelled {known:?} (enum values are spelled as on the blackboard)"
        )));
    }
    let known: Vec<&str> = names.iter().map(|(name, _)| *name).collect();
    Err(PyValueError::new_err(format!(
        "{field}: {name:?} is not {what} ({})",
        known.join(", ")
    )))
}

fn colour(field: &str, value: &Bound<'_, PyAny>) -> PyResult<Colour> {
    variant(field, value, &COLOURS, "a colour")
}

/// `"Red"` (full intensity) or `("Red", 0.5)`.
fn light(field: &str, value: &Bound<'_, PyAny>) -> PyResult<ColouredLight> {
    if value.is_instance_of::<PyString>() {
        return Ok(ColouredLight::new(colour(field, value)?, 1.0));
    }
    match value.cast::<PyTuple>() {
        Ok(pair) if pair.len() == 2 => Ok(ColouredLight::new(
            colour(field, &pair.get_item(0)?)?,
            ranged(&format!("{field} intensity"), &pair.get_item(1)?, FRACTION)?,
        )),
        _ => Err(PyTypeError::new_err(format!(
            "{field}: expected a colour name or (colour, intensity), got {}",
            describe(value)
        ))),
    }
}

/// `request.body`: what the legs, arms and torso do. One motion at a time: the last call wins.
#[pyclass(module = "robot", name = "Body")]
#[derive(Debug, Default)]
pub struct PyBody {
    pub(crate) motion: BodyMotion,
}

#[pymethods]
impl PyBody {
    /// Stand up and stand still.
    fn stand(&mut self) {
        self.motion = BodyMotion::Stand;
    }
    /// Sit down (the default: safe from any pose).
    fn sit(&mut self) {
        self.motion = BodyMotion::Sit;
    }
    /// All joints limp.
    fn unstiff(&mut self) {
        self.motion = BodyMotion::Unstiff;
    }
    /// Walk: x forward and y to the left in m/s, turn counter-clockwise in rad/s.
    #[pyo3(signature = (x = None, y = None, turn = None))]
    fn walk(
        &mut self,
        x: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.motion = BodyMotion::Walk {
            forward_m_per_s: optional_ranged("BehaviourRequest.body.walk.x", x, WALK_SPEED)?,
            left_m_per_s: optional_ranged("BehaviourRequest.body.walk.y", y, WALK_SPEED)?,
            turn_rad_per_s: optional_ranged("BehaviourRequest.body.walk.turn", turn, WALK_TURN)?,
        };
        Ok(())
    }
    /// Walk to a pose relative to the robot now: x forward and y to the left in m, turn
    /// counter-clockwise in rad; stops there. Ask again every tick with the target as it looks
    /// then.
    #[pyo3(signature = (x = None, y = None, turn = None))]
    fn walk_to(
        &mut self,
        x: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.motion = BodyMotion::WalkTo {
            forward_m: optional_ranged("BehaviourRequest.body.walk_to.x", x, WALK_TO_DISTANCE)?,
            left_m: optional_ranged("BehaviourRequest.body.walk_to.y", y, WALK_TO_DISTANCE)?,
            turn_rad: optional_ranged("BehaviourRequest.body.walk_to.turn", turn, KICK_DIRECTION)?,
        };
        Ok(())
    }
    /// Play a recorded motion by name, e.g. `"stand_up_back"`.
    fn special_action(&mut self, name: &Bound<'_, PyAny>) -> PyResult<()> {
        self.motion = BodyMotion::SpecialAction {
            name: file_name("BehaviourRequest.body.special_action.name", name)?,
        };
        Ok(())
    }
    /// Kick with `foot` ("Left" or "Right") towards `direction` (rad, robot frame) with
    /// `strength` 0..1.
    #[pyo3(signature = (foot, direction = None, strength = None))]
    fn kick(
        &mut self,
        foot: &Bound<'_, PyAny>,
        direction: Option<&Bound<'_, PyAny>>,
        strength: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let foot = variant("BehaviourRequest.body.kick.foot", foot, &SIDES, "a foot")?;
        self.motion = BodyMotion::Kick {
            foot,
            direction_rad: optional_ranged(
                "BehaviourRequest.body.kick.direction",
                direction,
                KICK_DIRECTION,
            )?,
            strength: match strength {
                Some(value) => ranged("BehaviourRequest.body.kick.strength", value, FRACTION)?,
                None => 1.0,
            },
        };
        Ok(())
    }
    /// The motion's variant: "Sit", "Stand", "Unstiff", "Walk", "WalkTo", "SpecialAction" or
    /// "Kick" (as
    /// `blackboard.motion_info.executed_request.body` spells it).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.motion {
            BodyMotion::Unstiff => "Unstiff",
            BodyMotion::Sit => "Sit",
            BodyMotion::Stand => "Stand",
            BodyMotion::Walk { .. } => "Walk",
            BodyMotion::WalkTo { .. } => "WalkTo",
            BodyMotion::SpecialAction { .. } => "SpecialAction",
            BodyMotion::Kick { .. } => "Kick",
        }
    }
    /// The motion's parameters, by the names the methods take.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        match &self.motion {
            BodyMotion::Walk {
                forward_m_per_s,
                left_m_per_s,
                turn_rad_per_s,
            } => {
                dict.set_item("x", forward_m_per_s)?;
                dict.set_item("y", left_m_per_s)?;
                dict.set_item("turn", turn_rad_per_s)?;
            }
            BodyMotion::WalkTo {
                forward_m,
                left_m,
                turn_rad,
            } => {
                dict.set_item("x", forward_m)?;
                dict.set_item("y", left_m)?;
                dict.set_item("turn", turn_rad)?;
            }
            BodyMotion::SpecialAction { name } => dict.set_item("name", name)?,
            BodyMotion::Kick {
                foot,
                direction_rad,
                strength,
            } => {
                let name = SIDES
                    .iter()
                    .find(|(_, side)| side == foot)
                    .map_or("Left", |(name, _)| name);
                dict.set_item("foot", name)?;
                dict.set_item("direction", direction_rad)?;
                dict.set_item("strength", strength)?;
            }
            _ => {}
        }
        Ok(dict)
    }
    fn __repr__(&self) -> String {
        format!("robot.Body({:?})", self.motion)
    }
}

/// `request.head`: where to look. `yaw` (rad, left positive), `pitch` (rad, down positive),
/// `speed` (rad/s).
#[pyclass(module = "robot", name = "Head")]
#[derive(Debug, Default)]
pub struct PyHead {
    pub(crate) head: HeadMotionRequest,
}

#[pymethods]
impl PyHead {
    #[getter]
    fn yaw(&self) -> f32 {
        self.head.yaw_rad
    }
    #[setter]
    fn set_yaw(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.head.yaw_rad = ranged("BehaviourRequest.head.yaw", value, HEAD_YAW)?;
        Ok(())
    }
    #[getter]
    fn pitch(&self) -> f32 {
        self.head.pitch_rad
    }
    #[setter]
    fn set_pitch(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.head.pitch_rad = ranged("BehaviourRequest.head.pitch", value, HEAD_PITCH)?;
        Ok(())
    }
    #[getter]
    fn speed(&self) -> f32 {
        self.head.max_speed_rad_per_s
    }
    #[setter]
    fn set_speed(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.head.max_speed_rad_per_s = ranged("BehaviourRequest.head.speed", value, HEAD_SPEED)?;
        Ok(())
    }
    /// Sets yaw and pitch (and the speed, if given) in one call.
    #[pyo3(signature = (yaw, pitch, speed = None))]
    fn look(
        &mut self,
        yaw: &Bound<'_, PyAny>,
        pitch: &Bound<'_, PyAny>,
        speed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let yaw = ranged("BehaviourRequest.head.yaw", yaw, HEAD_YAW)?;
        let pitch = ranged("BehaviourRequest.head.pitch", pitch, HEAD_PITCH)?;
        if let Some(speed) = speed {
            self.set_speed(speed)?;
        }
        self.head.yaw_rad = yaw;
        self.head.pitch_rad = pitch;
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!(
            "robot.Head(yaw={}, pitch={}, speed={})",
            self.head.yaw_rad, self.head.pitch_rad, self.head.max_speed_rad_per_s
        )
    }
}

/// `request.leds`: one colour and intensity per group. Ears (blue) and skull (white) show only
/// the intensity.
#[pyclass(module = "robot", name = "Leds")]
#[derive(Debug, Default)]
pub struct PyLeds {
    pub(crate) lights: [ColouredLight; 8],
}

impl PyLeds {
    fn group(name: &str) -> PyResult<usize> {
        LED_GROUPS
            .iter()
            .position(|group| *group == name)
            .ok_or_else(|| {
                PyAttributeError::new_err(format!(
                    "BehaviourRequest.leds has no LED group {name:?} ({})",
                    LED_GROUPS.join(", ")
                ))
            })
    }

    fn set_groups(
        &mut self,
        groups: &[usize],
        what: &str,
        colour_value: &Bound<'_, PyAny>,
        intensity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let field = format!("BehaviourRequest.leds.{what}");
        let colour = colour(&field, colour_value)?;
        let intensity = match intensity {
            Some(value) => ranged(&format!("{field} intensity"), value, FRACTION)?,
            None => 1.0,
        };
        for &group in groups {
            self.lights[group] = ColouredLight::new(colour, intensity);
        }
        Ok(())
    }

    /// The Rust value.
    pub(crate) fn to_rust(&self) -> BehaviourLeds {
        let [left_eye, right_eye, left_ear, right_ear, chest, left_foot, right_foot, skull] =
            self.lights;
        BehaviourLeds {
            left_eye,
            right_eye,
            left_ear,
            right_ear,
            chest,
            left_foot,
            right_foot,
            skull,
        }
    }
}

#[pymethods]
impl PyLeds {
    fn __getattr__(&self, name: &str) -> PyResult<(&'static str, f32)> {
        let light = self.lights[Self::group(name)?];
        Ok((colour_name(light.colour), light.intensity))
    }
    fn __setattr__(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let group = Self::group(name)?;
        self.lights[group] = light(&format!("BehaviourRequest.leds.{name}"), value)?;
        Ok(())
    }
    fn __delattr__(&mut self, name: &str) -> PyResult<()> {
        Err(PyAttributeError::new_err(format!(
            "BehaviourRequest.leds.{name} cannot be deleted; set it to \"Off\""
        )))
    }
    fn __dir__(&self) -> Vec<&'static str> {
        let mut names = LED_GROUPS.to_vec();
        names.extend(["eyes", "ears", "feet", "all"]);
        names
    }
    /// Both eyes.
    #[pyo3(signature = (colour, intensity = None))]
    fn eyes(
        &mut self,
        colour: &Bound<'_, PyAny>,
        intensity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_groups(&[0, 1], "eyes", colour, intensity)
    }
    /// Both ears (blue LEDs: only the intensity shows).
    #[pyo3(signature = (colour, intensity = None))]
    fn ears(
        &mut self,
        colour: &Bound<'_, PyAny>,
        intensity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_groups(&[2, 3], "ears", colour, intensity)
    }
    /// Both feet.
    #[pyo3(signature = (colour, intensity = None))]
    fn feet(
        &mut self,
        colour: &Bound<'_, PyAny>,
        intensity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_groups(&[5, 6], "feet", colour, intensity)
    }
    /// Every group.
    #[pyo3(signature = (colour, intensity = None))]
    fn all(
        &mut self,
        colour: &Bound<'_, PyAny>,
        intensity: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.set_groups(&[0, 1, 2, 3, 4, 5, 6, 7], "all", colour, intensity)
    }
    fn __repr__(&self) -> String {
        let groups: Vec<String> = LED_GROUPS
            .iter()
            .zip(self.lights)
            .filter(|(_, light)| light.colour != Colour::Off)
            .map(|(name, light)| {
                format!(
                    "{name}=({:?}, {})",
                    colour_name(light.colour),
                    light.intensity
                )
            })
            .collect();
        format!("robot.Leds({})", groups.join(", "))
    }
}

/// `request.sound`: something to say or play, once per call.
#[pyclass(module = "robot", name = "Sound")]
#[derive(Debug, Default)]
pub struct PySound {
    pub(crate) sound: Option<Sound>,
}

#[pymethods]
impl PySound {
    /// Speak `text` (text-to-speech).
    fn say(&mut self, text: &Bound<'_, PyAny>) -> PyResult<()> {
        let field = "BehaviourRequest.sound.say";
        let text = self::text(field, text)?;
        if text.trim().is_empty() || text.len() > 200 {
            return Err(PyValueError::new_err(format!(
                "{field}: the text must have 1 to 200 characters, got {}",
                text.len()
            )));
        }
        self.sound = Some(Sound::Say { text });
        Ok(())
    }
    /// Play the sound file `name` (without extension), e.g. `"whistle"`.
    fn play(&mut self, name: &Bound<'_, PyAny>) -> PyResult<()> {
        self.sound = Some(Sound::Play {
            name: file_name("BehaviourRequest.sound.play", name)?,
        });
        Ok(())
    }
    /// No sound this tick.
    fn silence(&mut self) {
        self.sound = None;
    }
    /// `None`, `("Say", text)` or `("Play", name)`.
    #[getter]
    fn request(&self) -> Option<(&'static str, String)> {
        match &self.sound {
            None => None,
            Some(Sound::Say { text }) => Some(("Say", text.clone())),
            Some(Sound::Play { name }) => Some(("Play", name.clone())),
        }
    }
    fn __repr__(&self) -> String {
        format!("robot.Sound({:?})", self.sound)
    }
}

/// `robot.BehaviourRequest()`: everything one tick asks for. It starts sitting, looking
/// ahead, with the LEDs off, silent, and telling the team mates role and intention "None".
#[pyclass(module = "robot", name = "BehaviourRequest")]
#[derive(Debug)]
pub struct PyBehaviourRequest {
    #[pyo3(get)]
    body: Py<PyBody>,
    #[pyo3(get)]
    head: Py<PyHead>,
    #[pyo3(get)]
    leds: Py<PyLeds>,
    #[pyo3(get)]
    sound: Py<PySound>,
    #[pyo3(get)]
    team: Py<PyTeam>,
}

#[pymethods]
impl PyBehaviourRequest {
    #[new]
    fn new(py: Python<'_>) -> PyResult<Self> {
        Ok(PyBehaviourRequest {
            body: Py::new(py, PyBody::default())?,
            head: Py::new(py, PyHead::default())?,
            leds: Py::new(py, PyLeds::default())?,
            sound: Py::new(py, PySound::default())?,
            team: Py::new(py, PyTeam::default())?,
        })
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "robot.BehaviourRequest(body={}, head={}, leds={}, sound={}, team={})",
            self.body.borrow(py).__repr__(),
            self.head.borrow(py).__repr__(),
            self.leds.borrow(py).__repr__(),
            self.sound.borrow(py).__repr__(),
            self.team.borrow(py).__repr__(),
        )
    }
}

impl PyBehaviourRequest {
    /// The Rust request. The sound's `request_counter` is 0: the caller numbers the sounds.
    pub fn to_rust(&self, py: Python<'_>) -> BehaviourRequest {
        BehaviourRequest {
            body: self.body.borrow(py).motion.clone(),
            head: self.head.borrow(py).head.clone(),
            leds: self.leds.borrow(py).to_rust(),
            sound: SoundRequest {
                request_counter: 0,
                sound: self.sound.borrow(py).sound.clone(),
            },
            team: self.team.borrow(py).team,
        }
    }
}
