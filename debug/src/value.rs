//! How a representation is shown to people and to JSON clients (`cortex get`, the debug link's
//! JSON subscriptions): msgpack decoded without the noise of widening `f32` to `f64` (`0.1`, not
//! `0.10000000149011612`), and for people, arrays of one value per joint labelled with the
//! joints' names.

use serde_json::{Map, Number, Value};

/// A channel's bytes that are not one msgpack value.
#[derive(Debug, thiserror::Error)]
#[error("not a msgpack value: {source}")]
pub struct DecodeError {
    source: rmpv::decode::Error,
}

/// Decodes a msgpack value into JSON. `f32` values are written with the shortest decimal that
/// reads back as the same `f32`; non-finite floats become `null` (JSON has no NaN).
pub fn decode(bytes: &[u8]) -> Result<Value, DecodeError> {
    let mut reader = bytes;
    let value = rmpv::decode::read_value(&mut reader).map_err(|source| DecodeError { source })?;
    Ok(to_json(value))
}

fn to_json(value: rmpv::Value) -> Value {
    use rmpv::Value as M;
    match value {
        M::Nil => Value::Null,
        M::Boolean(flag) => Value::Bool(flag),
        M::Integer(integer) => integer
            .as_i64()
            .map(Number::from)
            .or_else(|| integer.as_u64().map(Number::from))
            .map_or(Value::Null, Value::Number),
        // Shortest round-trip text of the f32 itself, then as f64: 0.1f32 shows as 0.1.
        M::F32(float) => format!("{float}")
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or(Value::Null, Value::Number),
        M::F64(float) => Number::from_f64(float).map_or(Value::Null, Value::Number),
        M::String(text) => Value::String(text.into_str().unwrap_or_default()),
        M::Binary(bytes) => Value::Array(bytes.into_iter().map(Value::from).collect()),
        M::Array(items) => Value::Array(items.into_iter().map(to_json).collect()),
        M::Map(entries) => {
            let mut map = Map::new();
            for (key, value) in entries {
                let key = match key {
                    rmpv::Value::String(text) => text.into_str().unwrap_or_default(),
                    other => other.to_string(),
                };
                map.insert(key, to_json(value));
            }
            Value::Object(map)
        }
        M::Ext(kind, bytes) => serde_json::json!({ "ext": kind, "bytes": bytes }),
    }
}

/// For people: every array of exactly one number per joint (in LoLA's joint order) becomes an
/// object from joint name to value, so that `joint_positions` reads `"LeftKneePitch": 0.87`.
pub fn label_joints(value: Value, joint_names: &[String]) -> Value {
    match value {
        Value::Array(items)
            if items.len() == joint_names.len() && items.iter().all(Value::is_number) =>
        {
            Value::Object(joint_names.iter().cloned().zip(items).collect())
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| label_joints(item, joint_names))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, item)| (key, label_joints(item, joint_names)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_values_show_without_widening_noise_and_nan_is_null() {
        #[derive(serde::Serialize)]
        struct Sample {
            stiffness: f32,
            angle: f64,
            broken: f32,
            count: u64,
            name: String,
        }
        let bytes = rmp_serde::to_vec_named(&Sample {
            stiffness: 0.1,
            angle: 0.1,
            broken: f32::NAN,
            count: u64::MAX,
            name: "stand".into(),
        })
        .unwrap();
        let value = decode(&bytes).unwrap();
        assert_eq!(value["stiffness"].to_string(), "0.1");
        assert_eq!(value["angle"].to_string(), "0.1");
        assert_eq!(value["broken"], Value::Null);
        assert_eq!(value["count"].as_u64(), Some(u64::MAX));
        assert_eq!(value["name"], "stand");
        assert!(
            decode(&[0x92, 0x01]).is_err(),
            "an array of two with one element"
        );
        assert!(decode(&[]).is_err());
    }

    #[test]
    fn arrays_of_one_number_per_joint_are_labelled_and_others_are_not() {
        let names: Vec<String> = ["HeadYaw", "HeadPitch", "LeftKnee"]
            .map(String::from)
            .to_vec();
        let value = serde_json::json!({
            "positions": [0.0, 0.5, 2.1],
            "pair": [1.0, 2.0],
            "nested": [{"stiffness": [1.0, 1.0, 0.5]}],
            "words": ["a", "b", "c"],
        });
        let labelled = label_joints(value, &names);
        assert_eq!(labelled["positions"]["LeftKnee"], 2.1);
        assert_eq!(labelled["pair"], serde_json::json!([1.0, 2.0]));
        assert_eq!(labelled["nested"][0]["stiffness"]["LeftKnee"], 0.5);
        assert_eq!(labelled["words"], serde_json::json!(["a", "b", "c"]));
    }
}
