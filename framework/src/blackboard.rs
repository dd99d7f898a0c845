//! A blackboard by name: the current value of representations, looked up by name and downcast.
//! The runtime does not use it (it wires every input and output to a typed slot once, see
//! [`crate::wiring`]); tests and tools that run a module by hand do, through
//! [`Module::update_named`](crate::Module::update_named).

use std::any::Any;
use std::collections::HashMap;
use types::Representation;

/// A representation the blackboard was asked for but does not hold.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the blackboard holds no {representation} (the graph builder should have placed it)")]
pub struct BlackboardError {
    /// Its name.
    pub representation: &'static str,
}

/// Values by representation name (`upper.BallPercept` for one read from an instance).
#[derive(Debug, Default)]
pub struct Blackboard {
    values: HashMap<String, Box<dyn Any + Send + Sync>>,
}

impl Blackboard {
    /// An empty blackboard.
    pub fn new() -> Blackboard {
        Blackboard::default()
    }

    /// Puts `value` in, replacing the old one.
    pub fn insert<T: Representation>(&mut self, value: T) {
        self.values.insert(T::NAME.to_owned(), Box::new(value));
    }

    /// Puts `value` in as the one read from process instance `instance`.
    pub fn insert_from<T: Representation>(&mut self, instance: &str, value: T) {
        self.values
            .insert(format!("{instance}.{}", T::NAME), Box::new(value));
    }

    /// The current value of `T`.
    pub fn get<T: Representation>(&self) -> Result<&T, BlackboardError> {
        self.values
            .get(T::NAME)
            .and_then(|value| value.downcast_ref())
            .ok_or(BlackboardError {
                representation: T::NAME,
            })
    }

    /// The current value of `T` read from process instance `instance`.
    pub fn get_from<T: Representation>(&self, instance: &str) -> Result<&T, BlackboardError> {
        self.values
            .get(&format!("{instance}.{}", T::NAME))
            .and_then(|value| value.downcast_ref())
            .ok_or(BlackboardError {
                representation: T::NAME,
            })
    }

    /// The current value of `T`, to change in place.
    pub fn get_mut<T: Representation>(&mut self) -> Result<&mut T, BlackboardError> {
        self.values
            .get_mut(T::NAME)
            .and_then(|value| value.downcast_mut())
            .ok_or(BlackboardError {
                representation: T::NAME,
            })
    }

    /// Takes `T` out (for a provider to update while it reads the others); put it back with
    /// [`Blackboard::insert`].
    pub fn take<T: Representation>(&mut self) -> Result<T, BlackboardError> {
        let value = self.values.remove(T::NAME).ok_or(BlackboardError {
            representation: T::NAME,
        })?;
        match value.downcast::<T>() {
            Ok(value) => Ok(*value),
            Err(other) => {
                self.values.insert(T::NAME.to_owned(), other);
                Err(BlackboardError {
                    representation: T::NAME,
                })
            }
        }
    }

    /// Whether a value named `name` is present.
    pub fn contains(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }
}
