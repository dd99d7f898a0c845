//! The read-only blackboard `tick(blackboard)` receives.
//!
//! Each representation becomes nested read-only Python objects with the Rust field names:
//! structs are named tuples (`blackboard.sensors.touch.chest_button`), enums without data are
//! their variant's name (`blackboard.game_state.state == "Playing"`), enums with data are named
//! tuples with a `kind` field (`blackboard.motion_info.executed_request.body.kind == "Walk"`),
//! arrays and vectors are tuples, `Option` is the value or `None`.
//!
//! **One spelling for every enum:** the Rust variant name, as `cortex get` prints it
//! (`"Playing"`, `"PenaltyKick"`, `"Purple"`, `"Striker"`). It follows from the conversion (serde's
//! unit variant name), so an enum added to any representation is spelled the same way without
//! a line here; nothing may `#[serde(rename)]` a variant of a representation the behaviour reads
//! (`behaviours/tests/view.rs` checks the game state's and the team mates' enums).
//!
//! The conversion goes through serde, so a field added to a representation shows up in Python
//! without touching this file. It is lazy: a representation is converted the first time the
//! behaviour reads it in a tick, so a behaviour pays only for what it reads.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde::de::DeserializeOwned;
use serde::ser::{self, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use types::{
    BallModel, FallState, FrameInfo, GameState, JointId, MotionInfo, SensorData, TeamMates,
    JOINT_COUNT,
};

/// What the behaviour sees in one tick.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlackboardSnapshot {
    /// `blackboard.frame_info`: the time of this cognition tick and the tick count.
    pub frame_info: FrameInfo,
    /// `blackboard.sensors`.
    pub sensor_data: SensorData,
    /// `blackboard.game_state`.
    pub game_state: GameState,
    /// `blackboard.motion_info`.
    pub motion_info: MotionInfo,
    /// `blackboard.fall_state`.
    pub fall_state: FallState,
    /// `blackboard.team_mates`: the team mates' newest messages (from the network process).
    pub team_mates: TeamMates,
    /// `blackboard.ball`: cognition's ball model (both cameras, filtered).
    pub ball: BallModel,
}

/// `robot.Blackboard`: read-only, one per tick.
#[pyclass(module = "robot", name = "Blackboard")]
#[derive(Debug)]
pub struct PyBlackboard {
    snapshot: BlackboardSnapshot,
    converted: [Option<Py<PyAny>>; 7],
}

impl PyBlackboard {
    /// A blackboard showing `snapshot`.
    pub fn new(snapshot: BlackboardSnapshot) -> Self {
        PyBlackboard {
            snapshot,
            converted: Default::default(),
        }
    }

    fn cached<T: Serialize>(
        &mut self,
        py: Python<'_>,
        slot: usize,
        value: fn(&BlackboardSnapshot) -> &T,
    ) -> PyResult<Py<PyAny>> {
        if let Some(object) = &self.converted[slot] {
            return Ok(object.clone_ref(py));
        }
        let object = to_python(py, value(&self.snapshot))?;
        self.converted[slot] = Some(object.clone_ref(py));
        Ok(object)
    }
}

#[pymethods]
impl PyBlackboard {
    /// `robot.Blackboard(game_state={"state": "Playing"}, …)`: a blackboard written by hand, for
    /// testing a behaviour offline. Each argument is a dict (or a record read from another
    /// blackboard) with the Rust field names; what is left out has its default. An unknown key
    /// or a wrong value raises `ValueError` naming it (`game_state.stat`).
    #[new]
    #[pyo3(signature = (*, frame_info = None, sensors = None, game_state = None, motion_info = None, fall_state = None, team_mates = None, ball = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        frame_info: Option<&Bound<'_, PyAny>>,
        sensors: Option<&Bound<'_, PyAny>>,
        game_state: Option<&Bound<'_, PyAny>>,
        motion_info: Option<&Bound<'_, PyAny>>,
        fall_state: Option<&Bound<'_, PyAny>>,
        team_mates: Option<&Bound<'_, PyAny>>,
        ball: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        Ok(PyBlackboard::new(BlackboardSnapshot {
            frame_info: from_python(py, "frame_info", frame_info)?,
            sensor_data: from_python(py, "sensors", sensors)?,
            game_state: from_python(py, "game_state", game_state)?,
            motion_info: from_python(py, "motion_info", motion_info)?,
            fall_state: from_python(py, "fall_state", fall_state)?,
            team_mates: from_python(py, "team_mates", team_mates)?,
            ball: from_python(py, "ball", ball)?,
        }))
    }
    #[getter]
    fn frame_info(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 0, |s| &s.frame_info)
    }
    #[getter]
    fn sensors(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 1, |s| &s.sensor_data)
    }
    #[getter]
    fn game_state(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 2, |s| &s.game_state)
    }
    #[getter]
    fn motion_info(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 3, |s| &s.motion_info)
    }
    #[getter]
    fn fall_state(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 4, |s| &s.fall_state)
    }
    #[getter]
    fn team_mates(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 5, |s| &s.team_mates)
    }
    #[getter]
    fn ball(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.cached(py, 6, |s| &s.ball)
    }
    fn __repr__(&self) -> String {
        "robot.Blackboard(frame_info, sensors, game_state, motion_info, fall_state, team_mates, ball)"
            .to_owned()
    }
}

/// A representation from the Python value a test wrote (through JSON), checked like a file:
/// every key must be a field, every value of the field's type.
fn from_python<T: Serialize + DeserializeOwned + Default>(
    py: Python<'_>,
    name: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<T> {
    let Some(value) = value else {
        return Ok(T::default());
    };
    let text: String = py
        .import("json")?
        .call_method1("dumps", (value,))
        .map_err(|error| {
            PyValueError::new_err(format!("robot.Blackboard: {name}: not plain data: {error}"))
        })?
        .extract()?;
    let written: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| PyValueError::new_err(format!("robot.Blackboard: {name}: {error}")))?;
    let parsed: T = serde_json::from_value(written.clone())
        .map_err(|error| PyValueError::new_err(format!("robot.Blackboard: {name}: {error}")))?;
    let known = serde_json::to_value(&parsed)
        .map_err(|error| PyValueError::new_err(format!("robot.Blackboard: {name}: {error}")))?;
    if let Some(path) = unknown_key(&written, &known, name) {
        return Err(PyValueError::new_err(format!(
            "robot.Blackboard: {path} is not a field"
        )));
    }
    Ok(parsed)
}

/// The path of the first key of `written` that `known` (the parsed value written back) lacks.
fn unknown_key(
    written: &serde_json::Value,
    known: &serde_json::Value,
    path: &str,
) -> Option<String> {
    use serde_json::Value;
    match (written, known) {
        (Value::Object(written), Value::Object(known)) => {
            written.iter().find_map(|(key, value)| {
                let path = format!("{path}.{key}");
                match known.get(key) {
                    None => Some(path),
                    Some(known) => unknown_key(value, known, &path),
                }
            })
        }
        (Value::Array(written), Value::Array(known)) => written
            .iter()
            .zip(known)
            .enumerate()
            .find_map(|(index, (value, known))| {
                unknown_key(value, known, &format!("{path}[{index}]"))
            }),
        _ => None,
    }
}

/// `robot.JOINTS`: the index of each joint in the joint tuples
/// (`blackboard.sensors.joint_positions_rad[robot.JOINTS.HeadYaw]`).
pub(crate) fn joint_indices(py: Python<'_>) -> PyResult<Py<PyAny>> {
    // The names are the variant names, as in `cortex get` and the channels.
    let names: Vec<String> = JointId::ALL
        .iter()
        .map(|joint| format!("{joint:?}"))
        .collect();
    let kwargs = PyDict::new(py);
    kwargs.set_item("module", "robot")?;
    let class = py
        .import("collections")?
        .getattr("namedtuple")?
        .call(("Joints", names), Some(&kwargs))?;
    let indices: Vec<usize> = (0..JOINT_COUNT).collect();
    Ok(class.call1(PyTuple::new(py, indices)?)?.unbind())
}

/// Converts any serde value into read-only Python objects (see the module documentation).
pub fn to_python<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    value.serialize(ToPython { py }).map_err(|error| error.0)
}

/// `_make` of the named tuple class for `name` with `fields`, created once.
fn record_maker(
    py: Python<'_>,
    name: &'static str,
    fields: &[&'static str],
) -> PyResult<Py<PyAny>> {
    type Key = (&'static str, Vec<&'static str>);
    static RECORDS: Mutex<Option<HashMap<Key, Py<PyAny>>>> = Mutex::new(None);
    let key = (name, fields.to_vec());
    {
        let records = RECORDS
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(make) = records.as_ref().and_then(|records| records.get(&key)) {
            return Ok(make.clone_ref(py));
        }
    }
    // Created outside the lock: creating a class runs Python code, which may switch threads.
    let kwargs = PyDict::new(py);
    kwargs.set_item("module", "robot")?;
    let class = py
        .import("collections")?
        .getattr("namedtuple")?
        .call((name, fields.to_vec()), Some(&kwargs))?;
    let make = class.getattr("_make")?.unbind();
    let mut records = RECORDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Ok(records
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert(make)
        .clone_ref(py))
}

#[derive(Debug)]
struct Error(PyErr);

impl std::fmt::Display for Error {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(formatter)
    }
}
impl std::error::Error for Error {}
impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Error(PyValueError::new_err(message.to_string()))
    }
}
impl From<PyErr> for Error {
    fn from(error: PyErr) -> Self {
        Error(error)
    }
}

#[derive(Clone, Copy)]
struct ToPython<'py> {
    py: Python<'py>,
}

impl<'py> ToPython<'py> {
    fn object<T>(self, value: T) -> Result<Py<PyAny>, Error>
    where
        T: IntoPyObject<'py>,
    {
        Ok(value.into_py_any(self.py)?)
    }
}

struct Sequence<'py> {
    py: Python<'py>,
    items: Vec<Py<PyAny>>,
}

impl ser::SerializeSeq for Sequence<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(ToPython { py: self.py })?);
        Ok(())
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        Ok(PyTuple::new(self.py, self.items)?.into_any().unbind())
    }
}
impl ser::SerializeTuple for Sequence<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        ser::SerializeSeq::end(self)
    }
}
impl ser::SerializeTupleStruct for Sequence<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        ser::SerializeSeq::end(self)
    }
}
impl ser::SerializeTupleVariant for Sequence<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        ser::SerializeSeq::end(self)
    }
}

struct Map<'py> {
    dict: Bound<'py, PyDict>,
    key: Option<Py<PyAny>>,
}

impl ser::SerializeMap for Map<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(ToPython { py: self.dict.py() })?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("a map value without a key"))?;
        let value = value.serialize(ToPython { py: self.dict.py() })?;
        self.dict.set_item(key, value)?;
        Ok(())
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        // Read-only like everything else on the blackboard.
        let proxy = self
            .dict
            .py()
            .import("types")?
            .getattr("MappingProxyType")?
            .call1((self.dict,))?;
        Ok(proxy.unbind())
    }
}

struct Record<'py> {
    py: Python<'py>,
    name: &'static str,
    fields: Vec<&'static str>,
    values: Vec<Py<PyAny>>,
}

impl<'py> Record<'py> {
    fn new(py: Python<'py>, name: &'static str, len: usize, kind: Option<&'static str>) -> Self {
        let mut record = Record {
            py,
            name,
            fields: Vec::with_capacity(len + 1),
            values: Vec::with_capacity(len + 1),
        };
        if let Some(kind) = kind {
            record.fields.push("kind");
            record
                .values
                .push(PyString::new(py, kind).into_any().unbind());
        }
        record
    }
    fn finish(self) -> Result<Py<PyAny>, Error> {
        let make = record_maker(self.py, self.name, &self.fields)?;
        let values = PyTuple::new(self.py, self.values)?;
        Ok(make.call1(self.py, (values,))?)
    }
}

impl ser::SerializeStruct for Record<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.fields.push(key);
        self.values.push(value.serialize(ToPython { py: self.py })?);
        Ok(())
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        self.finish()
    }
}
impl ser::SerializeStructVariant for Record<'_> {
    type Ok = Py<PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<Py<PyAny>, Error> {
        self.finish()
    }
}

impl<'py> ser::Serializer for ToPython<'py> {
    type Ok = Py<PyAny>;
    type Error = Error;
    type SerializeSeq = Sequence<'py>;
    type SerializeTuple = Sequence<'py>;
    type SerializeTupleStruct = Sequence<'py>;
    type SerializeTupleVariant = Sequence<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Record<'py>;
    type SerializeStructVariant = Record<'py>;

    fn serialize_bool(self, v: bool) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_i8(self, v: i8) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Py<PyAny>, Error> {
        self.object(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_char(self, v: char) -> Result<Py<PyAny>, Error> {
        self.object(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<Py<PyAny>, Error> {
        self.object(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Py<PyAny>, Error> {
        Ok(pyo3::types::PyBytes::new(self.py, v).into_any().unbind())
    }
    fn serialize_none(self) -> Result<Py<PyAny>, Error> {
        Ok(self.py.None())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Py<PyAny>, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Py<PyAny>, Error> {
        Ok(self.py.None())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Py<PyAny>, Error> {
        Ok(self.py.None())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Py<PyAny>, Error> {
        Ok(PyString::intern(self.py, variant).into_any().unbind())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Py<PyAny>, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Py<PyAny>, Error> {
        let mut record = Record::new(self.py, variant, 1, Some(variant));
        ser::SerializeStruct::serialize_field(&mut record, "value", value)?;
        record.finish()
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Sequence<'py>, Error> {
        Ok(Sequence {
            py: self.py,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Sequence<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Sequence<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Sequence<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Map<'py>, Error> {
        Ok(Map {
            dict: PyDict::new(self.py),
            key: None,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Record<'py>, Error> {
        Ok(Record::new(self.py, name, len, None))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Record<'py>, Error> {
        Ok(Record::new(self.py, variant, len, Some(variant)))
    }
}
